// A dry run of an upgrade on a throw-away branch of a read snapshot: the store upgrades as the store
// loader would apply them, then the handler as the pre-blocker would run it at the upgrade height.
// Nothing is written: the snapshot is read-only and the branch is a ScratchMultiStore (it cannot write).
import { Context, nopLogger, type Logger, type ModuleManager, type VersionMap } from '@chaind/sdk/app';
import { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { assertMountedStores, ScratchMultiStore, upgradedView, type ReadMultiStore } from '@chaind/sdk/store';
import { PLAN_KEY, STORE_KEY as UPGRADE_STORE_KEY, type UpgradeKeeper } from '@chaind/sdk/x/upgrade';
import type { Upgrade } from './types.ts';

export interface DryRunResult {
  readonly plan: Plan;
  readonly fromVM: VersionMap;
  readonly toVM: VersionMap;
}

export interface DryRunOptions {
  /** Committed state at height - 1. */
  readonly snapshot: ReadMultiStore;
  readonly upgrade: Upgrade;
  readonly height: bigint;
  /** The plan's info when the chain has no plan scheduled. */
  readonly info: string;
  readonly chainId: string;
  /** The chain's modules with their services registered, and the upgrade keeper with every known upgrade's handler set. */
  readonly modules: ModuleManager;
  readonly upgradeKeeper: UpgradeKeeper;
  readonly logger?: Logger;
}

/**
 * Runs `upgrade` on `snapshot` as block `height` would: store upgrades, then every mounted store
 * present, then the handler through the upgrade keeper (version map, protocol version, plan cleared,
 * done). Throws the first error, as the real block would fail.
 */
export function dryRunUpgrade(o: DryRunOptions): DryRunResult {
  const view = upgradedView(o.snapshot, o.upgrade.storeUpgrades);
  assertMountedStores(o.modules.storeKeys(), (name) => view.hasStore(name), view.height);
  const committed = view.getStore(UPGRADE_STORE_KEY).get(PLAN_KEY);
  const plan = committed === undefined ? undefined : Plan.decode(committed);
  if (plan !== undefined && plan.name !== o.upgrade.name) {
    throw new Error(`the upgrade to prepare is "${o.upgrade.name}" but the chain's scheduled plan is "${plan.name}" at height ${plan.height}`);
  }
  const ctx = new Context({
    store: new ScratchMultiStore(view),
    // the block's time and proposer are not known before it is proposed
    header: { chainId: o.chainId, height: o.height, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) },
    mode: 'finalize',
    logger: o.logger ?? nopLogger,
  });
  const used = plan ?? Plan.fromPartial({ name: o.upgrade.name, height: o.height, info: o.info });
  const fromVM = o.upgradeKeeper.getModuleVersionMap(ctx);
  o.upgradeKeeper.applyUpgrade(ctx, used);
  return { plan: used, fromVM, toVM: o.upgradeKeeper.getModuleVersionMap(ctx) };
}
