// cosmos.gov.v1.Msg: SubmitProposal, Deposit, Vote, VoteWeighted and UpdateParams, with the checks
// of the SDK v0.50 msg server. Stateless checks are each route's validateBasic, so CheckTx refuses a
// bad proposal before it costs a fee; the handlers add the checks that need state.
import {
  MsgDeposit,
  MsgDepositResponse,
  MsgSubmitProposal,
  MsgSubmitProposalResponse,
  MsgUpdateParams,
  MsgUpdateParamsResponse,
  MsgVote,
  MsgVoteResponse,
  MsgVoteWeighted,
  MsgVoteWeightedResponse,
} from 'cosmjs-types/cosmos/gov/v1/tx';
import { Proposal, voteOptionToJSON, VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import type { MsgRoute, MsgRouter } from '../../app/router.ts';
import { fromProtoCoins, type Coin } from '../../types/coins.ts';
import { msgDepositAmino, msgSubmitProposalAmino, msgVoteAmino, msgVoteWeightedAmino } from './amino.ts';
import { DEC_ONE, decToString } from './dec.ts';
import { govErrors } from './errors.ts';
import { addDeposit, validateDepositDenom, validateInitialDeposit } from './deposits.ts';
import type { GovKeeper } from './keeper.ts';
import { parseParams } from './params.ts';
import { assertMetadataLength, submitProposal, validateProposalLengths, validateProposalMessages } from './proposals.ts';
import { addVote, validateVoteOptions } from './votes.ts';
import { errorMessage } from '@chaind/errors';

export const MSG_SUBMIT_PROPOSAL_TYPE_URL = '/cosmos.gov.v1.MsgSubmitProposal';
export const MSG_DEPOSIT_TYPE_URL = '/cosmos.gov.v1.MsgDeposit';
export const MSG_VOTE_TYPE_URL = '/cosmos.gov.v1.MsgVote';
export const MSG_VOTE_WEIGHTED_TYPE_URL = '/cosmos.gov.v1.MsgVoteWeighted';
export const MSG_UPDATE_PARAMS_TYPE_URL = '/cosmos.gov.v1.MsgUpdateParams';

const rawCoins = (coins: readonly ProtoCoin[]): string => coins.map((c) => `${c.amount}${c.denom}`).join(',');

/** Protobuf coins as a coin set; anything else is `errors.invalidCoins` quoting them, as the SDK. */
function coinsArg(coins: readonly ProtoCoin[], nonEmpty: boolean): Coin[] {
  let parsed: Coin[];
  try {
    parsed = fromProtoCoins(coins);
  } catch {
    throw errors.invalidCoins.wrap(rawCoins(coins));
  }
  if (nonEmpty && parsed.length === 0) throw errors.invalidCoins.wrap('deposit amount must not be empty');
  return parsed;
}

const METADATA_FIELDS = ['title', 'authors', 'summary', 'details', 'proposal_forum_url', 'vote_option_context'];

/**
 * Title and summary of proposal metadata as Go's json.Unmarshal into the SDK's ProposalMetadata
 * reads them (exact field name first, then case-insensitive); undefined where Go would fail, since
 * metadata that is not in the recommended format is allowed.
 */
function metadataTexts(metadata: string): { title: string; summary: string } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (v === null) return { title: '', summary: '' };
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  let title = '';
  let summary = '';
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    const field = METADATA_FIELDS.find((f) => f === k) ?? METADATA_FIELDS.find((f) => f.toLowerCase() === k.toLowerCase());
    if (field === undefined || val === null) continue;
    if (field === 'authors') {
      if (!Array.isArray(val) || val.some((a) => typeof a !== 'string' && a !== null)) return undefined;
      continue;
    }
    if (typeof val !== 'string') return undefined;
    if (field === 'title') title = val;
    if (field === 'summary') summary = val;
  }
  return { title, summary };
}

/** MsgSubmitProposal's stateless checks, in the SDK's order; `expedited` is refused (not supported). */
export function validateMsgSubmitProposal(k: GovKeeper, msg: MsgSubmitProposal): void {
  if (msg.title === '') throw govErrors.invalidProposalContent.wrap('proposal title cannot be empty');
  if (msg.summary === '') throw govErrors.invalidProposalContent.wrap('proposal summary cannot be empty');
  k.addressBytes(msg.proposer, 'proposer');
  if (msg.expedited) throw errors.notSupported.wrap('expedited proposals are not supported');
  if (msg.messages.length === 0 && msg.metadata.length === 0) throw govErrors.noProposalMsgs.wrap('either metadata or Msgs length must be non-nil');
  if (msg.metadata.length > 0) {
    const m = metadataTexts(msg.metadata);
    if (m !== undefined && m.title !== msg.title)
      throw govErrors.invalidProposalContent.wrap(`metadata title '${m.title}' must equal proposal title '${msg.title}'`);
    if (m !== undefined && m.summary !== msg.summary)
      throw govErrors.invalidProposalContent.wrap(`metadata summary '${m.summary}' must equal proposal summary '${msg.summary}'`);
  }
  coinsArg(msg.initialDeposit, false);
  validateProposalLengths(k, msg.metadata, msg.title, msg.summary);
  validateProposalMessages(k, msg.messages);
}

