import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readUpgradeInfoFile, UPGRADE_INFO_FILE, writeUpgradeInfo, type UpgradeInfo, type UpgradeInfoFile } from '@chaind/upgrade-plan';
import { backupData } from './backup.ts';
import { upgradeInfoLimit, type Config } from './config.ts';
import { ChainvisorError, EXIT } from './exit-codes.ts';
import { binaryIn, readCurrent, switchCurrent, upgradeDir, upgradeFolderName, type Layout } from './layout.ts';
import { ms, type Logger } from './log.ts';
import type { VisorMetrics } from './metrics.ts';
import { staleRelease } from '@chaind/upgrade-plan';
import { errorMessage } from '@chaind/errors';

/** Fetches, verifies and installs the release of `info` into `destDir` (binary at destDir/bin/<daemon>). */
export type Installer = (info: UpgradeInfoFile, destDir: string) => Promise<{ readonly binaryPath: string; readonly bytes: number; readonly sha256: string }>;

export interface UpgradeContext {
  readonly cfg: Config;
  readonly l: Layout;
  readonly log: Logger;
  /** the download path; absent when downloads are not wired (tests of the local path) */
  readonly install?: Installer;
  /** where state, downloads and downtime are reported (default: nowhere) */
  readonly metrics?: VisorMetrics;
}

/** Milliseconds spent in each step, for the downtime summary. */
export interface Timings {
  stop: number;
  delay: number;
  backup: number;
  script: number;
  binary: number;
  preUpgrade: number;
  switch: number;
}

/** A release already loaded in a process of its own (DAEMON_WARM_START: standby.ts), as the upgrade uses it. */
export interface LoadedRelease {
  readonly pid: number | undefined;
  /** Why it cannot be the node of the upgrade `info` run with `binary`, or null when it can. */
  unfitFor(info: Pick<UpgradeInfo, 'name' | 'height' | 'info'>, binary: string): string | null;
  /** Runs `pre-upgrade <args>` in it: the exit code, or undefined when it is gone. */
  preUpgrade(args: readonly string[]): Promise<number | undefined>;
  /** Ends it, unless it already runs the node. */
  cancel(): void;
}

export interface UpgradeDone<S extends LoadedRelease = LoadedRelease> {
  readonly info: UpgradeInfoFile;
  readonly folder: string;
  readonly binary: string;
  readonly timings: Timings;
  /** the loaded release that ran the pre-upgrade and is to become the node (DAEMON_WARM_START) */
  readonly standby?: S;
}

/**
 * Whether `info` names an upgrade `current` has not been switched to yet: another name, or the same name at a
 * newer height. A plan older than the one `current` runs is not pending (never a downgrade).
 */
export function isPending(ctx: UpgradeContext, info: Pick<UpgradeInfo, 'name' | 'height'>): boolean {
  const folder = upgradeFolderName(info.name, ctx.cfg.disableRecase, ctx.l.upgradesDir);
  const cur = readCurrent(ctx.l);
  if (cur.kind === 'genesis') return true;
  const recorded = readUpgradeInfoFile(join(cur.dir, UPGRADE_INFO_FILE), upgradeInfoLimit(ctx.cfg));
  if (cur.folder === folder) return recorded.state === 'ok' && recorded.info.name === info.name && info.height > recorded.info.height;
  if (recorded.state === 'ok' && recorded.info.height > info.height) return false;
  return true;
}

const sleep = (n: number): Promise<void> => new Promise((r) => setTimeout(r, n));

/** As cosmovisor: a custom pre-upgrade script without any execute bit gets them added (a missing one is runTool's error). */
function makeExecutable(script: string, log: Logger): void {
  let mode: number;
  try {
    mode = statSync(script).mode;
  } catch {
    return;
  }
  if ((mode & 0o111) !== 0) return;
  log.info(`setting the execute permission of COSMOVISOR_CUSTOM_PREUPGRADE ${script}`);
  chmodSync(script, mode | 0o111);
}

/** Runs a command with stdout/stderr sent to our stderr (never the node's stdout); resolves with its exit code. */
function runTool(cmd: string, args: readonly string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, [...args], { stdio: ['ignore', 2, 2] });
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * The upgrade, with the old binary already stopped: restart delay, backup, custom pre-upgrade script, the binary
 * (local, else downloaded), `<new binary> pre-upgrade`, then the atomic switch of `current` and the plan copied
 * beside the binary. Any failure throws with its exit code and leaves `current` on the old binary.
 *
 * `pre-upgrade` runs before the switch (cosmovisor runs it after): if it fails, `current` still names the old
 * release, so the next start of chainvisor retries the whole upgrade instead of launching an unprepared binary.
 */
