import { lstatSync, readdirSync, readlinkSync, renameSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { folderCollision, leftoversIn, upgradeFolderName as folderOf, UpgradeNameError, upgradeInfoPath } from '@chaind/upgrade-plan';
import { ChainvisorError, EXIT } from './exit-codes.ts';
import { syncDirSync } from './fsync.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

/**
 * The cosmovisor folder layout, kept as is so operators can switch tools without moving files:
 *   $DAEMON_HOME/cosmovisor/genesis/bin/$DAEMON_NAME
 *   $DAEMON_HOME/cosmovisor/upgrades/<name>/bin/$DAEMON_NAME (+ upgrade-info.json)
 *   $DAEMON_HOME/cosmovisor/current -> genesis | upgrades/<name>   (relative symlink)
 */
export interface Layout {
  readonly home: string;
  readonly root: string;
  readonly dataDir: string;
  readonly upgradeInfoFile: string;
  readonly genesisDir: string;
  readonly upgradesDir: string;
  readonly current: string;
  readonly configFile: string;
  readonly daemonName: string;
}

export function layout(home: string, daemonName: string): Layout {
  const root = join(home, 'cosmovisor');
  return {
    home,
    root,
    dataDir: join(home, 'data'),
    upgradeInfoFile: upgradeInfoPath(home),
    genesisDir: join(root, 'genesis'),
    upgradesDir: join(root, 'upgrades'),
    current: join(root, 'current'),
    configFile: join(root, 'config.toml'),
    daemonName,
  };
}

/**
 * The folder of upgrade `name` (lower-cased unless recase is disabled); an unsafe name is exit code 6. With
 * `upgradesDir`, so is a folder that differs only by case from one already there (see folderCollision).
 */
export function upgradeFolderName(name: string, disableRecase = false, upgradesDir?: string): string {
  let folder: string;
  try {
    folder = folderOf(name, disableRecase);
  } catch (e) {
    if (e instanceof UpgradeNameError) throw new ChainvisorError(EXIT.UPGRADE_INFO_INVALID, e.message);
    throw e;
  }
  if (upgradesDir !== undefined) {
    let existing: string[] = [];
    try {
      existing = readdirSync(upgradesDir);
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') throw e;
    }
    const why = folderCollision(folder, existing);
    if (why !== undefined) throw new ChainvisorError(EXIT.UPGRADE_INFO_INVALID, why);
  }
  return folder;
}

export function upgradeDir(l: Layout, folder: string): string {
  return join(l.upgradesDir, folder);
}

export function binaryIn(dir: string, daemonName: string): string {
  return join(dir, 'bin', daemonName);
}

/** Where `current` points: 'genesis' or the upgrade folder name. */
export type CurrentTarget = { readonly kind: 'genesis'; readonly dir: string } | { readonly kind: 'upgrade'; readonly folder: string; readonly dir: string };

/**
 * Reads `current`. Missing, dangling, not a symlink, or pointing outside genesis/upgrades → an error:
 * never silently reset to genesis (that would start an old binary past an upgrade).
 */
export function readCurrent(l: Layout): CurrentTarget {
  let link: string;
  try {
    if (!lstatSync(l.current).isSymbolicLink()) throw new ChainvisorError(EXIT.LAYOUT_BROKEN, `${l.current} is not a symlink`);
    link = readlinkSync(l.current);
  } catch (e) {
    if (e instanceof ChainvisorError) throw e;
    if (errnoCode(e) === 'ENOENT')
      throw new ChainvisorError(EXIT.LAYOUT_BROKEN, `${l.current} is missing: run \`chainvisor init <path-to-${l.daemonName}>\` first`);
    throw new ChainvisorError(EXIT.LAYOUT_BROKEN, `cannot read ${l.current}: ${errorMessage(e)}`);
  }
  const target = resolve(l.root, link);
  let t: CurrentTarget | undefined;
  if (target === l.genesisDir) t = { kind: 'genesis', dir: target };
  else {
    const rel = relative(l.upgradesDir, target);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.includes(sep)) t = { kind: 'upgrade', folder: rel, dir: target };
  }
  if (!t) throw new ChainvisorError(EXIT.LAYOUT_BROKEN, `${l.current} points to ${link}, which is neither genesis nor a folder of upgrades/`);
  try {
    if (!statSync(target).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new ChainvisorError(EXIT.LAYOUT_BROKEN, `${l.current} is broken: it points to ${link}, which does not exist`);
  }
  return t;
}

/** The binary `current` runs; an error when it is missing. */
export function currentBinary(l: Layout): string {
  const c = readCurrent(l);
  const bin = binaryIn(c.dir, l.daemonName);
  try {
    if (!statSync(bin).isFile()) throw new Error('not a file');
  } catch {
    throw new ChainvisorError(EXIT.LAYOUT_BROKEN, `${bin} (the binary of ${l.current}) is missing or not a file`);
  }
  return bin;
}

/**
 * Points `current` at `dir` atomically: a new relative symlink `current.tmp-<pid>`, then rename over `current`,
 * so a crash leaves either the old or the new link, never none (cosmovisor removes, then creates).
 */
export function switchCurrent(l: Layout, dir: string): void {
  const tmp = `${l.current}.tmp-${process.pid}`;
  // links left by runs killed mid-switch (ours included, after a restart that got the same pid)
  for (const n of leftoversIn(l.root, `${basename(l.current)}.tmp-`)) unlinkSync(join(l.root, n));
  symlinkSync(relative(l.root, dir), tmp);
  renameSync(tmp, l.current);
  // the rename is durable only once the folder holding `current` is flushed
  syncDirSync(l.root);
}
