// A dry run of an upgrade on a throw-away branch of a read snapshot: the store upgrades as the store
// loader would apply them, then the upgrade block with no txs — the handler as the pre-blocker would run
// it at the upgrade height, the other pre-blockers, begin- and end-blockers — and the app hash that
// block would commit. Nothing is written: the snapshot is read-only and the branch is a
// ScratchMultiStore (it cannot write). `chaind pre-upgrade` and `chaind upgrade simulate` both run it.
import { performance } from 'node:perf_hooks';
import { Context, InfiniteGasMeter, nopLogger, type Logger, type ModuleManager, type Timestamp, type VersionMap } from '@chaind/sdk/app';
import { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { assertMountedStores, ScratchMultiStore, toHex, upgradedView, wouldCommit, type Snapshot, type StoreDiff } from '@chaind/sdk/store';
import { MODULE_NAME as UPGRADE_MODULE, PLAN_KEY, STORE_KEY as UPGRADE_STORE_KEY, type UpgradeKeeper } from '@chaind/sdk/x/upgrade';
import type { Upgrade } from './types.ts';
import { errorMessage } from '@chaind/errors';

export type { StoreDiff };

export interface DryRunResult {
  readonly name: string;
  readonly height: bigint;
  /** The block time the handler saw. */
  readonly time: Timestamp;
  /** The state the dry run started from (the latest committed, height - 1 for the real block). */
  readonly fromHeight: bigint;
  readonly fromAppHash: string;
  readonly passed: boolean;
  /** Why the block would fail (a store upgrade, a missing store, the handler or another blocker). */
  readonly error?: string;
  /** The plan the handler ran with: the scheduled one, or one made from the name, height and info. */
  readonly plan: Plan;
  readonly fromVM: VersionMap;
  /** The module versions after the handler (equal to fromVM when it failed). */
  readonly toVM: VersionMap;
  /** Gas the handler charged (the pre-blocker runs it unmetered). */
  readonly gasUsed: bigint;
  /** Wall time of the store upgrades, the block and the hashing, in milliseconds. */
  readonly wallMs: number;
  /** Per store with changes: keys added, changed and deleted, and bytes (only when it passed). */
  readonly stores: readonly StoreDiff[];
  /** Hex app hash the upgrade block would commit with no txs (only when it passed). */
  readonly appHash?: string;
  /** The process's peak resident memory so far, in bytes (the dry run's peak when it is the process's main work). */
  readonly peakRssBytes: number;
}

export interface DryRunOptions {
  /** Committed state at height - 1 (or earlier, to rehearse the upgrade as a later block would apply it). */
  readonly snapshot: Snapshot;
  readonly upgrade: Upgrade;
  readonly height: bigint;
  /** The block time the handler sees (default: zero, the time is not known before the block is proposed). */
  readonly time?: Timestamp;
  /** The plan's info when the chain has no plan scheduled. */
  readonly info: string;
  readonly chainId: string;
  /** The chain's modules with their services registered, and the upgrade keeper with every known upgrade's handler set. */
  readonly modules: ModuleManager;
  readonly upgradeKeeper: UpgradeKeeper;
  readonly logger?: Logger;
}

const ZERO_TIME: Timestamp = { seconds: 0n, nanos: 0 };

/**
 * Runs `upgrade` on `snapshot` as block `height` with no txs would: store upgrades, then every mounted
 * store present, then the handler through the upgrade keeper (version map, protocol version, plan
 * cleared, done), the other pre-, begin- and end-blockers, and the commit's hashing. A failure is in
 * the result (`passed: false`, `error`), as the real block would fail.
 */
export function dryRunUpgrade(o: DryRunOptions): DryRunResult {
  const started = performance.now();
  const time = o.time ?? ZERO_TIME;
  const base = { name: o.upgrade.name, height: o.height, time, fromHeight: o.snapshot.height, fromAppHash: toHex(o.snapshot.appHash) };
  let plan = Plan.fromPartial({ name: o.upgrade.name, height: o.height, info: o.info });
  let fromVM: VersionMap = {};
  const gas = new InfiniteGasMeter();
  const done = (r: { passed: boolean; error?: string; toVM: VersionMap; stores: readonly StoreDiff[]; appHash?: string }): DryRunResult => ({
    ...base,
    plan,
    fromVM,
    gasUsed: gas.consumed(),
    wallMs: performance.now() - started,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    ...r,
  });
  try {
    const view = upgradedView(o.snapshot, o.upgrade.storeUpgrades);
    assertMountedStores(o.modules.storeKeys(), (name) => view.hasStore(name), view.height);
    const committed = view.getStore(UPGRADE_STORE_KEY).get(PLAN_KEY);
    const scheduled = committed === undefined ? undefined : Plan.decode(committed);
    if (scheduled !== undefined && scheduled.name !== o.upgrade.name) {
      throw new Error(`the upgrade to prepare is "${o.upgrade.name}" but the chain's scheduled plan is "${scheduled.name}" at height ${scheduled.height}`);
    }
    if (scheduled !== undefined) plan = scheduled;
    const scratch = new ScratchMultiStore(view);
    const ctx = new Context({
      store: scratch,
      header: { chainId: o.chainId, height: o.height, time, proposerAddress: new Uint8Array(0) },
      mode: 'finalize',
      logger: o.logger ?? nopLogger,
    });
    fromVM = o.upgradeKeeper.getModuleVersionMap(ctx);
    // the upgrade module is the first pre-blocker: it applies the plan (with its own unmetered gas meter)
    for (const m of o.modules.order('preBlock')) {
      if (m.name === UPGRADE_MODULE) o.upgradeKeeper.applyUpgrade(ctx.with({ gasMeter: gas }), plan);
      else m.preBlock?.(ctx);
    }
    const toVM = o.upgradeKeeper.getModuleVersionMap(ctx);
    for (const m of o.modules.order('beginBlock')) m.beginBlock?.(ctx);
    for (const m of o.modules.order('endBlock')) m.endBlock?.(ctx);
    const c = wouldCommit(o.snapshot, o.upgrade.storeUpgrades, scratch);
    return done({ passed: true, toVM, stores: c.stores, appHash: toHex(c.appHash) });
  } catch (e) {
    return done({ passed: false, error: errorMessage(e), toVM: fromVM, stores: [] });
  }
}

/** `from → to` for each module whose version changes, in name order ("new" for a module the upgrade adds). */
export function versionChanges(r: Pick<DryRunResult, 'fromVM' | 'toVM'>): string[] {
  return Object.keys(r.toVM)
    .sort()
    .filter((m) => r.fromVM[m] !== r.toVM[m])
    .map((m) => `${m} ${r.fromVM[m] ?? 'new'} → ${r.toVM[m]}`);
}
