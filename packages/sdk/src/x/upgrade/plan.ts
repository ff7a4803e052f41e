import { folderNameProblem } from '@chaind/upgrade-plan';
import { errors } from '../../app/index.ts';
import type { Plan } from '../../gen/chain/upgrade/v1beta1/upgrade.ts';
import type { Timestamp } from '../../gen/google/protobuf/timestamp.ts';

export type { Plan };

/**
 * Go's zero time.Time (0001-01-01T00:00:00Z) as a Timestamp: the SDK's `time` is a non-nullable
 * stdtime, so Go tooling always writes this for an unset time, and the keeper stores it.
 */
export const GO_ZERO_TIME: Timestamp = { seconds: -62_135_596_800n, nanos: 0 };

/** The SDK's `!p.Time.IsZero()`: absent (decoded by Go as the zero time) and Go's zero time are unset; the epoch is a time. */
function timeIsSet(p: Plan): boolean {
  return p.time !== undefined && (p.time.seconds !== GO_ZERO_TIME.seconds || p.time.nanos !== GO_ZERO_TIME.nanos);
}

/** Plan.ValidateBasic, in the Cosmos SDK's order and wording: the first failure wins. */
export function validatePlanBasic(p: Plan): void {
  if (timeIsSet(p)) throw errors.invalidRequest.wrap('time-based upgrades have been deprecated in the SDK');
  if (p.upgradedClientState !== undefined) throw errors.invalidRequest.wrap('upgrade logic for IBC has been moved to the IBC module');
  if (p.name.length === 0) throw errors.invalidRequest.wrap('name cannot be empty');
  if (p.height <= 0n) throw errors.invalidRequest.wrap('height must be greater than 0');
}

/**
 * The name becomes a folder under chainvisor's upgrades/ directory, so it must be a safe single path
 * segment. Checked at proposal submission so a bad plan never reaches a vote.
 */
export function validatePlanName(name: string): void {
  const reason = folderNameProblem(name);
  if (reason !== undefined) throw errors.invalidRequest.wrap(`plan name ${JSON.stringify(name)} ${reason}`);
}
