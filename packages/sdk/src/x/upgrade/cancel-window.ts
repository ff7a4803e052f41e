/**
 * Spec §3 rule 2: to stay cancellable, an upgrade must be at least
 * 2 × (VotingPeriod + DepositPeriod) + SafetyDelta after the proposal starts. Durations in
 * milliseconds (bigint), converted to blocks with the chain's block interval, rounding up.
 */
export interface CancelWindowParams {
  /** Height at which the upgrade proposal starts (is submitted). */
  readonly proposalStartHeight: bigint;
  readonly votingPeriodMs: bigint;
  readonly depositPeriodMs: bigint;
  /** Time between the proposal passing and realising it was a bad idea. */
  readonly safetyDeltaMs: bigint;
  readonly blockIntervalMs: bigint;
}

export function minCancellableUpgradeHeight(p: CancelWindowParams): bigint {
  if (p.blockIntervalMs <= 0n) throw new RangeError('block interval must be positive');
  for (const [k, v] of [
    ['voting period', p.votingPeriodMs],
    ['deposit period', p.depositPeriodMs],
    ['safety delta', p.safetyDeltaMs],
  ] as const) {
    if (v < 0n) throw new RangeError(`${k} must not be negative`);
  }
  const ms = 2n * (p.votingPeriodMs + p.depositPeriodMs) + p.safetyDeltaMs;
  return p.proposalStartHeight + (ms + p.blockIntervalMs - 1n) / p.blockIntervalMs;
}
