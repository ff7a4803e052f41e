// ABCI addresses as CometBFT writes them (`proxy_app`): `tcp://host:port` or `unix://path`. Like
// CometBFT's `libs/net` ProtocolAndAddress, an address without a scheme is TCP, so the same string
// works on both sides.
import { isIP } from 'node:net';
import { AbciAddressError } from './errors.ts';

export type AbciAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

const FORMS =
  'accepted forms: tcp://host:port (e.g. tcp://127.0.0.1:26658, tcp://[::1]:26658), host:port, ' +
  'unix:///absolute/path.sock or unix://relative/path.sock (relative to the working directory)';

/** A unix socket path longer than this (bytes) would be truncated silently by the OS (sun_path). */
export const MAX_UNIX_PATH_BYTES: number = process.platform === 'linux' ? 107 : 103;

/** An ABCI address, or why the string is none (a phrase that completes "bad ABCI address …: "). */
export function abciAddressProblem(address: string): AbciAddress | string {
  const sep = address.indexOf('://');
  const scheme = sep < 0 ? 'tcp' : address.slice(0, sep).toLowerCase();
  const rest = sep < 0 ? address : address.slice(sep + 3);
  if (scheme === 'unix') {
    if (rest === '') return 'no socket path';
    if (rest.includes('\0')) return 'the path contains a NUL byte';
    if (Buffer.byteLength(rest) > MAX_UNIX_PATH_BYTES)
      return `the socket path is ${Buffer.byteLength(rest)} bytes, above the system's limit of ${MAX_UNIX_PATH_BYTES}`;
    return { kind: 'unix', path: rest };
  }
  if (scheme !== 'tcp') return `unknown scheme "${address.slice(0, sep)}://"`;
  const m = /^(?:\[([^\]]*)\]|([A-Za-z0-9._-]*)):(\d{1,5})$/.exec(rest);
  if (m === null) return 'expected host:port';
  const host = m[1] ?? m[2];
  if (m[1] !== undefined && isIP(host) !== 6) return `"${host}" in brackets is not an IPv6 address`;
  if (host === '') return 'no host (use 0.0.0.0 or [::] to listen on every interface)';
  const port = Number(m[3]);
  if (port > 65535) return `port ${port} is above 65535`;
  return { kind: 'tcp', host, port };
}

/** Parses an ABCI address; AbciAddressError with the accepted forms when it is not one. */
export function parseAbciAddress(address: string): AbciAddress {
  const a = abciAddressProblem(address);
  if (typeof a === 'string') throw new AbciAddressError(`bad ABCI address ${JSON.stringify(address)}: ${a}; ${FORMS}`);
  return a;
}

/** The address in its canonical string form (`tcp://…`, IPv6 in brackets; `unix://path`). */
export function formatAbciAddress(address: AbciAddress): string {
  if (address.kind === 'unix') return `unix://${address.path}`;
  return isIP(address.host) === 6 ? `tcp://[${address.host}]:${address.port}` : `tcp://${address.host}:${address.port}`;
}
