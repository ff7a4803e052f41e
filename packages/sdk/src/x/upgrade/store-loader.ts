import { upgradeStoreLoader, type StoreLoader, type StoreUpgrades } from '../../store/index.ts';
import { readUpgradeInfo } from './upgrade-info.ts';

/** What a binary knows about one upgrade it can apply. */
export interface KnownUpgrade {
  readonly name: string;
  readonly storeUpgrades: StoreUpgrades;
}

/**
 * The start-up wiring of ARCHITECTURE.md's lifecycle step 5: when upgrade-info.json names an upgrade
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
