// validates CHAIND_RELEASE (an unknown name stops the program with a clear error)
import { CHAIND_RELEASE, ReleaseError, upgradeNamesOf, type ReleaseName } from '../release.ts';
import type { Upgrade } from './types.ts';
// one import per upgrade, named as its folder and release (scripts/release.mjs leaves a later release's
// upgrade folders out of an earlier release's bundle by that name)
import { v2 } from './v2/index.ts';

export type { ChainKeepers, ModuleMigration, ModuleUpgrade, Upgrade, UpgradeHistory, UpgradeHook } from './types.ts';

/** Every upgrade of the chain by name; in an earlier release's bundle a later upgrade is undefined. */
const BY_NAME: Readonly<Record<string, Upgrade | undefined>> = { v2 };

/** The upgrades of `release`, oldest first: one per release after the genesis release, up to it (RELEASES). */
export function upgradesOf(release: ReleaseName): readonly Upgrade[] {
  return upgradeNamesOf(release).map((name) => {
    const u = BY_NAME[name];
    if (u === undefined || u.name !== name)
      throw new ReleaseError(`release ${name} has no upgrade: add its folder src/upgrades/${name}/ and import it in src/upgrades/index.ts`);
    return u;
  });
}

/** Every upgrade this release can apply, oldest first: the upgrades up to the release's name. */
export const UPGRADES: readonly Upgrade[] = upgradesOf(CHAIND_RELEASE);
