import type { Upgrade } from './types.ts';

export type { Upgrade, UpgradeDeps } from './types.ts';

/** Every upgrade this release can apply, oldest first. A release build includes the upgrades up to its name. */
export const UPGRADES: readonly Upgrade[] = [];
