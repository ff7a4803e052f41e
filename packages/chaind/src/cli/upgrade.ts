// `chaind upgrade simulate [name]`: the new binary rehearses the upgrade block on the home of a node
// still running the old one. It reads a snapshot of the latest committed state (LMDB lets a second
// process read while the node commits), applies the store upgrades and runs the empty upgrade block on a
// throw-away branch, and reports what the block would do. Nothing is written.
//   0   the upgrade block would pass
//   20  it would fail (the handler's error), or the upgrade was already applied
//   21  no upgrade to simulate: none named and none scheduled, or one this binary does not run
//   22  the state is not readable: no application state, or the database cannot be opened or read
import { ChaindError, errorMessage } from '@chaind/errors';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { CommitMultiStore, type Snapshot, type StoreDiff } from '@chaind/sdk/store';
import { formatRFC3339 } from '@chaind/sdk/types';
import { PLAN_KEY, STORE_KEY as UPGRADE_STORE_KEY } from '@chaind/sdk/x/upgrade';
import { writeFileAtomic } from '../config/index.ts';
import { SIMULATE_RESULT_FILE } from '../node/side-files.ts';
import { CHAIND_RELEASE } from '../release.ts';
import { versionChanges, type DryRunResult } from '../upgrades/dry-run.ts';
import { UPGRADES, type Upgrade } from '../upgrades/index.ts';
import { BLOCK_TIME_SAMPLES, blockTimeFor, simulateUpgrade, type TimeSource } from '../upgrades/simulate.ts';
import { addHomeOption, homeOf, type HomeOptions } from './common.ts';
import { chainIdOf, doneHeight } from './pre-upgrade.ts';

export const SIMULATE_PASS = 0;
export const SIMULATE_FAIL = 20;
export const SIMULATE_UNKNOWN_UPGRADE = 21;
export const SIMULATE_STATE_UNREADABLE = 22;

/** `code` is the exit code. */
export class SimulateExit extends ChaindError<number> {
  override readonly name = 'SimulateExit';
  constructor(code: number, message: string) {
    super(code, message);
  }
}

export type { TimeSource };

export interface Simulation extends DryRunResult {
  readonly timeSource: TimeSource;
  /** The median interval of recent blocks the time was extrapolated with (timeSource "blocks"). */
  readonly medianBlockIntervalMs?: number;
}

export interface SimulateRequest {
  /** Default: the scheduled plan's. */
  readonly name?: string;
  /** The block height (and so time) the handler sees; default: the plan's height, else the next block's. */
  readonly heightAs?: bigint;
  /** Recent block intervals whose median extrapolates the block time. */
  readonly timeSamples?: number;
}

const unknownUpgrade = (msg: string): SimulateExit => new SimulateExit(SIMULATE_UNKNOWN_UPGRADE, msg);
const unreadable = (msg: string): SimulateExit => new SimulateExit(SIMULATE_STATE_UNREADABLE, msg);

function scheduledPlan(snap: Snapshot): Plan | undefined {
  if (!snap.hasStore(UPGRADE_STORE_KEY)) return undefined;
  const b = snap.getStore(UPGRADE_STORE_KEY).get(PLAN_KEY);
  return b === undefined ? undefined : Plan.decode(b);
}

/**
 * Simulates the upgrade on the latest committed state of the node at `home` (which may keep running).
 * Throws SimulateExit for an unknown upgrade or unreadable state; a failing upgrade is a result.
 */
