// Which release this build of chaind is. RELEASES is the one list of releases, oldest first: the first is
// the genesis release (no upgrades), each later one adds the upgrade of its name (its folder
// src/upgrades/<name>/), so a release applies the upgrades up to its name. scripts/release.mjs reads this
// list. Release bundles have `process.env.CHAIND_RELEASE` replaced by a literal at build time; from
// source (tsx) the environment variable selects it at run time, the latest by default.
import { ChaindError, errorMessage } from '@chaind/errors';

export const RELEASES = ['v1', 'v2'] as const;
export type ReleaseName = (typeof RELEASES)[number];
/** The newest release: what a build from source is unless CHAIND_RELEASE says otherwise. */
export const LATEST_RELEASE: ReleaseName = RELEASES[RELEASES.length - 1];

/** The names of the upgrades release `release` applies, oldest first: those of the releases after the first, up to it. */
export function upgradeNamesOf(release: ReleaseName): readonly ReleaseName[] {
  return RELEASES.slice(1, RELEASES.indexOf(release) + 1);
}

export class ReleaseError extends ChaindError<'release'> {
  override readonly name = 'ReleaseError';
  constructor(message: string, options?: ErrorOptions) {
    super('release', message, options);
  }
}

/** Validates a release name; undefined or empty means the latest. */
export function releaseName(value: string | undefined): ReleaseName {
  if (value === undefined || value === '') return LATEST_RELEASE;
  if (!(RELEASES as readonly string[]).includes(value)) {
    throw new ReleaseError(`unknown release CHAIND_RELEASE=${JSON.stringify(value)}: expected one of ${RELEASES.join(', ')}`);
  }
  return value as ReleaseName;
}

function releaseOrExit(value: string | undefined): ReleaseName {
  try {
    return releaseName(value);
  } catch (e) {
    // a start-up setting, read before any command runs: one clear line, as every CLI error
    process.stderr.write(`Error: ${errorMessage(e)}\n`);
    process.exit(1);
  }
}

/** The release of this build (checked when the program starts). */
export const CHAIND_RELEASE: ReleaseName = releaseOrExit(process.env.CHAIND_RELEASE);
