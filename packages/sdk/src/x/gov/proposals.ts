// Proposals (the SDK's x/gov/keeper/proposal.go): stored by id, queued by end time while in their
// deposit or voting period; submitted with their messages checked against the router.
import { Buffer } from 'node:buffer';
import { Proposal, ProposalStatus, type TallyResult } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import { errorMessage, errors } from '../../app/errors.ts';
import { toBech32 } from '../../crypto/index.ts';
import { prefixEnd, readU64be, u64be } from '../../store/index.ts';
import { govErrors } from './errors.ts';
import type { GovKeeper } from './keeper.ts';
import { ACTIVE_QUEUE_PREFIX, INACTIVE_QUEUE_PREFIX, PROPOSAL_ID_KEY, PROPOSALS_PREFIX, proposalKey, queueKey } from './keys.ts';
import type { ParsedParams } from './params.ts';
import { TimeError, addDuration, type Timestamp } from './time.ts';

export interface SubmitProposalInput {
  readonly messages: readonly Any[];
  readonly metadata: string;
  readonly title: string;
  readonly summary: string;
  readonly proposer: string;
}

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The tally of a proposal before its voting period: all zero. */
export function emptyTallyResult(): TallyResult {
  return { yesCount: '0', abstainCount: '0', noCount: '0', noWithVetoCount: '0' };
}

/** The id the next proposal gets (1 on a fresh chain). */
export function getNextProposalId(ctx: Context, k: GovKeeper): bigint {
  const v = k.store(ctx).get(PROPOSAL_ID_KEY);
  return v === undefined ? 1n : readU64be(v);
}

export function setNextProposalId(ctx: Context, k: GovKeeper, id: bigint): void {
  if (id < 1n) throw errors.invalidRequest.wrap('the next proposal id must be at least 1');
  k.store(ctx).set(PROPOSAL_ID_KEY, u64be(id));
}

export function getProposal(ctx: Context, k: GovKeeper, id: bigint): Proposal | undefined {
  if (id < 1n || id > 0xffffffffffffffffn) return undefined;
  const v = k.store(ctx).get(proposalKey(id));
  return v === undefined ? undefined : Proposal.decode(v);
}

export function setProposal(ctx: Context, k: GovKeeper, p: Proposal): void {
  k.store(ctx).set(proposalKey(p.id), Proposal.encode(p).finish());
}

/** Removes a proposal and its queue entries (not its deposits or votes). */
export function deleteProposal(ctx: Context, k: GovKeeper, id: bigint): void {
  const p = getProposal(ctx, k, id);
  if (p === undefined) return;
  const store = k.store(ctx);
  if (p.depositEndTime !== undefined) store.delete(queueKey(INACTIVE_QUEUE_PREFIX, p.depositEndTime, id));
  if (p.votingEndTime !== undefined) store.delete(queueKey(ACTIVE_QUEUE_PREFIX, p.votingEndTime, id));
  store.delete(proposalKey(id));
}

/** Every proposal in id order; `cb` returns true to stop. */
export function iterateProposals(ctx: Context, k: GovKeeper, cb: (p: Proposal) => boolean | void): void {
  for (const e of k.store(ctx).iterator(PROPOSALS_PREFIX, prefixEnd(PROPOSALS_PREFIX))) {
    if (cb(Proposal.decode(e.value)) === true) return;
  }
}

/** Puts a proposal in the queue its status calls for (genesis import). */
export function enqueueProposal(ctx: Context, k: GovKeeper, p: Proposal): void {
  if (p.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && p.depositEndTime !== undefined) {
    k.store(ctx).set(queueKey(INACTIVE_QUEUE_PREFIX, p.depositEndTime, p.id), u64be(p.id));
  }
  if (p.status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD && p.votingEndTime !== undefined) {
    k.store(ctx).set(queueKey(ACTIVE_QUEUE_PREFIX, p.votingEndTime, p.id), u64be(p.id));
  }
}

/** Title, summary and metadata within the configured limits (SDK texts). */
export function validateProposalLengths(k: GovKeeper, metadata: string, title: string, summary: string): void {
  assertMetadataLength(k, metadata);
  if (byteLength(title) > k.config.maxTitleLen) throw govErrors.titleTooLong.wrap(`got title with length ${byteLength(title)}`);
  if (byteLength(summary) > k.config.maxSummaryLen) throw govErrors.summaryTooLong.wrap(`got summary with length ${byteLength(summary)}`);
}