export async function simulateHome(home: string, req: SimulateRequest = {}, upgrades: readonly Upgrade[] = UPGRADES): Promise<Simulation> {
  const dbPath = join(home, 'data', 'application.db');
  if (!existsSync(dbPath)) throw unreadable(`no application state at ${dbPath}`);
  let ms: CommitMultiStore;
  let snap: Snapshot;
  try {
    ms = CommitMultiStore.open(dbPath);
  } catch (e) {
    throw unreadable(`cannot open ${dbPath}: ${errorMessage(e)}`);
  }
  try {
    try {
      snap = ms.snapshot();
    } catch (e) {
      throw unreadable(`cannot read ${dbPath}: ${errorMessage(e)}`);
    }
    try {
      const plan = scheduledPlan(snap);
      const name = req.name ?? plan?.name;
      if (name === undefined) throw unknownUpgrade('no upgrade is scheduled: name the upgrade to simulate');
      const upgrade = upgrades.find((u) => u.name === name);
      if (upgrade === undefined) {
        const known = upgrades.length === 0 ? 'none' : upgrades.map((u) => u.name).join(', ');
        throw unknownUpgrade(`this binary (release ${CHAIND_RELEASE}) does not know upgrade "${name}" (it knows: ${known}): run the release that has it`);
      }
      const later = upgrades.slice(upgrades.indexOf(upgrade) + 1).map((u) => u.name);
      if (later.length > 0) {
        throw unknownUpgrade(
          `this binary (release ${CHAIND_RELEASE}) is too new for upgrade "${name}": it also has the later upgrade${later.length > 1 ? 's' : ''} ${later.join(', ')}; run the release of upgrade "${name}"`,
        );
      }
      const done = doneHeight(snap, name);
      if (done !== undefined) throw new SimulateExit(SIMULATE_FAIL, `upgrade "${name}" was already applied at height ${done}`);
      const height = req.heightAs ?? (plan !== undefined && plan.name === name ? plan.height : snap.height + 1n);
      if (height <= snap.height) throw new SimulateExit(SIMULATE_FAIL, `the state is at height ${snap.height}, past the upgrade height ${height}`);
      const t = blockTimeFor(home, height, req.timeSamples ?? BLOCK_TIME_SAMPLES);
      const r = simulateUpgrade({ snapshot: snap, upgrade, upgrades, height, time: t.time, info: plan?.info ?? '', chainId: chainIdOf(home) });
      return { ...r, timeSource: t.source, ...(t.medianIntervalMs !== undefined ? { medianBlockIntervalMs: t.medianIntervalMs } : {}) };
    } finally {
      snap.release();
    }
  } finally {
    await ms.close();
  }
}

export interface SimulationJSON {
  readonly name: string;
  readonly height: string;
  readonly time: string;
  readonly time_source: TimeSource;
  readonly median_block_interval_ms?: number;
  readonly from_height: string;
  readonly from_app_hash: string;
  readonly passed: boolean;
  readonly error?: string;
  readonly gas_used: string;
  readonly wall_ms: number;
  readonly peak_rss_bytes: number;
  readonly module_versions: Record<string, { readonly from: string | null; readonly to: string }>;
  readonly stores: readonly {
    readonly name: string;
    readonly renamed_from?: string;
    readonly layout: StoreDiff['layout'];
    readonly keys_added: number;
    readonly keys_changed: number;
    readonly keys_deleted: number;
    readonly bytes_written: number;
    readonly bytes_deleted: number;
    readonly net_bytes: number;
  }[];
  readonly app_hash?: string;
}

/** The `-o json` form (64-bit numbers as strings, as the chain's JSON does). */
export function simulationJSON(s: Simulation): SimulationJSON {
  const versions: Record<string, { from: string | null; to: string }> = {};
  for (const m of Object.keys(s.toVM).sort()) versions[m] = { from: s.fromVM[m]?.toString() ?? null, to: s.toVM[m].toString() };
  return {
    name: s.name,
    height: s.height.toString(),
    time: formatRFC3339(s.time),
    time_source: s.timeSource,
    ...(s.medianBlockIntervalMs !== undefined ? { median_block_interval_ms: s.medianBlockIntervalMs } : {}),
    from_height: s.fromHeight.toString(),
    from_app_hash: s.fromAppHash,
    passed: s.passed,
    ...(s.error !== undefined ? { error: s.error } : {}),
    gas_used: s.gasUsed.toString(),
    wall_ms: Math.round(s.wallMs * 1000) / 1000,
    peak_rss_bytes: s.peakRssBytes,
    module_versions: versions,
    stores: s.stores.map((d) => ({
      name: d.name,
      ...(d.renamedFrom !== undefined ? { renamed_from: d.renamedFrom } : {}),
      layout: d.layout,
      keys_added: d.keysAdded,
      keys_changed: d.keysChanged,
      keys_deleted: d.keysDeleted,
      bytes_written: d.bytesWritten,
      bytes_deleted: d.bytesDeleted,
      net_bytes: d.netBytes,
    })),
    ...(s.appHash !== undefined ? { app_hash: s.appHash } : {}),
  };
}