export function submitProposalRoute(k: GovKeeper): MsgRoute<MsgSubmitProposal, MsgSubmitProposalResponse> {
  return {
    typeUrl: MSG_SUBMIT_PROPOSAL_TYPE_URL,
    codec: MsgSubmitProposal,
    responseTypeUrl: '/cosmos.gov.v1.MsgSubmitProposalResponse',
    responseCodec: MsgSubmitProposalResponse,
    validateBasic: (msg) => validateMsgSubmitProposal(k, msg),
    signers: (msg) => [msg.proposer],
    anys: (msg) => msg.messages,
    amino: msgSubmitProposalAmino,
    handler(ctx: Context, msg: MsgSubmitProposal): MsgSubmitProposalResponse {
      const deposit = coinsArg(msg.initialDeposit, false);
      const params = k.getParsedParams(ctx);
      validateInitialDeposit(params, deposit);
      validateDepositDenom(params, deposit);
      const proposal = submitProposal(ctx, k, msg);
      // storing a proposal costs more than its bytes' write (cosmos-sdk#9683)
      const size = BigInt(Proposal.encode(proposal).finish().length);
      ctx.gasMeter.consume(3n * ctx.kvGasConfig.writeCostPerByte * size, 'submit proposal');
      if (addDeposit(ctx, k, proposal.id, msg.proposer, deposit, true)) {
        ctx.events.emit('submit_proposal', [['voting_period_start', proposal.id.toString()]]);
      }
      return { proposalId: proposal.id };
    },
  };
}

export function depositRoute(k: GovKeeper): MsgRoute<MsgDeposit, MsgDepositResponse> {
  return {
    typeUrl: MSG_DEPOSIT_TYPE_URL,
    codec: MsgDeposit,
    responseTypeUrl: '/cosmos.gov.v1.MsgDepositResponse',
    responseCodec: MsgDepositResponse,
    validateBasic(msg) {
      k.addressBytes(msg.depositor, 'depositor');
      coinsArg(msg.amount, true);
    },
    signers: (msg) => [msg.depositor],
    amino: msgDepositAmino,
    handler(ctx: Context, msg: MsgDeposit): MsgDepositResponse {
      if (addDeposit(ctx, k, msg.proposalId, msg.depositor, coinsArg(msg.amount, true))) {
        ctx.events.emit('proposal_deposit', [['voting_period_start', msg.proposalId.toString()]]);
      }
      return {};
    },
  };
}

const ONE = decToString(DEC_ONE);

export function voteRoute(k: GovKeeper): MsgRoute<MsgVote, MsgVoteResponse> {
  return {
    typeUrl: MSG_VOTE_TYPE_URL,
    codec: MsgVote,
    responseTypeUrl: '/cosmos.gov.v1.MsgVoteResponse',
    responseCodec: MsgVoteResponse,
    validateBasic(msg) {
      k.addressBytes(msg.voter, 'voter');
      if (msg.option < VoteOption.VOTE_OPTION_YES || msg.option > VoteOption.VOTE_OPTION_NO_WITH_VETO)
        throw govErrors.invalidVote.wrap(voteOptionToJSON(msg.option));
      assertMetadataLength(k, msg.metadata);
    },
    signers: (msg) => [msg.voter],
    amino: msgVoteAmino,
    handler(ctx: Context, msg: MsgVote): MsgVoteResponse {
      addVote(ctx, k, msg.proposalId, msg.voter, [{ option: msg.option, weight: ONE }], msg.metadata);
      return {};
    },
  };
}

export function voteWeightedRoute(k: GovKeeper): MsgRoute<MsgVoteWeighted, MsgVoteWeightedResponse> {
  return {
    typeUrl: MSG_VOTE_WEIGHTED_TYPE_URL,
    codec: MsgVoteWeighted,
    responseTypeUrl: '/cosmos.gov.v1.MsgVoteWeightedResponse',
    responseCodec: MsgVoteWeightedResponse,
    validateBasic(msg) {
      k.addressBytes(msg.voter, 'voter');
      validateVoteOptions(msg.options);
      assertMetadataLength(k, msg.metadata);
    },
    signers: (msg) => [msg.voter],
    amino: msgVoteWeightedAmino,
    handler(ctx: Context, msg: MsgVoteWeighted): MsgVoteWeightedResponse {
      addVote(ctx, k, msg.proposalId, msg.voter, msg.options, msg.metadata);
      return {};
    },
  };
}

/** Gov's own params, changed by a gov proposal: the authority must be the gov module account. */
export function updateParamsRoute(k: GovKeeper): MsgRoute<MsgUpdateParams, MsgUpdateParamsResponse> {
  return {
    typeUrl: MSG_UPDATE_PARAMS_TYPE_URL,
    codec: MsgUpdateParams,
    responseTypeUrl: '/cosmos.gov.v1.MsgUpdateParamsResponse',
    responseCodec: MsgUpdateParamsResponse,
    validateBasic(msg) {
      k.addressBytes(msg.authority, 'authority');
      try {
        parseParams(msg.params, k.prefix);
      } catch (e) {
        throw errors.invalidRequest.wrap(`invalid params: ${errorMessage(e)}`);
      }
    },
    signers: (msg) => [msg.authority],
    handler(ctx: Context, msg: MsgUpdateParams): MsgUpdateParamsResponse {
      if (msg.authority !== k.authority) throw govErrors.invalidSigner.wrap(`invalid authority; expected ${k.authority}, got ${msg.authority}`);
      k.setParams(ctx, msg.params);
      return {};
    },
  };
}

export function registerGovMsgServer(router: MsgRouter, k: GovKeeper): void {
  router.register(submitProposalRoute(k));
  router.register(depositRoute(k));
  router.register(voteRoute(k));
  router.register(voteWeightedRoute(k));
  router.register(updateParamsRoute(k));
}
