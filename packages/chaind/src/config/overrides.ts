// The addresses `chaind start` listens on: the config files' values, overridden by the Cosmos flags of
// the same names (--rpc.laddr, --api.address, --grpc.address, --api.enable, --grpc.enable), and the
// ABCI server's settings, overridden by the Cosmos SDK's `start` flags --with-comet, --address and
// --transport (server/start.go: "with-comet", "address", "transport").
import { ABCI_ADDRESS_EXPECTED, ABCI_TRANSPORTS, parseAbciAddress, type AbciAddress, type AbciTransport } from './abci.ts';
import { parseListenAddress, type ListenAddress } from './address.ts';
import { ConfigError, type AppConfig, type NodeConfig } from './config.ts';

/** The address flags, with the config key each overrides, for registering them on a command. */
export const ADDRESS_FLAGS = [
  {
    flag: 'rpc.laddr',
    key: 'config.toml rpc.laddr',
    example: 'tcp://127.0.0.1:26657',
    description: "JSON-RPC listen address (with --with-comet=false: CometBFT's, where broadcasts are forwarded)",
  },
  { flag: 'api.address', key: 'app.toml api.address', example: 'tcp://127.0.0.1:1317', description: 'REST listen address' },
  { flag: 'grpc.address', key: 'app.toml grpc.address', example: '127.0.0.1:9090', description: 'gRPC listen address' },
] as const;

/** The ABCI flags that take a value, with the app.toml key each overrides (--with-comet is a boolean). */
export const ABCI_FLAGS = [
  { flag: 'address', key: 'app.toml abci.address', example: 'tcp://127.0.0.1:26658', description: 'ABCI listen address, tcp://host:port or unix:///path' },
  { flag: 'transport', key: 'app.toml abci.transport', example: 'socket', description: 'ABCI transport: socket' },
] as const;

/** --with-comet's default, as the Cosmos SDK's: true runs CometBFT with the app (here: as chaind's child process). */
export const DEFAULT_WITH_COMET = true;

export type AddressFlag = (typeof ADDRESS_FLAGS)[number]['flag'];

/**
 * Flag values as commander hands them over (keys are the flag names, dots included; commander names
 * --with-comet `withComet`); absent = not given.
 */
export type ServerOverrides = { readonly [F in AddressFlag]?: string } & {
  readonly 'api.enable'?: boolean;
  readonly 'grpc.enable'?: boolean;
  readonly withComet?: boolean;
  readonly address?: string;
  readonly transport?: string;
};

export interface AbciSettings {
  /** true: chaind runs CometBFT as its child and serves it the app; false: chaind is an ABCI application a CometBFT the operator runs dials. */
  readonly withComet: boolean;
  readonly address: AbciAddress;
  readonly transport: AbciTransport;
}

export interface ServerAddresses {
  /** JSON-RPC: chaind's own in solo mode; with CometBFT, where CometBFT serves it (rpcDialUrl gives the URL to forward broadcasts to). */
  readonly rpc: ListenAddress;
  readonly api: { readonly enable: boolean; readonly address: ListenAddress };
  readonly grpc: { readonly enable: boolean; readonly address: ListenAddress };
  readonly abci: AbciSettings;
}

/** app.toml's [abci] settings, unless --with-comet, --address or --transport overrides them; a malformed value is a ConfigError naming the flag. */
export function resolveAbciSettings(app: AppConfig, o: ServerOverrides = {}): AbciSettings {
  let address = app.abci.address;
  if (o.address !== undefined) {
    const a = parseAbciAddress(o.address);
    if (typeof a === 'string') throw new ConfigError(`invalid --address ${JSON.stringify(o.address)}: ${a}; expected ${ABCI_ADDRESS_EXPECTED}`);
    address = a;
  }
  let transport = app.abci.transport;
  if (o.transport !== undefined) {
    const t = ABCI_TRANSPORTS.find((x) => x === o.transport);
    if (t === undefined) throw new ConfigError(`invalid --transport ${JSON.stringify(o.transport)}: chaind serves ABCI over a socket only; expected "socket"`);
    transport = t;
  }
  return { withComet: o.withComet ?? DEFAULT_WITH_COMET, address, transport };
}

/** The addresses to serve on; a malformed flag value is a ConfigError naming the flag. */
export function resolveServerAddresses(cfg: { readonly node: NodeConfig; readonly app: AppConfig }, o: ServerOverrides = {}): ServerAddresses {
  const pick = (flag: AddressFlag, fromFile: ListenAddress): ListenAddress => {
    const v = o[flag];
    if (v === undefined) return fromFile;
    const a = parseListenAddress(v);
    if (typeof a !== 'string') return a;
    const example = ADDRESS_FLAGS.find((f) => f.flag === flag)?.example;
    throw new ConfigError(`invalid --${flag} ${JSON.stringify(v)}: ${a}; expected a TCP listen address such as "${example}"`);
  };
  return {
    rpc: pick('rpc.laddr', cfg.node.rpc.laddr),
    api: { enable: o['api.enable'] ?? cfg.app.api.enable, address: pick('api.address', cfg.app.api.address) },
    grpc: { enable: o['grpc.enable'] ?? cfg.app.grpc.enable, address: pick('grpc.address', cfg.app.grpc.address) },
    abci: resolveAbciSettings(cfg.app, o),
  };
}

/**
 * A boolean flag's value as Go's strconv.ParseBool reads it (what the SDK's `--with-comet=false` takes:
 * 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False); anything else is a ConfigError naming the flag.
 */
export function parseBooleanFlag(flag: string, v: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new ConfigError(`invalid --${flag} ${JSON.stringify(v)}: expected true or false`);
}
