// validates CHAIND_RELEASE (an unknown name stops the program with a clear error)
import '../release.ts';
import type { Upgrade } from './types.ts';
import { v2 } from './v2/index.ts';

export type { ChainKeepers, ModuleMigration, ModuleUpgrade, Upgrade, UpgradeHook } from './types.ts';

/**
 * Every upgrade this release can apply, oldest first: the upgrades up to the release's name. The test
 * is on `process.env.CHAIND_RELEASE` itself so that in a release bundle, where it is a literal, esbuild
 * folds it and the v1 bundle contains no code of v2.
 */
export const UPGRADES: readonly Upgrade[] = process.env.CHAIND_RELEASE === 'v1' ? [] : [v2];