/** Proposal and vote metadata within the configured limit. */
export function assertMetadataLength(k: GovKeeper, metadata: string): void {
  if (byteLength(metadata) > k.config.maxMetadataLen) throw govErrors.metadataTooLong.wrap(`got metadata with length ${byteLength(metadata)}`);
}

/**
 * Each proposal message must be a registered type that decodes, pass its route's validateBasic,
 * and have the gov module account as its only signer (so its handler sees gov as the authority).
 */
export function validateProposalMessages(k: GovKeeper, messages: readonly Any[]): void {
  const router = k.msgRouter;
  messages.forEach((any, i) => {
    if (!router.has(any.typeUrl)) throw govErrors.unroutableProposalMsg.wrap(any.typeUrl);
    const { route, msg } = (() => {
      try {
        return router.decode(any);
      } catch (e) {
        throw govErrors.invalidProposalMsg.wrap(errorMessage(e));
      }
    })();
    try {
      route.validateBasic?.(msg);
    } catch (e) {
      throw govErrors.invalidProposalMsg.wrap(errorMessage(e));
    }
    const signers = route.signers?.(msg) ?? [];
    if (signers.length !== 1) throw govErrors.invalidSigner.wrap(`message ${i} (${any.typeUrl}) has ${signers.length} signers`);
    if (!k.isAuthority(signers[0])) throw govErrors.invalidSigner.wrap(signers[0]);
  });
}

/**
 * Stores a new proposal in its deposit period (keeper.SubmitProposal); the caller adds the initial
 * deposit. Emits submit_proposal.
 */
export function submitProposal(ctx: Context, k: GovKeeper, input: SubmitProposalInput): Proposal {
  validateProposalLengths(k, input.metadata, input.title, input.summary);
  k.addressBytes(input.proposer, 'proposer');
  validateProposalMessages(k, input.messages);
  const params = k.getParsedParams(ctx);
  const id = getNextProposalId(ctx, k);
  const submitTime = ctx.header.time;
  const depositEndTime = endTime(submitTime, params.maxDepositPeriod);
  const proposal: Proposal = {
    id,
    messages: input.messages.map((m) => ({ typeUrl: m.typeUrl, value: m.value })),
    status: ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD,
    finalTallyResult: emptyTallyResult(),
    submitTime,
    depositEndTime,
    totalDeposit: [],
    votingStartTime: undefined,
    votingEndTime: undefined,
    metadata: input.metadata,
    title: input.title,
    summary: input.summary,
    proposer: toBech32(k.prefix, k.addressBytes(input.proposer, 'proposer')),
    expedited: false,
    failedReason: '',
  };
  setNextProposalId(ctx, k, id + 1n);
  setProposal(ctx, k, proposal);
  enqueueProposal(ctx, k, proposal);
  ctx.events.emit('submit_proposal', [
    ['proposal_id', id.toString()],
    ['proposal_proposer', proposal.proposer],
    // the SDK's format: every type URL preceded by a comma
    ['proposal_messages', input.messages.map((m) => `,${m.typeUrl}`).join('')],
  ]);
  return proposal;
}

function endTime(start: Timestamp, period: ParsedParams['votingPeriod']): Timestamp {
  try {
    return addDuration(start, period);
  } catch (e) {
    if (e instanceof TimeError) throw errors.invalidRequest.wrap(e.message);
    throw e;
  }
}

/** Starts the voting period at the block time (keeper.ActivateVotingPeriod). */
export function activateVotingPeriod(ctx: Context, k: GovKeeper, proposal: Proposal): Proposal {
  const params = k.getParsedParams(ctx);
  const start = ctx.header.time;
  const p: Proposal = {
    ...proposal,
    status: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
    votingStartTime: start,
    votingEndTime: endTime(start, params.votingPeriod),
  };
  if (proposal.depositEndTime !== undefined) k.store(ctx).delete(queueKey(INACTIVE_QUEUE_PREFIX, proposal.depositEndTime, p.id));
  setProposal(ctx, k, p);
  enqueueProposal(ctx, k, p);
  return p;
}
