// `chaind pre-upgrade`: what cosmovisor (and chainvisor) run with the new binary after the old one halted
// and before starting it. The sidecar contract: 0 = ready, 30 = this upgrade must not go ahead,
// 31 = try again later. (The Cosmos SDK's default answers 1, "not implemented"; we implement it.)
//
// Reads <home>/data/upgrade-info.json (or takes the upgrade from --upgrade-name and --upgrade-height, to
// dry-run a new release on a copy of a node's data) and dry-runs the named upgrade on the committed state: the store
// upgrades as the loader would apply them and the handler as block H would run it, on a throw-away
// branch of a read snapshot — nothing is written, so the real upgrade block starts from intact state.
//   0   the upgrade is this binary's, the state is at H-1 and the dry run passed; or it is already applied
//   30  no or malformed upgrade-info.json; an upgrade this binary does not know, or one older than its
//       last upgrade (a later release is too new for it); no state; the state is
//       past H without the upgrade; a store upgrade or the handler fails (its error printed)
//   31  the state is before H-1 (the old binary has not halted at H yet), or the database is busy
//       (locked, reader table full): worth retrying
import { ChaindError, errorMessage } from '@chaind/errors';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { CommitMultiStore, concatBytes, readU64be, utf8, type Snapshot } from '@chaind/sdk/store';
import { DONE_PREFIX, STORE_KEY as UPGRADE_STORE_KEY } from '@chaind/sdk/x/upgrade';
import { readUpgradeInfo, upgradeInfoPath, type UpgradeInfo } from '@chaind/upgrade-plan';
import { CHAIND_RELEASE } from '../release.ts';
import { versionChanges } from '../upgrades/dry-run.ts';
import { blockTimeFor, simulateUpgrade } from '../upgrades/simulate.ts';
import { UPGRADES, type Upgrade } from '../upgrades/index.ts';
import { addHomeOption, homeOf, type HomeOptions } from './common.ts';

export const PRE_UPGRADE_OK = 0;
export const PRE_UPGRADE_FAIL = 30;
export const PRE_UPGRADE_RETRY = 31;

/** `code` is the exit code (PRE_UPGRADE_FAIL or PRE_UPGRADE_RETRY). */
class PreUpgradeExit extends ChaindError<number> {
  override readonly name = 'PreUpgradeExit';
  constructor(code: number, message: string) {
    super(code, message);
  }
}

const fail = (msg: string): PreUpgradeExit => new PreUpgradeExit(PRE_UPGRADE_FAIL, msg);
const retry = (msg: string): PreUpgradeExit => new PreUpgradeExit(PRE_UPGRADE_RETRY, msg);

/** LMDB errors that pass with time: another process holds the lock, the reader table is full. */
export function isBusyError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  if (err.code === 'EAGAIN' || err.code === 'EBUSY' || err.code === 'EWOULDBLOCK') return true;
  return typeof err.message === 'string' && /MDB_READERS_FULL|MDB_BUSY|Resource temporarily unavailable|Device or resource busy/i.test(err.message);
}

export function chainIdOf(home: string): string {
  try {
    const g = JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8')) as { chain_id?: unknown };
    return typeof g.chain_id === 'string' ? g.chain_id : '';
  } catch {
    return '';
  }
}

export function doneHeight(snap: Snapshot, name: string): bigint | undefined {
  if (!snap.hasStore(UPGRADE_STORE_KEY)) return undefined;
  const b = snap.getStore(UPGRADE_STORE_KEY).get(concatBytes(DONE_PREFIX, utf8(name)));
  return b === undefined ? undefined : readU64be(b);
}

/** The upgrade to dry-run instead of the one upgrade-info.json names (a developer's dry run on a copy of a node's data). */
export interface PreUpgradeTarget {
  readonly name: string;
  /** Default: the state's height + 1 (the upgrade as the next block would apply it). */
  readonly height?: bigint;
}

