// Listen addresses: CometBFT writes "tcp://host:port" (rpc.laddr, p2p.laddr), Cosmos "tcp://host:port"
// (api.address) or a bare "host:port" (grpc.address). Both forms are accepted everywhere; only TCP is served.
import { isIP } from 'node:net';

export interface ListenAddress {
  /** An IPv4 or IPv6 address (without brackets) or a host name such as "localhost". */
  readonly host: string;
  /** 0 asks the system for a free port. */
  readonly port: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The address a string names, or why it names none (a phrase that completes "…: "). */
export function parseListenAddress(s: string): ListenAddress | string {
  let rest = s;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(rest);
  if (scheme !== null) {
    if (scheme[1].toLowerCase() !== 'tcp') return `unsupported scheme "${scheme[1]}://": only tcp:// is served`;
    rest = rest.slice(scheme[0].length);
  }
  let host: string;
  let port: string;
  const v6 = /^\[([^\]]*)\]:(.*)$/.exec(rest);
  if (v6 !== null) {
    [, host, port] = v6;
    if (isIP(host) !== 6) return `"${host}" is not an IPv6 address`;
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon < 0) return 'missing ":port"';
    host = rest.slice(0, colon);
    port = rest.slice(colon + 1);
    if (host.includes(':')) return 'an IPv6 host must be in brackets, as "[::1]:26657"';
    // Go's net.Listen reads an empty host as every interface; here that has to be said ("0.0.0.0")
    if (host === '') return 'missing host (write 0.0.0.0 to listen on every interface)';
    if (isIP(host) === 0 && !HOSTNAME.test(host)) return `"${host}" is not an IP address or host name`;
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return `port "${port}" is not a number from 0 to 65535`;
  return { host, port: Number(port) };
}

/** "host:port", with brackets around an IPv6 host. */
export function hostPort(a: ListenAddress): string {
  return `${isIP(a.host) === 6 ? `[${a.host}]` : a.host}:${a.port}`;
}

/** "tcp://host:port", as CometBFT and the Cosmos API write it. */
export function tcpAddress(a: ListenAddress): string {
  return `tcp://${hostPort(a)}`;
}