export async function performUpgrade<S extends LoadedRelease>(
  ctx: UpgradeContext,
  info: UpgradeInfoFile,
  stopMs: number,
  standby?: S,
): Promise<UpgradeDone<S>> {
  try {
    return await upgradeSteps(ctx, info, stopMs, standby);
  } catch (e) {
    standby?.cancel();
    throw e;
  }
}

async function upgradeSteps<S extends LoadedRelease>(
  ctx: UpgradeContext,
  info: UpgradeInfoFile,
  stopMs: number,
  standby: S | undefined,
): Promise<UpgradeDone<S>> {
  const { cfg, l, log } = ctx;
  const folder = upgradeFolderName(info.name, cfg.disableRecase, l.upgradesDir);
  const t: Timings = { stop: stopMs, delay: 0, backup: 0, script: 0, binary: 0, preUpgrade: 0, switch: 0 };
  log.info(`upgrade ${info.name} at height ${info.height}: starting`);

  if (cfg.restartDelayMs > 0) {
    const s = performance.now();
    await sleep(cfg.restartDelayMs);
    t.delay = performance.now() - s;
  }

  if (cfg.unsafeSkipBackup) log.warn('UNSAFE_SKIP_BACKUP=true: no backup of data/');
  else {
    try {
      const b = await backupData(l.dataDir, cfg.dataBackupDir, folder, info.height);
      t.backup = b.ms;
      if (b.existed) log.info(`backup ${b.dir} already exists: kept`);
      else log.info(`backup of data/ to ${b.dir}: ${b.files} files, ${b.bytes} bytes in ${ms(b.ms)}`);
    } catch (e) {
      throw new ChainvisorError(EXIT.UPGRADE_FAILED, `backup of ${l.dataDir} failed: ${errorMessage(e)}; current unchanged`);
    }
  }

  if (cfg.customPreupgrade !== '') {
    const script = isAbsolute(cfg.customPreupgrade) ? cfg.customPreupgrade : join(l.root, cfg.customPreupgrade);
    makeExecutable(script, log);
    const s = performance.now();
    log.info(`running COSMOVISOR_CUSTOM_PREUPGRADE ${script} ${info.name} ${info.height}`);
    const r = await runTool(script, [info.name, info.height.toString()]);
    t.script = performance.now() - s;
    if (r.code !== 0) {
      const how = r.error ? `could not be run (${r.error.message})` : r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`;
      throw new ChainvisorError(EXIT.PREUPGRADE_FAILED, `COSMOVISOR_CUSTOM_PREUPGRADE ${script} ${how}: upgrade ${info.name} aborted, current unchanged`);
    }
  }

  const dir = upgradeDir(l, folder);
  const s = performance.now();
  const binary = await ensureBinary(ctx, info, dir);
  t.binary = performance.now() - s;

  let warm = standby;
  const unfit = warm?.unfitFor(info, binary) ?? null;
  if (warm !== undefined && unfit !== null) {
    log.info(`warm start: the standby (pid ${warm.pid ?? '?'}) is not used: ${unfit}; starting ${binary} cold`);
    warm.cancel();
    warm = undefined;
  }
  const p = performance.now();
  warm = await preUpgrade(ctx, binary, info, warm);
  t.preUpgrade = performance.now() - p;

  const w = performance.now();
  try {
    writeUpgradeInfo(join(dir, UPGRADE_INFO_FILE), info);
    switchCurrent(l, dir);
  } catch (e) {
    throw new ChainvisorError(EXIT.UPGRADE_FAILED, `switching ${l.current} to ${dir} failed: ${errorMessage(e)}`);
  }
  t.switch = performance.now() - w;
  log.info(`current -> upgrades/${folder}`);
  return { info, folder, binary, timings: t, ...(warm === undefined ? {} : { standby: warm }) };
}

async function ensureBinary(ctx: UpgradeContext, info: UpgradeInfoFile, dir: string): Promise<string> {
  const { cfg, l, log } = ctx;
  const bin = binaryIn(dir, l.daemonName);
  let st;
  try {
    st = lstatSync(bin);
  } catch {
    st = undefined;
  }
  if (st) {
    if (!st.isFile()) throw new ChainvisorError(EXIT.UPGRADE_FAILED, `${bin} is not a regular file (a symlink or folder is refused)`);
    const stale = staleRelease(dir, info.info);
    if (stale === null) {
      log.info(`using the installed binary ${bin}`);
      return bin;
    }
    // governance re-scheduled this name with another release: the one prepared for the old plan is never run
    const why = `the release in ${dir} is not the one of plan ${info.name}: ${stale}`;
    if (!cfg.allowDownloadBinaries || !ctx.install || info.info === '')
      throw new ChainvisorError(
        EXIT.UPGRADE_FAILED,
        `${why}; not run, and it cannot be replaced (${info.info === '' ? "the plan's info names no release" : 'DAEMON_ALLOW_DOWNLOAD_BINARIES is false'}): install the plan's release with \`chainvisor add-upgrade ${info.name} <path> --force\``,
      );
    log.warn(`${why}: replacing it`);
  } else if (!cfg.allowDownloadBinaries)
    throw new ChainvisorError(
      EXIT.UPGRADE_FAILED,
      `no binary for upgrade ${info.name} at ${bin} and DAEMON_ALLOW_DOWNLOAD_BINARIES is false: install it with \`chainvisor add-upgrade ${info.name} <path>\``,
    );
  if (!ctx.install) throw new ChainvisorError(EXIT.UPGRADE_FAILED, `no binary for upgrade ${info.name} at ${bin} and downloads are not available`);
  if (info.info === '')
    throw new ChainvisorError(EXIT.UPGRADE_FAILED, `no binary for upgrade ${info.name} at ${bin} and the plan's info names no release to download`);
  try {
    const r = await ctx.install(info, dir);
    log.info(`release ${info.name} installed: ${r.bytes} bytes, sha256 ${r.sha256}`);
    return r.binaryPath;
  } catch (e) {
    if (e instanceof ChainvisorError) throw e;
    throw new ChainvisorError(EXIT.UPGRADE_FAILED, `download of upgrade ${info.name} failed: ${errorMessage(e)}; current unchanged`);
  }
}

