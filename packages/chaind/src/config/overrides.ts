// The settings `chaind start` takes from its flags: each config.toml/app.toml setting whose table entry
// names a flag (the Cosmos flags --rpc.laddr, --api.address, --grpc.address, --api.enable, --grpc.enable,
// and the Cosmos SDK's `start` flags --address and --transport, server/start.go) is overridden by it;
// --with-comet chooses how the node runs and is no setting.
import type { AbciAddress, AbciTransport } from './abci.ts';
import type { ListenAddress } from './address.ts';
import { APP_SETTINGS } from './app-settings.ts';
import type { AppConfig, NodeConfig } from './config.ts';
import { NODE_SETTINGS } from './node-settings.ts';
import { ConfigError, flagsOf, goBool, withFlags, type FlagValuesOf, type SettingFlag } from './settings.ts';

/** Every flag that overrides a setting, config.toml's first, from the tables' flag column. */
export const SETTING_FLAGS: readonly SettingFlag[] = [...flagsOf(NODE_SETTINGS, 'config.toml'), ...flagsOf(APP_SETTINGS, 'app.toml')];

/** The flags of app.toml's [abci] section: `start --with-comet=false`'s and `comet-config`'s. */
export const isAbciFlag = (f: SettingFlag): boolean => f.setting.startsWith('app.toml abci.');

/** --with-comet's default, as the Cosmos SDK's: true runs CometBFT with the app (here: as chaind's child process). */
export const DEFAULT_WITH_COMET = true;

/**
 * Flag values as commander hands them over (keys are the flag names, dots included; a boolean flag already
 * read; commander names --with-comet `withComet`); absent = not given.
 */
export type ServerOverrides = FlagValuesOf<typeof NODE_SETTINGS> & FlagValuesOf<typeof APP_SETTINGS> & { readonly withComet?: boolean };

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

/** Both files' settings with the given flags applied; a malformed flag value is a ConfigError naming the flag. */
export function withSettingFlags(cfg: { readonly node: NodeConfig; readonly app: AppConfig }, o: ServerOverrides = {}): { node: NodeConfig; app: AppConfig } {
  return { node: withFlags(NODE_SETTINGS, cfg.node, o), app: withFlags(APP_SETTINGS, cfg.app, o) };
}

/** The addresses to serve on, the files' unless a flag overrides them. */
export function resolveServerAddresses(cfg: { readonly node: NodeConfig; readonly app: AppConfig }, o: ServerOverrides = {}): ServerAddresses {
  const { node, app } = withSettingFlags(cfg, o);
  return {
    rpc: node.rpc.laddr,
    api: { enable: app.api.enable, address: app.api.address },
    grpc: { enable: app.grpc.enable, address: app.grpc.address },
    abci: { withComet: o.withComet ?? DEFAULT_WITH_COMET, address: app.abci.address, transport: app.abci.transport },
  };
}

/**
 * A boolean flag's value as Go's strconv.ParseBool reads it (what the SDK's `--with-comet=false` takes:
 * 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False); anything else is a ConfigError naming the flag.
 */
export function parseBooleanFlag(flag: string, v: string): boolean {
  const b = goBool(v);
  if (b === undefined) throw new ConfigError(`invalid --${flag} ${JSON.stringify(v)}: expected true or false`);
  return b;
}