/** The text form: one line per fact. */
export function simulationText(s: Simulation): string {
  const lines = [
    `upgrade "${s.name}" at height ${s.height} (time ${formatRFC3339(s.time)}, ${s.timeSource === 'blocks' ? `extrapolated from blocks every ${s.medianBlockIntervalMs ?? 0} ms` : 'the clock: no block store'}) on the state at height ${s.fromHeight}: ${s.passed ? 'PASS' : `FAIL: ${s.error ?? ''}`}`,
    `wall time ${s.wallMs.toFixed(1)} ms, gas used ${s.gasUsed}, peak memory ${(s.peakRssBytes / 1048576).toFixed(1)} MiB`,
    `module versions: ${versionChanges(s).join(', ') || 'unchanged'}`,
  ];
  for (const d of s.stores) {
    const what = d.layout === 'kept' ? (d.renamedFrom !== undefined ? `renamed from ${d.renamedFrom}` : 'changed') : d.layout;
    lines.push(
      `store ${d.name} (${what}): +${d.keysAdded} ~${d.keysChanged} -${d.keysDeleted} keys, ${d.bytesWritten} bytes written, ${d.bytesDeleted} deleted, net ${d.netBytes >= 0 ? '+' : ''}${d.netBytes}`,
    );
  }
  if (s.appHash !== undefined) lines.push(`app hash of the upgrade block with no txs: ${s.appHash}`);
  return lines.join('\n');
}

interface SimulateOptions extends HomeOptions {
  readonly heightAs?: bigint;
  readonly output: string;
  readonly timeSamples: number;
}

function parseHeight(v: string): bigint {
  if (!/^[0-9]+$/.test(v) || BigInt(v) <= 0n) throw new InvalidArgumentError('a positive integer');
  return BigInt(v);
}

function parseSamples(v: string): number {
  if (!/^[0-9]+$/.test(v) || Number(v) < 1 || Number(v) > 100_000) throw new InvalidArgumentError('an integer from 1 to 100000');
  return Number(v);
}

export function registerUpgradeCommands(program: Command): void {
  const upgrade = program.command('upgrade').description('upgrade tools for operators');
  addHomeOption(
    upgrade
      .command('simulate')
      .description(
        'run the upgrade block with this (new) binary on the latest state of a node, running or not, writing nothing (exit 0 pass, 20 fail, 21 unknown upgrade, 22 state not readable)',
      )
      .argument('[name]', "the upgrade (default: the scheduled plan's)")
      .option(
        '--height-as <height>',
        "the block height the handler sees (default: the plan's, else the next block's); the block time is extrapolated from recent blocks",
        parseHeight,
      )
      .option('--time-samples <n>', 'how many recent block intervals the block time is extrapolated from (their median)', parseSamples, BLOCK_TIME_SAMPLES)
      .option('-o, --output <format>', 'text or json', 'text'),
  ).action(async (name: string | undefined, o: SimulateOptions) => {
    if (o.output !== 'text' && o.output !== 'json') {
      console.error(`Error: unknown output format "${o.output}": text or json`);
      process.exitCode = 1;
      return;
    }
    let s: Simulation;
    try {
      s = await simulateHome(homeOf(o), { name, heightAs: o.heightAs, timeSamples: o.timeSamples });
    } catch (e) {
      if (!(e instanceof SimulateExit)) throw e;
      console.error(`Error: ${e.message}`);
      process.exitCode = e.code;
      return;
    }
    const json = simulationJSON(s);
    console.log(o.output === 'json' ? JSON.stringify(json, null, 2) : simulationText(s));
    process.exitCode = s.passed ? SIMULATE_PASS : SIMULATE_FAIL;
    // the last result, for the node's upgrade dashboard; only a file beside the state, never the state
    const file = join(homeOf(o), SIMULATE_RESULT_FILE);
    try {
      await writeFileAtomic(file, `${JSON.stringify({ ...json, finished_at: new Date().toISOString() }, null, 2)}\n`, 0o644);
    } catch (e) {
      console.error(`warning: the result was not saved for the dashboard in ${file}: ${errorMessage(e)}`);
    }
  });
}
