// The upgrade simulation as a library: this release's modules and handlers over a snapshot of committed
// state (a running node's, or a test chain's), one dry run of the upgrade block. `chaind upgrade
// simulate` and `chaind pre-upgrade` run it; chain developers call it from their tests.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger, Timestamp } from '@chaind/sdk/app';
import type { Snapshot } from '@chaind/sdk/store';
import { chainModules, setUpgradeHandlers } from '../app.ts';
import { BlockStore } from '../node/blockstore.ts';
import { SOLO_BLOCK_STORE } from '../node/home-mode.ts';
import { dryRunUpgrade, type DryRunResult } from './dry-run.ts';

export { dryRunUpgrade, versionChanges, type DryRunOptions, type DryRunResult, type StoreDiff } from './dry-run.ts';
import { UPGRADES, type Upgrade } from './index.ts';

export interface SimulateUpgradeOptions {
  readonly snapshot: Snapshot;
  /** The upgrade to run; it must be one of `upgrades`. */
  readonly upgrade: Upgrade;
  /** The release's upgrades, oldest first (default: this binary's). */
  readonly upgrades?: readonly Upgrade[];
  readonly height: bigint;
  readonly time?: Timestamp;
  readonly info?: string;
  readonly chainId: string;
  readonly logger?: Logger;
}

/** Dry-runs `upgrade` with the modules and handlers of the release whose upgrades are `upgrades`; nothing is written. */
export function simulateUpgrade(o: SimulateUpgradeOptions): DryRunResult {
  const upgrades = o.upgrades ?? UPGRADES;
  const chain = chainModules({ upgrades, logger: o.logger });
  chain.modules.registerServices();
  setUpgradeHandlers(chain, upgrades);
  return dryRunUpgrade({
    snapshot: o.snapshot,
    upgrade: o.upgrade,
    height: o.height,
    time: o.time,
    info: o.info ?? '',
    chainId: o.chainId,
    modules: chain.modules,
    upgradeKeeper: chain.upgrade.keeper,
    logger: o.logger,
  });
}

/** How many recent block intervals the extrapolated block time takes the median of, by default. */
export const BLOCK_TIME_SAMPLES = 100;

export interface ExtrapolatedTime {
  readonly time: Timestamp;
  /** The last stored block the time is extrapolated from, and the median interval used. */
  readonly fromHeight: bigint;
  readonly medianIntervalMs: number;
}

/** Where a solo node keeps its blocks (`chaind dev`). */
export function blockStorePathOf(home: string): string {
  return join(home, 'data', SOLO_BLOCK_STORE);
}

const toNs = (t: Timestamp): bigint => t.seconds * 1_000_000_000n + BigInt(t.nanos);

/**
 * Block `height`'s time as the chain's recent pace predicts it: the last stored block's time plus the
 * median of the last `samples` intervals per block to come. Undefined without a block store holding at
 * least two blocks (a node run by CometBFT keeps its blocks in CometBFT's own store).
 */
export function extrapolateBlockTime(blockStorePath: string, height: bigint, samples = BLOCK_TIME_SAMPLES): ExtrapolatedTime | undefined {
  if (!existsSync(blockStorePath)) return undefined;
  let bs: BlockStore;
  try {
    bs = BlockStore.openReadOnly(blockStorePath);
  } catch {
    // not ours (CometBFT's goleveldb store) or not readable: no extrapolation
    return undefined;
  }
  try {
    const top = bs.height;
    const lowest = top - BigInt(samples) > bs.base ? top - BigInt(samples) : bs.base;
    if (top === 0n || lowest >= top) return undefined;
    const times: bigint[] = [];
    for (let h = lowest; h <= top; h++) {
      const t = bs.block(h)?.header?.time;
      if (t !== undefined) times.push(toNs(t));
    }
    if (times.length < 2) return undefined;
    const intervals = times
      .slice(1)
      .map((t, i) => t - times[i])
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const median = intervals[intervals.length >> 1];
    const last = times[times.length - 1];
    const ns = last + median * (height > top ? height - top : 0n);
    return {
      time: { seconds: ns / 1_000_000_000n, nanos: Number(ns % 1_000_000_000n) },
      fromHeight: top,
      medianIntervalMs: Number(median) / 1e6,
    };
  } finally {
    void bs.close();
  }
}

/** Where the block time a dry run uses came from: the node's recent blocks, or (no block store) the clock. */
export type TimeSource = 'blocks' | 'clock';

export interface BlockTime {
  readonly time: Timestamp;
  readonly source: TimeSource;
  /** The median interval of recent blocks (source "blocks"). */
  readonly medianIntervalMs?: number;
}

/** Block `height`'s time for the dry run of a node at `home`: extrapolated from its blocks, else the wall clock (never zero). */
export function blockTimeFor(home: string, height: bigint, samples = BLOCK_TIME_SAMPLES): BlockTime {
  const ext = extrapolateBlockTime(blockStorePathOf(home), height, samples);
  if (ext !== undefined) return { time: ext.time, source: 'blocks', medianIntervalMs: ext.medianIntervalMs };
  const now = Date.now();
  return { time: { seconds: BigInt(Math.floor(now / 1000)), nanos: (now % 1000) * 1_000_000 }, source: 'clock' };
}
