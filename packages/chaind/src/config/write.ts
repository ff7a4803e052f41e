// config.toml and app.toml as text, every key with a comment saying what it does (what `chaind init`
// writes), and the atomic file writes shared with the CLI.
import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { link, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { APP_SETTINGS } from './app-settings.ts';
import { abciDialAddress, formatAbciAddress, type AbciAddress } from './abci.ts';
import { checkMoniker, configPaths, defaultAppConfig, defaultNodeConfig, type AppConfig, type NodeConfig } from './config.ts';
import { NODE_SETTINGS } from './node-settings.ts';
import { renderSettings } from './settings.ts';
import { errnoCode } from '@chaind/errors';

/** config.toml as `chaind init` writes it: every NODE_SETTINGS key with its doc as a comment. */
export function renderNodeConfig(c: NodeConfig, chainId?: string): string {
  return renderSettings(
    NODE_SETTINGS,
    c,
    `chaind node configuration${chainId === undefined ? '' : ` for chain ${chainId}`}, in CometBFT v0.38's config.toml format: CometBFT started on this home (cometbft start --home <this home>) reads this file too, with its defaults for every key not written here. Durations are written as "1s", "500ms", "1m30s". CometBFT's keys are accepted here as they are; any other key chaind does not know is reported at start-up and ignored.`,
  );
}

/** app.toml as `chaind init` writes it: every APP_SETTINGS key with its doc as a comment. */
export function renderAppConfig(c: AppConfig, chainId?: string): string {
  return renderSettings(
    APP_SETTINGS,
    c,
    `chaind application configuration (Cosmos-style app.toml)${chainId === undefined ? '' : ` for chain ${chainId}`}. Keys chaind does not know are reported at start-up and ignored.`,
  );
}

/**
 * Writes `text` to `path` so that a crash leaves the old file or the new one, never a mix: a temp file
 * in the same directory, fsynced, renamed over. With `exclusive`, an existing file is an EEXIST error.
 */
export async function writeFileAtomic(path: string, text: string, mode: number, exclusive = false): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, mode);
  try {
    try {
      await fh.writeFile(text, 'utf8');
      // the mode given to open is narrowed by the umask; key files must end up exactly as asked
      await fh.chmod(mode);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // link, unlike rename, fails when the target exists: no window between a check and the write
    if (exclusive) await link(tmp, path);
    else await rename(tmp, path);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return false;
    throw e;
  }
}

export interface DefaultConfigOptions {
  readonly moniker: string;
  /** Named in each file's header comment; the chain id itself lives in genesis.json. */
  readonly chainId?: string;
  /** Replace files that exist (otherwise they are kept as they are). */
  readonly overwrite?: boolean;
  /** chaind's ABCI address, written to app.toml [abci] address and, for CometBFT, config.toml proxy_app. */
  readonly abciAddress?: AbciAddress;
}

/**
 * Writes <home>/config/config.toml and app.toml with the defaults and this moniker. Existing files are
 * kept unless `overwrite`. Returns the files written and those kept.
 */
export async function writeDefaultConfig(home: string, o: DefaultConfigOptions): Promise<{ written: string[]; kept: string[] }> {
  const paths = configPaths(home);
  checkMoniker(o.moniker);
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const out = { written: [] as string[], kept: [] as string[] };
  // one value for both files, so CometBFT reading config.toml dials where chaind listens
  const d = defaultAppConfig();
  const app: AppConfig = { ...d, abci: { ...d.abci, address: o.abciAddress ?? d.abci.address } };
  for (const [path, text] of [
    [paths.node, renderNodeConfig({ ...defaultNodeConfig(o.moniker), proxyApp: formatAbciAddress(abciDialAddress(app.abci.address)) }, o.chainId)],
    [paths.app, renderAppConfig(app, o.chainId)],
  ] as const) {
    if (!o.overwrite && (await exists(path))) {
      out.kept.push(path);
      continue;
    }
    await writeFileAtomic(path, text, 0o644);
    out.written.push(path);
  }
  return out;
}
