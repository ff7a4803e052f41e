// What this build of chaind calls itself. Kept light (release.ts only): `chaind version`, `--version`
// and every module that reports the version import it, and `version` must start fast.
import { CHAIND_RELEASE } from './release.ts';

/**
 * The version chaind reports (`chaind version`, `--version`, ABCI Info, the dashboard), as a Cosmos binary
 * reports its release tag: the release name (v1, v2, …), the one thing that tells two releases apart.
 */
export const CHAIND_VERSION: string = CHAIND_RELEASE;

/** packages/chaind/package.json's version: the same for every release of this tree (`chaind version --long`). */
export const CHAIND_PACKAGE_VERSION = '0.1.0';
