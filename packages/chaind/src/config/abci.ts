// Pairing chaind with CometBFT v0.38. In abci mode chaind is the ABCI server and CometBFT dials it at
// config.toml's `proxy_app` (config/config.go BaseConfig.ProxyApp: "tcp://127.0.0.1:26658" by default,
// or "unix://<path>"); chaind forwards broadcast transactions to CometBFT's JSON-RPC at config.toml
// `[rpc] laddr`, as the Cosmos SDK's startStandAlone does (server/start.go: cmtCfg.RPC.ListenAddress).
import {
  abciAddressProblem,
  DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_MESSAGE_BYTES,
  formatAbciAddress,
  type AbciAddress,
} from '@chaind/abci';
import { isIP } from 'node:net';
import { hostPort, type ListenAddress } from './address.ts';

export { formatAbciAddress, type AbciAddress };

/** The Cosmos SDK's --transport values that chaind serves: only "socket" (no ABCI over gRPC). */
export const ABCI_TRANSPORTS = ['socket'] as const;
export type AbciTransport = (typeof ABCI_TRANSPORTS)[number];

/** The SDK's --address default, and CometBFT's proxy_app default: the two meet without configuration. */
export const DEFAULT_ABCI_ADDRESS: AbciAddress = { kind: 'tcp', host: '127.0.0.1', port: 26658 };
export const DEFAULT_ABCI_TRANSPORT: AbciTransport = 'socket';

/** app.toml [abci] limits: @chaind/abci's own defaults for the server, and for CometBFT's JSON-RPC as called by the node. */
export { DEFAULT_KEEPALIVE_INITIAL_DELAY_MS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_MESSAGE_BYTES };
export const DEFAULT_COMET_RPC_TIMEOUT_MS = 10_000;
export const DEFAULT_COMET_RPC_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export const ABCI_ADDRESS_EXPECTED = 'an ABCI address such as "tcp://127.0.0.1:26658" or "unix:///var/run/chaind/abci.sock"';

/**
 * The address a string names, or why it names none (a phrase that completes "…: "): @chaind/abci's
 * reading, and stricter in a config file: the scheme is written out and a unix socket path is absolute,
 * so the address means the same whatever directory a process is started in.
 */
export function parseAbciAddress(s: string): AbciAddress | string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return 'missing "tcp://" or "unix://"';
  const a = abciAddressProblem(s);
  if (typeof a === 'string') return a;
  if (a.kind === 'unix' && !a.path.startsWith('/')) return 'a unix socket path must be absolute (three slashes: "unix:///path")';
  return a;
}

/** The host a client dials to reach a server listening on `host`: every interface → the loopback one. */
export function dialHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (isIP(host) === 6 && /^[0:]+$/.test(host)) return '::1';
  return host;
}

/**
 * The URL of CometBFT's JSON-RPC for an `[rpc] laddr`: "tcp://127.0.0.1:26657" → "http://127.0.0.1:26657".
 * An "every interface" host (0.0.0.0, ::) is dialled on the loopback interface.
 */
export function rpcDialUrl(laddr: ListenAddress): string {
  return `http://${hostPort({ host: dialHost(laddr.host), port: laddr.port })}`;
}

/** The address CometBFT dials to reach an ABCI server listening at `a` (its proxy_app). */
export function abciDialAddress(a: AbciAddress): AbciAddress {
  return a.kind === 'unix' ? a : { kind: 'tcp', host: dialHost(a.host), port: a.port };
}

const isLoopback = (h: string): boolean => h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
const sameHost = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase() || (isLoopback(a) && isLoopback(b));

/** Whether CometBFT dialling `proxyApp` reaches an ABCI server listening at `abci`. */
function reaches(proxyApp: string, abci: AbciAddress): boolean {
  // CometBFT reads an address without a scheme as tcp (libs/net ProtocolAndAddress)
  const got = parseAbciAddress(/^[a-z][a-z0-9+.-]*:\/\//i.test(proxyApp) ? proxyApp : `tcp://${proxyApp}`);
  if (typeof got === 'string') return false;
  if (got.kind === 'unix' || abci.kind === 'unix') return got.kind === 'unix' && abci.kind === 'unix' && got.path === abci.path;
  if (got.port !== abci.port) return false;
  // listening on every interface, chaind is reached at any of this machine's addresses
  return dialHost(abci.host) !== abci.host || sameHost(got.host, abci.host);
}

/**
 * Why a CometBFT reading this config.toml (`proxy_app`, `abci`) would not reach chaind's ABCI server at
 * `abci`: one line per problem, each naming the file and the key; empty when they are paired.
 */
export function pairingProblems(file: string, node: { readonly proxyApp: string; readonly abci: string }, abci: AbciAddress): string[] {
  const out: string[] = [];
  if (!reaches(node.proxyApp, abci)) {
    out.push(
      `${file}: proxy_app = ${JSON.stringify(node.proxyApp)} is not where chaind's ABCI server listens (${formatAbciAddress(abci)}): ` +
        `CometBFT reading this file would not reach chaind; set proxy_app = "${formatAbciAddress(abciDialAddress(abci))}"`,
    );
  }
  if (node.abci !== 'socket') out.push(`${file}: abci = ${JSON.stringify(node.abci)}: chaind serves ABCI over a socket only; CometBFT needs abci = "socket"`);
  return out;
}
