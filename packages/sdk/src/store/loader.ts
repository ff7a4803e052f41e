import type { CommitMultiStore } from './multistore.ts';
import { isEmptyStoreUpgrades, type StoreUpgrades } from './upgrades.ts';

/** Loads the multistore at start-up; the app installs one with `setStoreLoader`. */
export type StoreLoader = (ms: CommitMultiStore) => void;

export const defaultStoreLoader: StoreLoader = (ms) => ms.loadLatest();

/**
 * The spec's UpgradeStoreLoader: applies `storeUpgrades` only when the next block is `upgradeHeight`
 * (so exactly once: after the upgrade block commits the condition never holds again); otherwise loads normally.
 */
export function upgradeStoreLoader(upgradeHeight: bigint, storeUpgrades: StoreUpgrades): StoreLoader {
  return (ms) => {
    if (upgradeHeight === ms.lastCommitInfo().height + 1n && !isEmptyStoreUpgrades(storeUpgrades)) {
      ms.loadLatestWithUpgrades(storeUpgrades);
    } else {
      ms.loadLatest();
    }
  };
}
