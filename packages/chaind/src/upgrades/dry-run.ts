// A dry run of an upgrade on a throw-away branch of a read snapshot: the store upgrades as the store
// loader would apply them, then the handler as the pre-blocker would run it at the upgrade height.
// Nothing is written: the snapshot is read-only and the branch is a ScratchMultiStore (it cannot write).
import { Context, nopLogger, type Logger, type VersionMap } from '@chaind/sdk/app';
import { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { ScratchMultiStore, StoreError, type Entry, type ReadKVStore, type ReadMultiStore, type StoreUpgrades } from '@chaind/sdk/store';
import { PLAN_KEY, STORE_KEY as UPGRADE_STORE_KEY } from '@chaind/sdk/x/upgrade';
import { chainModules } from '../app.ts';
import type { Upgrade } from './types.ts';

const EMPTY: ReadKVStore = {
  get: () => undefined,
  has: () => false,
  iterator: (): IterableIterator<Entry> => [][Symbol.iterator](),
  reverseIterator: (): IterableIterator<Entry> => [][Symbol.iterator](),
};

/**
 * `view` as the next block would see it after `u`: renamed stores under their new names, deleted ones
 * gone, added ones empty. The same rules and errors as the store loader's (renames, deletes, adds).
 */
export function upgradedView(view: ReadMultiStore, u: StoreUpgrades): ReadMultiStore {
  // name in the upgraded layout → name in `view` (undefined: a new, empty store)
  const names = new Map<string, string | undefined>(view.storeNames().map((n) => [n, n]));
  for (const { oldKey, newKey } of u.renamed ?? []) {
    if (!names.has(oldKey)) throw new StoreError(`cannot rename store "${oldKey}" to "${newKey}": store "${oldKey}" does not exist`);
    if (names.has(newKey)) throw new StoreError(`cannot rename store "${oldKey}" to "${newKey}": store "${newKey}" already exists`);
    names.set(newKey, names.get(oldKey));
    names.delete(oldKey);
  }
  for (const n of u.deleted ?? []) {
    if (!names.delete(n)) throw new StoreError(`cannot delete store "${n}": it does not exist`);
  }
  for (const n of u.added ?? []) {
    if (names.has(n)) throw new StoreError(`cannot add store "${n}": it already exists`);
    names.set(n, undefined);
  }
  return {
    height: view.height,
    appHash: view.appHash,
    hasStore: (n) => names.has(n),
    storeNames: () => [...names.keys()].sort(),
    getStore(n: string): ReadKVStore {
      if (!names.has(n)) throw new StoreError(`store "${n}" does not exist`);
      const from = names.get(n);
      return from === undefined ? EMPTY : view.getStore(from);
    },
  };
}

export interface DryRunResult {
  readonly plan: Plan;
  readonly fromVM: VersionMap;
  readonly toVM: VersionMap;
}

/**
 * Runs `upgrade` on `snapshot` (committed state at height - 1) as block `height` would: store upgrades,
 * then every mounted store present, then the handler through the upgrade keeper (version map, protocol
 * version, plan cleared, done). Throws the first error, as the real block would fail.
 */
export function dryRunUpgrade(o: {
  readonly snapshot: ReadMultiStore;
  readonly upgrade: Upgrade;
  readonly upgrades: readonly Upgrade[];
  readonly height: bigint;
  readonly info: string;
  readonly chainId: string;
  readonly logger?: Logger;
}): DryRunResult {
  const view = upgradedView(o.snapshot, o.upgrade.storeUpgrades);
  const { modules, upgrade } = chainModules({ upgrades: o.upgrades, logger: o.logger ?? nopLogger });
  modules.registerServices();
  for (const u of o.upgrades) upgrade.keeper.setUpgradeHandler(u.name, u.handler({ modules }));
  for (const name of modules.storeKeys()) {
    if (!view.hasStore(name)) {
      throw new StoreError(
        `store "${name}" is mounted by the application but does not exist in the committed state at height ${view.height}: ` +
          `add it to StoreUpgrades.added of the upgrade that introduces it`,
      );
    }
  }
  const committed = view.getStore(UPGRADE_STORE_KEY).get(PLAN_KEY);
  const plan = committed === undefined ? undefined : Plan.decode(committed);
  if (plan !== undefined && plan.name !== o.upgrade.name) {
    throw new Error(`upgrade-info.json names upgrade "${o.upgrade.name}" but the chain's scheduled plan is "${plan.name}" at height ${plan.height}`);
  }
  const ctx = new Context({
    store: new ScratchMultiStore(view),
    // the block's time and proposer are not known before it is proposed
    header: { chainId: o.chainId, height: o.height, time: { seconds: 0n, nanos: 0 }, proposerAddress: new Uint8Array(0) },
    mode: 'finalize',
    logger: o.logger ?? nopLogger,
  });
  const used = plan ?? Plan.fromPartial({ name: o.upgrade.name, height: o.height, info: o.info });
  const fromVM = upgrade.keeper.getModuleVersionMap(ctx);
  upgrade.keeper.applyUpgrade(ctx, used);
  return { plan: used, fromVM, toVM: upgrade.keeper.getModuleVersionMap(ctx) };
}
