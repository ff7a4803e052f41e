// The node's configuration: <home>/config/config.toml (CometBFT v0.38's file: chaind reads the keys it
// uses, and CometBFT started on the same home reads all of it) and <home>/config/app.toml (Cosmos'
// application settings). Missing keys take their defaults; CometBFT's keys that chaind does not use
// are accepted silently; any other unknown key is reported as a warning (a misspelling, most likely);
// a bad value is one ConfigError naming the file, the key and the form expected.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { APP_SETTINGS, type AppConfig } from './app-settings.ts';
import { COMETBFT_KEY_PATHS } from './cometbft-keys.ts';
import { MONIKER_EXPECTED, monikerProblem, NODE_SETTINGS, type NodeConfig } from './node-settings.ts';
import { ConfigError, defaultsOf, readSettings } from './settings.ts';
import { errnoCode } from '@chaind/errors';

export {
  DEFAULT_QUERY_GAS_LIMIT,
  DEFAULT_STATE_DB_MAX_BYTES,
  STATE_DB_MAX_BYTES_SETTING,
  APP_SETTINGS,
  type AppConfig,
  type GasPrice,
} from './app-settings.ts';
export { DEFAULT_MAX_WRITE_BUFFER_BYTES, DEFAULT_WRITE_TIMEOUT_MS, MIN_WRITE_BUFFER_BYTES, NODE_SETTINGS, type NodeConfig } from './node-settings.ts';
export { ConfigError } from './settings.ts';

export const CONFIG_DIR = 'config';
export const NODE_CONFIG_FILE = 'config.toml';
export const APP_CONFIG_FILE = 'app.toml';

/** A Prometheus endpoint: CometBFT's [instrumentation] keys (config.toml), or chaind's in app.toml behind CometBFT. */
export type Instrumentation = NodeConfig['instrumentation'];

export interface LoadedConfig {
  readonly home: string;
  readonly node: NodeConfig;
  readonly app: AppConfig;
  /** One line per unknown key, each naming its file. */
  readonly warnings: readonly string[];
}

export function defaultNodeConfig(moniker: string = hostname()): NodeConfig {
  return { ...(defaultsOf(NODE_SETTINGS) as Omit<NodeConfig, 'moniker'>), moniker };
}

export function defaultAppConfig(): AppConfig {
  return defaultsOf(APP_SETTINGS) as AppConfig;
}

export function configPaths(home: string): { dir: string; node: string; app: string } {
  const dir = join(resolve(home), CONFIG_DIR);
  return { dir, node: join(dir, NODE_CONFIG_FILE), app: join(dir, APP_CONFIG_FILE) };
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text, { integersAsBigInt: true }) as Record<string, unknown>;
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    // smol-toml's message continues with a code excerpt; the first line and the position say it all
    throw new ConfigError(`${file}: invalid TOML at line ${e.line}, column ${e.column}: ${e.message.split('\n')[0].replace(/^Invalid TOML document: /, '')}`);
  }
}

/** Throws a ConfigError unless `moniker` is a usable node name. */
export function checkMoniker(moniker: string): void {
  const why = monikerProblem(moniker);
  if (why !== undefined) throw new ConfigError(`invalid moniker ${JSON.stringify(moniker)}: ${why}; expected ${MONIKER_EXPECTED}`);
}

/** Parses config.toml text; `file` names it in errors and warnings. CometBFT's keys chaind does not read are no warning. */
export function parseNodeConfig(text: string, file: string): { config: NodeConfig; warnings: string[] } {
  return readSettings(NODE_SETTINGS, parseToml(text, file), file, COMETBFT_KEY_PATHS);
}

/** Parses app.toml text; `file` names it in errors and warnings. */
export function parseAppConfig(text: string, file: string): { config: AppConfig; warnings: string[] } {
  return readSettings(APP_SETTINGS, parseToml(text, file), file);
}

async function readConfigFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') throw new ConfigError(`${file} not found: run "chaind init" first, or pass the right --home`);
    throw e;
  }
}

export async function loadNodeConfig(home: string): Promise<{ config: NodeConfig; warnings: string[] }> {
  const file = configPaths(home).node;
  return parseNodeConfig(await readConfigFile(file), file);
}

export async function loadAppConfig(home: string): Promise<{ config: AppConfig; warnings: string[] }> {
  const file = configPaths(home).app;
  return parseAppConfig(await readConfigFile(file), file);
}

/** Reads and validates <home>/config/config.toml and app.toml. */
export async function loadConfig(home: string): Promise<LoadedConfig> {
  // one after the other, so that with both files broken the error is always config.toml's
  const node = await loadNodeConfig(home);
  const app = await loadAppConfig(home);
  return { home: resolve(home), node: node.config, app: app.config, warnings: [...node.warnings, ...app.warnings] };
}