/**
 * The pre-upgrade contract: 0 ok; 1 not implemented (continue); 30 fail; 31 retry up to the max; anything else fails.
 * Run in `standby` when given (the same command in an already loaded process); a standby that exits meanwhile is
 * dropped for a cold run. Resolves with the standby still usable, if any.
 */
export async function preUpgrade<S extends LoadedRelease>(ctx: UpgradeContext, binary: string, info: UpgradeInfoFile, standby?: S): Promise<S | undefined> {
  const { cfg, log } = ctx;
  const args = ['--home', ctx.l.home];
  let warm = standby;
  for (let attempt = 0; ; attempt++) {
    let r: { code: number | null; signal: NodeJS.Signals | null; error?: Error } | undefined;
    if (warm !== undefined) {
      const code = await warm.preUpgrade(args);
      if (code === undefined) {
        log.warn(`warm start: the standby (pid ${warm.pid ?? '?'}) exited during pre-upgrade: running ${binary} pre-upgrade cold`);
        warm = undefined;
      } else r = { code, signal: null };
    }
    r ??= await runTool(binary, ['pre-upgrade', ...args]);
    const where = warm === undefined ? '' : ' (in the standby)';
    if (r.code === 0) {
      log.info(`${binary} pre-upgrade${where}: ok`);
      return warm;
    }
    if (r.code === 1) {
      log.info(`${binary} pre-upgrade${where}: exit code 1, not implemented: continuing`);
      return warm;
    }
    if (r.code === 31 && attempt < cfg.preupgradeMaxRetries) {
      log.warn(`${binary} pre-upgrade${where}: exit code 31, retrying (${attempt + 1}/${cfg.preupgradeMaxRetries})`);
      continue;
    }
    const how = r.error
      ? `could not be run (${r.error.message})`
      : r.signal
        ? `was killed by ${r.signal}`
        : r.code === 30
          ? 'exited with code 30 (failed)'
          : r.code === 31
            ? `exited with code 31 after ${cfg.preupgradeMaxRetries} retries (DAEMON_PREUPGRADE_MAX_RETRIES)`
            : `exited with code ${r.code}, which the pre-upgrade contract does not define`;
    throw new ChainvisorError(EXIT.PREUPGRADE_FAILED, `${binary} pre-upgrade${where} ${how}: upgrade ${info.name} aborted, current unchanged`);
  }
}
