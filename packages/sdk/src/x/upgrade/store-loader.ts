import { readUpgradeInfo } from '@chaind/upgrade-plan';
import { readU64be } from '../../store/index.ts';
import { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import { isEmptyStoreUpgrades, upgradeStoreLoader, type CommitMultiStore, type StoreLoader, type StoreUpgrades } from '../../store/index.ts';
import { binaryTooEarlyMessage, UpgradeHaltError } from './errors.ts';
import { doneKey, PLAN_KEY, STORE_KEY } from './keys.ts';

/** What a binary knows about one upgrade it can apply. */
export interface KnownUpgrade {
  readonly name: string;
  readonly storeUpgrades: StoreUpgrades;
}

/**
 * The start-up wiring of docs/architecture.md "The upgrade lifecycle", step 5: when upgrade-info.json names an upgrade
 * this binary knows and its height is not skipped, the store upgrades of that upgrade (and only that
 * one) are applied at that height. Returns undefined when the default loader applies. A malformed
 * file throws (naming it) rather than being ignored.
 */
export function storeLoaderFromUpgradeInfo(
  upgradeInfoPath: string,
  upgrades: readonly KnownUpgrade[],
  skipHeights: ReadonlySet<bigint> = new Set(),
): StoreLoader | undefined {
  const info = readUpgradeInfo(upgradeInfoPath);
  if (info === undefined || skipHeights.has(info.height)) return undefined;
  const known = upgrades.find((u) => u.name === info.name);
  return known === undefined ? undefined : upgradeStoreLoader(info.height, known.storeUpgrades);
}

/** The height at which `name` was applied in the last committed state; undefined when it never was. */
export function readCommittedDoneHeight(ms: CommitMultiStore, name: string): bigint | undefined {
  const snap = ms.snapshot();
  try {
    if (!snap.hasStore(STORE_KEY)) return undefined;
    const b = snap.getStore(STORE_KEY).get(doneKey(name));
    return b === undefined ? undefined : readU64be(b);
  } finally {
    snap.release();
  }
}

/** The plan in the last committed state, read before the app loads its stores (no store loader needed). */
export function readCommittedPlan(ms: CommitMultiStore): Plan | undefined {
  const snap = ms.snapshot();
  try {
    if (!snap.hasStore(STORE_KEY)) return undefined;
    const b = snap.getStore(STORE_KEY).get(PLAN_KEY);
    return b === undefined ? undefined : Plan.decode(b);
  } finally {
    snap.release();
  }
}

/**
 * The store loader for a binary that knows upgrades, decided before loading:
 * - upgrade-info.json names a known, unskipped upgrade not yet applied on this chain → its store
 *   upgrades at that height (a file naming an applied upgrade is history: the file stays after every
 *   upgrade, so from the second upgrade on a later binary always finds the previous one there);
 * - else the committed plan is due at the next block and known → its store upgrades (the operator
 *   swapped binaries right at the height, so the old binary never wrote the file);
 * - else the committed plan is known, not yet due, and changes stores → refuse to start: BINARY UPDATED
 *   BEFORE TRIGGER (loading would otherwise fail on the missing stores with a less helpful error; without
 *   store changes the pre-blocker says the same at the first block);
 * - else the default loader (undefined).
 */
export function chooseStoreLoader(
  ms: CommitMultiStore,
  upgradeInfoPath: string | undefined,
  upgrades: readonly KnownUpgrade[],
  skipHeights: ReadonlySet<bigint> = new Set(),
): StoreLoader | undefined {
  if (upgradeInfoPath !== undefined) {
    const info = readUpgradeInfo(upgradeInfoPath);
    const pending = info !== undefined && readCommittedDoneHeight(ms, info.name) === undefined;
    const fromFile = pending ? storeLoaderFromUpgradeInfo(upgradeInfoPath, upgrades, skipHeights) : undefined;
    if (fromFile !== undefined) return fromFile;
  }
  const plan = readCommittedPlan(ms);
  const known = plan === undefined ? undefined : upgrades.find((u) => u.name === plan.name);
  if (plan === undefined || known === undefined || skipHeights.has(plan.height)) return undefined;
  const next = ms.lastCommitInfo().height + 1n;
  if (plan.height === next) return upgradeStoreLoader(plan.height, known.storeUpgrades);
  if (plan.height > next && !isEmptyStoreUpgrades(known.storeUpgrades)) {
    throw new UpgradeHaltError('binary-too-early', binaryTooEarlyMessage(plan.name));
  }
  return undefined;
}
