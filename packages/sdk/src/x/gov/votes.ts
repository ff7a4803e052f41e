// Votes (the SDK's x/gov/keeper/vote.go): one (weighted) vote per voter and proposal, taken only in
// the voting period, replaced by a later one, deleted once the proposal is tallied.
import { Vote, VoteOption, ProposalStatus, voteOptionToJSON, type WeightedVoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { toBech32 } from '../../crypto/index.ts';
import { prefixEnd } from '../../store/index.ts';
import { DEC_ONE, decToString, tryParseDec } from './dec.ts';
import { govErrors } from './errors.ts';
import type { GovKeeper } from './keeper.ts';
import { VOTES_PREFIX, voteKey, votesPrefix } from './keys.ts';
import { assertMetadataLength, getProposal } from './proposals.ts';

const VALID_OPTIONS: ReadonlySet<VoteOption> = new Set([
  VoteOption.VOTE_OPTION_YES,
  VoteOption.VOTE_OPTION_ABSTAIN,
  VoteOption.VOTE_OPTION_NO,
  VoteOption.VOTE_OPTION_NO_WITH_VETO,
]);

/** As gogoproto's String of a WeightedVoteOption, for error texts. */
const optionText = (o: WeightedVoteOption): string => `option:${voteOptionToJSON(o.option)} weight:"${o.weight}"`;

/**
 * Checks weighted vote options (MsgVoteWeighted's rules): at least one, each a real option at most
 * once, each weight a decimal in (0, 1], weights summing to exactly 1. Returns them with weights in
 * LegacyDec's canonical 18-place form.
 */
export function validateVoteOptions(options: readonly WeightedVoteOption[]): WeightedVoteOption[] {
  if (options.length === 0) throw errors.invalidRequest.wrap('vote options must not be empty');
  const used = new Set<VoteOption>();
  let total = 0n;
  const out = options.map((o) => {
    const weight = tryParseDec(o.weight);
    if (!VALID_OPTIONS.has(o.option) || weight === undefined || weight === 0n || weight > DEC_ONE) throw govErrors.invalidVote.wrap(optionText(o));
    if (used.has(o.option)) throw govErrors.invalidVote.wrap('duplicated vote option');
    used.add(o.option);
    total += weight;
    return { option: o.option, weight: decToString(weight) };
  });
  if (total > DEC_ONE) throw govErrors.invalidVote.wrap('total weight overflow 1.00');
  if (total < DEC_ONE) throw govErrors.invalidVote.wrap('total weight lower than 1.00');
  return out;
}

/** Records (or replaces) a vote; only proposals in their voting period take votes. Emits proposal_vote. */
export function addVote(ctx: Context, k: GovKeeper, id: bigint, voter: string, options: readonly WeightedVoteOption[], metadata: string): void {
  const voterBytes = k.addressBytes(voter, 'voter');
  const proposal = getProposal(ctx, k, id);
  if (proposal === undefined || proposal.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) throw govErrors.inactiveProposal.wrap(`${id}`);
  assertMetadataLength(k, metadata);
  const checked = validateVoteOptions(options);
  const canonical = toBech32(k.prefix, voterBytes);
  k.store(ctx).set(voteKey(id, voterBytes), Vote.encode({ proposalId: id, voter: canonical, options: checked, metadata }).finish());
  ctx.events.emit('proposal_vote', [
    ['voter', canonical],
    // the SDK's WeightedVoteOptions.String: JSON with numeric options
    ['option', JSON.stringify(checked.map((o) => ({ option: o.option, weight: o.weight })))],
    ['proposal_id', id.toString()],
  ]);
}

export function getVote(ctx: Context, k: GovKeeper, id: bigint, voter: string): Vote | undefined {
  const v = k.store(ctx).get(voteKey(id, k.addressBytes(voter, 'voter')));
  return v === undefined ? undefined : Vote.decode(v);
}

export function setVote(ctx: Context, k: GovKeeper, v: Vote): void {
  k.store(ctx).set(voteKey(v.proposalId, k.addressBytes(v.voter, 'voter')), Vote.encode(v).finish());
}

/** A proposal's votes in voter-address byte order. */
export function getVotes(ctx: Context, k: GovKeeper, id: bigint): Vote[] {
  const prefix = votesPrefix(id);
  return [...k.store(ctx).iterator(prefix, prefixEnd(prefix))].map((e) => Vote.decode(e.value));
}

export function getAllVotes(ctx: Context, k: GovKeeper): Vote[] {
  return [...k.store(ctx).iterator(VOTES_PREFIX, prefixEnd(VOTES_PREFIX))].map((e) => Vote.decode(e.value));
}

export function deleteVotes(ctx: Context, k: GovKeeper, id: bigint): void {
  const prefix = votesPrefix(id);
  const store = k.store(ctx);
  for (const key of [...store.iterator(prefix, prefixEnd(prefix))].map((e) => e.key)) store.delete(key);
}
