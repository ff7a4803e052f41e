// The server addresses `chaind start` listens on: the config files' values, overridden by the Cosmos
// flags of the same names (--rpc.laddr, --api.address, --grpc.address, --api.enable, --grpc.enable).
import { parseListenAddress, type ListenAddress } from './address.ts';
import { ConfigError, type AppConfig, type NodeConfig } from './config.ts';

/** The address flags, with the config key each overrides, for registering them on a command. */
export const ADDRESS_FLAGS = [
  { flag: 'rpc.laddr', key: 'config.toml rpc.laddr', example: 'tcp://127.0.0.1:26657', description: 'JSON-RPC listen address' },
  { flag: 'api.address', key: 'app.toml api.address', example: 'tcp://127.0.0.1:1317', description: 'REST listen address' },
  { flag: 'grpc.address', key: 'app.toml grpc.address', example: '127.0.0.1:9090', description: 'gRPC listen address' },
] as const;

export type AddressFlag = (typeof ADDRESS_FLAGS)[number]['flag'];

/** Flag values as commander hands them over (keys are the flag names, dots included); absent = not given. */
export type ServerOverrides = { readonly [F in AddressFlag]?: string } & { readonly 'api.enable'?: boolean; readonly 'grpc.enable'?: boolean };

export interface ServerAddresses {
  readonly rpc: ListenAddress;
  readonly api: { readonly enable: boolean; readonly address: ListenAddress };
  readonly grpc: { readonly enable: boolean; readonly address: ListenAddress };
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
  };
}
