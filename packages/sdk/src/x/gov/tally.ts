// The tally, as x/gov's keeper.Tally (v0.50) with validator power only: every validator's power is
// its own (no delegations), an account that is not a validator may vote but weighs nothing. Exact
// 18-decimal fixed point throughout; the decision follows the SDK's order of checks.
import { VoteOption, type Proposal, type TallyResult, type Vote } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Context } from '../../app/context.ts';
import { errorMessage, errors } from '../../app/errors.ts';
import { fromBech32 } from '../../crypto/index.ts';
import { toHex } from '../../store/index.ts';
import { decFromInt, decMul, decQuo, decTruncate, tryParseDec } from './dec.ts';
import type { GovKeeper } from './keeper.ts';
import type { ParsedParams } from './params.ts';
import { getVotes } from './votes.ts';

export interface TallyOutcome {
  readonly passes: boolean;
  /** Deposits are burned instead of refunded (veto with burn_vote_veto, no quorum with burn_vote_quorum). */
  readonly burnDeposits: boolean;
  /** Integer counts per option (the powers' integer parts), as the SDK's NewTallyResultFromMap. */
  readonly result: TallyResult;
}

export interface TallyInput {
  readonly votes: Iterable<Vote>;
  /** A voter's power; zero for accounts that are not validators. */
  readonly powerOf: (voter: string) => bigint;
  /** The sum of every validator's power. */
  readonly totalPower: bigint;
  readonly params: ParsedParams;
}

export function tally(input: TallyInput): TallyOutcome {
  const { params } = input;
  const results = new Map<VoteOption, bigint>([
    [VoteOption.VOTE_OPTION_YES, 0n],
    [VoteOption.VOTE_OPTION_ABSTAIN, 0n],
    [VoteOption.VOTE_OPTION_NO, 0n],
    [VoteOption.VOTE_OPTION_NO_WITH_VETO, 0n],
  ]);
  let voted = 0n;
  for (const vote of input.votes) {
    const power = input.powerOf(vote.voter);
    if (power <= 0n) continue;
    const p = decFromInt(power);
    for (const o of vote.options) {
      const weight = tryParseDec(o.weight);
      const sum = results.get(o.option);
      if (weight === undefined || sum === undefined) throw errors.logic.wrap(`corrupt vote of ${vote.voter} on proposal ${vote.proposalId}`);
      results.set(o.option, sum + decMul(p, weight));
    }
    voted += p;
  }
  const get = (o: VoteOption): bigint => results.get(o) as bigint;
  const yes = get(VoteOption.VOTE_OPTION_YES);
  const abstain = get(VoteOption.VOTE_OPTION_ABSTAIN);
  const veto = get(VoteOption.VOTE_OPTION_NO_WITH_VETO);
  const result: TallyResult = {
    yesCount: decTruncate(yes).toString(),
    abstainCount: decTruncate(abstain).toString(),
    noCount: decTruncate(get(VoteOption.VOTE_OPTION_NO)).toString(),
    noWithVetoCount: decTruncate(veto).toString(),
  };
  const reject = (burnDeposits: boolean): TallyOutcome => ({ passes: false, burnDeposits, result });
  // no power at all: nothing can pass
  if (input.totalPower <= 0n) return reject(false);
  // turnout below quorum (this includes "nobody voted")
  if (decQuo(voted, decFromInt(input.totalPower)) < params.quorum) return reject(params.burnVoteQuorum);
  // everyone who voted abstained
  if (voted - abstain === 0n) return reject(false);
  if (decQuo(veto, voted) > params.vetoThreshold) return reject(params.burnVoteVeto);
  if (decQuo(yes, voted - abstain) > params.threshold) return { passes: true, burnDeposits: false, result };
  return reject(false);
}

/** The tally of a proposal's current votes against the validators' current power (read-only). */
export function tallyProposal(ctx: Context, k: GovKeeper, proposal: Proposal): TallyOutcome {
  const powers = new Map<string, bigint>();
  let total = 0n;
  for (const [address, power] of k.votingPower(ctx)) {
    let key: string;
    try {
      key = toHex(fromBech32(address).data);
    } catch (e) {
      throw errors.logic.wrap(`voting power of an invalid address "${address}": ${errorMessage(e)}`);
    }
    if (power <= 0n) continue;
    powers.set(key, (powers.get(key) ?? 0n) + power);
    total += power;
  }
  return tally({
    votes: getVotes(ctx, k, proposal.id),
    powerOf: (voter) => powers.get(toHex(fromBech32(voter).data)) ?? 0n,
    totalPower: total,
    params: k.getParsedParams(ctx),
  });
}