/** The check; returns the line to print on success, throws PreUpgradeExit otherwise. */
export async function preUpgrade(home: string, upgrades: readonly Upgrade[] = UPGRADES, target?: PreUpgradeTarget): Promise<string> {
  const file = upgradeInfoPath(home);
  let named: { readonly name: string; readonly height?: bigint; readonly info: string } | undefined;
  if (target !== undefined) {
    named = { ...target, info: '' };
  } else {
    let fromFile: UpgradeInfo | undefined;
    try {
      fromFile = readUpgradeInfo(file);
    } catch (e) {
      throw fail(errorMessage(e));
    }
    if (fromFile === undefined) throw fail(`no upgrade to prepare: ${file} does not exist`);
    named = fromFile;
  }
  const info = named;
  const upgrade = upgrades.find((u) => u.name === info.name);
  if (upgrade === undefined) {
    const known = upgrades.length === 0 ? 'none' : upgrades.map((u) => u.name).join(', ');
    throw fail(`this binary (release ${CHAIND_RELEASE}) does not know upgrade "${info.name}" (it knows: ${known}): install the release that has it`);
  }
  const dbPath = join(home, 'data', 'application.db');
  if (!existsSync(dbPath)) throw fail(`no application state at ${dbPath}`);
  let ms: CommitMultiStore;
  try {
    ms = CommitMultiStore.open(dbPath);
  } catch (e) {
    if (isBusyError(e)) throw retry(`the database ${dbPath} is busy: ${errorMessage(e)}`);
    throw fail(`cannot open ${dbPath}: ${errorMessage(e)}`);
  }
  try {
    let snap: Snapshot;
    try {
      snap = ms.snapshot();
    } catch (e) {
      if (isBusyError(e)) throw retry(`the database ${dbPath} is busy: ${errorMessage(e)}`);
      throw e;
    }
    try {
      const h = info.height ?? snap.height + 1n;
      const done = doneHeight(snap, info.name);
      if (done !== undefined) return `upgrade "${info.name}" was already applied at height ${done}: nothing to prepare`;
      const later = upgrades.slice(upgrades.indexOf(upgrade) + 1).map((u) => u.name);
      // a later release brings the later upgrades' modules and stores: it would not apply this one as its own release does
      if (later.length > 0) {
        throw fail(
          `this binary (release ${CHAIND_RELEASE}) is too new for upgrade "${info.name}": it also has the later upgrade${later.length > 1 ? 's' : ''} ${later.join(', ')}; install the release of upgrade "${info.name}" for it`,
        );
      }
      if (snap.height < h - 1n) {
        throw retry(`the state is at height ${snap.height}, before the upgrade height ${h} - 1: the old binary has not halted at the upgrade yet`);
      }
      if (snap.height >= h) throw fail(`the state is at height ${snap.height}, past the upgrade height ${h}, and upgrade "${info.name}" was not applied`);
      const r = simulateUpgrade({ snapshot: snap, upgrade, upgrades, height: h, time: blockTimeFor(home, h).time, info: info.info, chainId: chainIdOf(home) });
      if (!r.passed) throw fail(`upgrade "${info.name}" at height ${h} would fail: ${r.error ?? ''}`);
      return `upgrade "${info.name}" at height ${h}: dry run passed (module versions: ${versionChanges(r).join(', ') || 'unchanged'})`;
    } finally {
      snap.release();
    }
  } finally {
    await ms.close();
  }
}

interface PreUpgradeOptions extends HomeOptions {
  readonly upgradeName?: string;
  readonly upgradeHeight?: bigint;
}

function parseHeight(v: string): bigint {
  if (!/^[0-9]+$/.test(v) || BigInt(v) <= 0n) throw new InvalidArgumentError('a positive integer');
  return BigInt(v);
}

export function registerPreUpgradeCommand(program: Command): void {
  addHomeOption(
    program
      .command('pre-upgrade')
      .description('check that this binary can apply the upgrade named in data/upgrade-info.json, or by --upgrade-name (exit 0 ok, 30 fail, 31 retry)')
      .option('--upgrade-name <name>', "dry-run this upgrade instead of upgrade-info.json's (e.g. a new release on a copy of a node's data)")
      .option('--upgrade-height <height>', 'with --upgrade-name: the upgrade height (default: the state height + 1)', parseHeight),
  ).action(async (o: PreUpgradeOptions) => {
    if (o.upgradeHeight !== undefined && o.upgradeName === undefined) {
      console.error('Error: --upgrade-height needs --upgrade-name');
      process.exitCode = 1;
      return;
    }
    try {
      const target = o.upgradeName === undefined ? undefined : { name: o.upgradeName, height: o.upgradeHeight };
      console.log(`pre-upgrade: ${await preUpgrade(homeOf(o), UPGRADES, target)}`);
      process.exitCode = PRE_UPGRADE_OK;
    } catch (e) {
      if (!(e instanceof PreUpgradeExit)) throw e;
      console.error(`Error: ${e.message}`);
      process.exitCode = e.code;
    }
  });
}
