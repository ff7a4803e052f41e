// Gov genesis as the Cosmos SDK v0.50's JSON (cosmos.gov.v1.GenesisState, proto field names).
// Proposal messages are protobuf JSON Anys ({"@type", ...fields}) converted with the codecs of the
// message router; a type without a JSON codec travels as {"@type", "value": base64}.
import { ChaindError } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import type { Coin as ProtoCoin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import {
  ProposalStatus,
  VoteOption,
  proposalStatusFromJSON,
  proposalStatusToJSON,
  voteOptionFromJSON,
  voteOptionToJSON,
  type Deposit,
  type Proposal,
  type TallyResult,
  type Vote,
} from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import { errorMessage } from '../../app/errors.ts';
import type { MsgRouter } from '../../app/router.ts';
import { jsonFields } from '../../genesis/json.ts';
import { toHex } from '../../store/index.ts';
import { addCoins, coinsEqual, coinsToString, fromProtoCoins, type Coin } from '../../types/coins.ts';
import { getAllDeposits, setDeposit } from './deposits.ts';
import type { GovKeeper } from './keeper.ts';
import { MODULE_NAME } from './keys.ts';
import { defaultParams, parseParams, type Params } from './params.ts';
import { enqueueProposal, getNextProposalId, iterateProposals, setNextProposalId, setProposal } from './proposals.ts';
import { durationFromJSON, durationToJSON, timestampFromJSON, timestampToJSON, type Duration, type Timestamp } from './time.ts';
import { getAllVotes, setVote, validateVoteOptions } from './votes.ts';

export interface CoinJSON {
  denom: string;
  amount: string;
}

export interface GovParamsJSON {
  min_deposit: CoinJSON[];
  max_deposit_period: string;
  voting_period: string;
  quorum: string;
  threshold: string;
  veto_threshold: string;
  min_initial_deposit_ratio: string;
  proposal_cancel_ratio: string;
  proposal_cancel_dest: string;
  expedited_voting_period: string;
  expedited_threshold: string;
  expedited_min_deposit: CoinJSON[];
  burn_vote_quorum: boolean;
  burn_proposal_deposit_prevote: boolean;
  burn_vote_veto: boolean;
  min_deposit_ratio: string;
}

export interface TallyResultJSON {
  yes_count: string;
  abstain_count: string;
  no_count: string;
  no_with_veto_count: string;
}

export type AnyJSON = { '@type': string } & Record<string, unknown>;

export interface ProposalJSON {
  id: string;
  messages: AnyJSON[];
  status: string;
  final_tally_result: TallyResultJSON | null;
  submit_time: string | null;
  deposit_end_time: string | null;
  total_deposit: CoinJSON[];
  voting_start_time: string | null;
  voting_end_time: string | null;
  metadata: string;
  title: string;
  summary: string;
  proposer: string;
  expedited: boolean;
  failed_reason: string;
}

export interface DepositJSON {
  proposal_id: string;
  depositor: string;
  amount: CoinJSON[];
}

export interface VoteJSON {
  proposal_id: string;
  voter: string;
  options: { option: string; weight: string }[];
  metadata: string;
}

export interface GovGenesisJSON {
  starting_proposal_id: string;
  deposits: DepositJSON[];
  votes: VoteJSON[];
  proposals: ProposalJSON[];
  deposit_params: null;
  voting_params: null;
  tally_params: null;
  params: GovParamsJSON;
  constitution: string;
}

/** A validated genesis, in state form. */
export interface GovGenesis {
  readonly startingProposalId: bigint;
  readonly params: Params;
  readonly constitution: string;
  readonly proposals: readonly Proposal[];
  readonly deposits: readonly Deposit[];
  readonly votes: readonly Vote[];
}

export class GovGenesisError extends ChaindError<'genesis'> {
  override readonly name = 'GovGenesisError';
  constructor(detail: string) {
    super('genesis', `gov genesis: ${detail}`);
  }
}

type Obj = Record<string, unknown>;
const { object, array, string, boolean } = jsonFields({ fail: (detail) => new GovGenesisError(detail), nullIsAbsent: true });

function u64(v: unknown, where: string): bigint {
  if (typeof v !== 'string' || !/^[0-9]{1,20}$/.test(v) || BigInt(v) > 0xffffffffffffffffn)
    throw new GovGenesisError(`${where} must be a uint64 as a decimal string`);
  return BigInt(v);
}

function protoCoins(v: unknown, where: string): ProtoCoin[] {
  return array(v, where).map((c, i) => {
    const o = object(c, `${where}[${i}]`, ['denom', 'amount']);
    return { denom: string(o.denom, `${where}[${i}].denom`), amount: string(o.amount, `${where}[${i}].amount`) };
  });
}

function validCoins(v: unknown, where: string): Coin[] {
  const list = protoCoins(v, where);
  try {
    return fromProtoCoins(list);
  } catch (e) {
    throw new GovGenesisError(`${where}: ${errorMessage(e)}`);
  }
}

function duration(v: unknown, where: string): Duration {
  try {
    return durationFromJSON(string(v, where));
  } catch (e) {
    if (e instanceof GovGenesisError) throw e;
    throw new GovGenesisError(`${where}: ${errorMessage(e)}`);
  }
}

function time(v: unknown, where: string): Timestamp | undefined {
  if (v === null || v === undefined) return undefined;
  try {
    return timestampFromJSON(string(v, where));
  } catch (e) {
    if (e instanceof GovGenesisError) throw e;
    throw new GovGenesisError(`${where}: ${errorMessage(e)}`);
  }
}

const PARAM_KEYS = [
  'min_deposit',
  'max_deposit_period',
  'voting_period',
  'quorum',
  'threshold',
  'veto_threshold',
  'min_initial_deposit_ratio',
  'proposal_cancel_ratio',
  'proposal_cancel_dest',
  'expedited_voting_period',
  'expedited_threshold',
  'expedited_min_deposit',
  'burn_vote_quorum',
  'burn_proposal_deposit_prevote',
  'burn_vote_veto',
  'min_deposit_ratio',
];

export function paramsToJSON(p: Params): GovParamsJSON {
  const d = (x: Duration | undefined): string => (x === undefined ? '0s' : durationToJSON(x));
  return {
    min_deposit: p.minDeposit.map((c) => ({ denom: c.denom, amount: c.amount })),
    max_deposit_period: d(p.maxDepositPeriod),
    voting_period: d(p.votingPeriod),
    quorum: p.quorum,
    threshold: p.threshold,
    veto_threshold: p.vetoThreshold,
    min_initial_deposit_ratio: p.minInitialDepositRatio,
    proposal_cancel_ratio: p.proposalCancelRatio,
    proposal_cancel_dest: p.proposalCancelDest,
    expedited_voting_period: d(p.expeditedVotingPeriod),
    expedited_threshold: p.expeditedThreshold,
    expedited_min_deposit: p.expeditedMinDeposit.map((c) => ({ denom: c.denom, amount: c.amount })),
    burn_vote_quorum: p.burnVoteQuorum,
    burn_proposal_deposit_prevote: p.burnProposalDepositPrevote,
    burn_vote_veto: p.burnVoteVeto,
    min_deposit_ratio: p.minDepositRatio,
  };
}

/** Params from JSON; a missing field takes its default, then the whole is validated (errors name the field). */
export function paramsFromJSON(v: unknown, bondDenom: string, prefix?: string): Params {
  const o = object(v, 'params', PARAM_KEYS);
  const dflt = defaultParams(bondDenom);
  const w = (k: string): string => `params.${k}`;
  const p: Params = {
    minDeposit: o.min_deposit === undefined ? dflt.minDeposit : protoCoins(o.min_deposit, w('min_deposit')),
    maxDepositPeriod: o.max_deposit_period === undefined ? dflt.maxDepositPeriod : duration(o.max_deposit_period, w('max_deposit_period')),
    votingPeriod: o.voting_period === undefined ? dflt.votingPeriod : duration(o.voting_period, w('voting_period')),
    quorum: string(o.quorum, w('quorum'), dflt.quorum),
    threshold: string(o.threshold, w('threshold'), dflt.threshold),
    vetoThreshold: string(o.veto_threshold, w('veto_threshold'), dflt.vetoThreshold),
    minInitialDepositRatio: string(o.min_initial_deposit_ratio, w('min_initial_deposit_ratio'), dflt.minInitialDepositRatio),
    proposalCancelRatio: string(o.proposal_cancel_ratio, w('proposal_cancel_ratio'), dflt.proposalCancelRatio),
    proposalCancelDest: string(o.proposal_cancel_dest, w('proposal_cancel_dest'), dflt.proposalCancelDest),
    expeditedVotingPeriod:
      o.expedited_voting_period === undefined ? dflt.expeditedVotingPeriod : duration(o.expedited_voting_period, w('expedited_voting_period')),
    expeditedThreshold: string(o.expedited_threshold, w('expedited_threshold'), dflt.expeditedThreshold),
    expeditedMinDeposit: o.expedited_min_deposit === undefined ? dflt.expeditedMinDeposit : protoCoins(o.expedited_min_deposit, w('expedited_min_deposit')),
    burnVoteQuorum: boolean(o.burn_vote_quorum, w('burn_vote_quorum'), dflt.burnVoteQuorum),
    burnProposalDepositPrevote: boolean(o.burn_proposal_deposit_prevote, w('burn_proposal_deposit_prevote'), dflt.burnProposalDepositPrevote),
    burnVoteVeto: boolean(o.burn_vote_veto, w('burn_vote_veto'), dflt.burnVoteVeto),
    minDepositRatio: string(o.min_deposit_ratio, w('min_deposit_ratio'), dflt.minDepositRatio),
  };
  try {
    parseParams(p, prefix);
  } catch (e) {
    throw new GovGenesisError(`params.${errorMessage(e)}`);
  }
  return p;
}

// protobuf JSON uses the proto field names; cosmjs-types and ts-proto codecs use lowerCamelCase
const camel = (k: string): string => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const snake = (k: string): string => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
function rekey(v: unknown, f: (k: string) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => rekey(x, f));
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k === '@type' ? k : f(k), rekey(x, f)]));
}

export function anyToJSON(any: Any, router: MsgRouter | undefined): AnyJSON {
  const codec = router?.has(any.typeUrl) ? router.route(any.typeUrl).codec : undefined;
  if (codec?.toJSON !== undefined) {
    const fields = rekey(codec.toJSON(codec.decode(any.value)), snake) as Obj;
    return { '@type': any.typeUrl, ...fields };
  }
  return { '@type': any.typeUrl, value: Buffer.from(any.value).toString('base64') };
}

export function anyFromJSON(v: unknown, where: string, router: MsgRouter | undefined): Any {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new GovGenesisError(`${where} must be an object`);
  const { '@type': typeUrl, ...fields } = v as Obj;
  if (typeof typeUrl !== 'string' || !typeUrl.startsWith('/')) throw new GovGenesisError(`${where}["@type"] must be a type URL`);
  const codec = router?.has(typeUrl) ? router.route(typeUrl).codec : undefined;
  if (codec?.fromJSON !== undefined) {
    try {
      return { typeUrl, value: codec.encode(codec.fromJSON(rekey(fields, camel))).finish() };
    } catch (e) {
      throw new GovGenesisError(`${where}: cannot read ${typeUrl}: ${errorMessage(e)}`);
    }
  }
  const keys = Object.keys(fields);
  if (keys.length === 1 && typeof fields.value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(fields.value)) {
    return { typeUrl, value: Buffer.from(fields.value, 'base64') };
  }
  throw new GovGenesisError(`${where}: message type ${typeUrl} is not registered with the app, so its JSON cannot be read`);
}

function tallyToJSON(t: TallyResult | undefined): TallyResultJSON | null {
  return t === undefined ? null : { yes_count: t.yesCount, abstain_count: t.abstainCount, no_count: t.noCount, no_with_veto_count: t.noWithVetoCount };
}

function tallyFromJSON(v: unknown, where: string): TallyResult | undefined {
  if (v === null || v === undefined) return undefined;
  const o = object(v, where, ['yes_count', 'abstain_count', 'no_count', 'no_with_veto_count']);
  const count = (k: string): string => {
    const s = string(o[k], `${where}.${k}`, '0');
    if (!/^[0-9]+$/.test(s)) throw new GovGenesisError(`${where}.${k} must be a non-negative integer string`);
    return s;
  };
  return { yesCount: count('yes_count'), abstainCount: count('abstain_count'), noCount: count('no_count'), noWithVetoCount: count('no_with_veto_count') };
}

const tsJSON = (t: Timestamp | undefined): string | null => (t === undefined ? null : timestampToJSON(t));

export function proposalToJSON(p: Proposal, router: MsgRouter | undefined): ProposalJSON {
  return {
    id: p.id.toString(),
    messages: p.messages.map((m) => anyToJSON(m, router)),
    status: proposalStatusToJSON(p.status),
    final_tally_result: tallyToJSON(p.finalTallyResult),
    submit_time: tsJSON(p.submitTime),
    deposit_end_time: tsJSON(p.depositEndTime),
    total_deposit: p.totalDeposit.map((c) => ({ denom: c.denom, amount: c.amount })),
    voting_start_time: tsJSON(p.votingStartTime),
    voting_end_time: tsJSON(p.votingEndTime),
    metadata: p.metadata,
    title: p.title,
    summary: p.summary,
    proposer: p.proposer,
    expedited: p.expedited,
    failed_reason: p.failedReason,
  };
}

const PROPOSAL_KEYS = [
  'id',
  'messages',
  'status',
  'final_tally_result',
  'submit_time',
  'deposit_end_time',
  'total_deposit',
  'voting_start_time',
  'voting_end_time',
  'metadata',
  'title',
  'summary',
  'proposer',
  'expedited',
  'failed_reason',
];

const LIVE_STATUSES: readonly ProposalStatus[] = [
  ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD,
  ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
  ProposalStatus.PROPOSAL_STATUS_PASSED,
  ProposalStatus.PROPOSAL_STATUS_REJECTED,
  ProposalStatus.PROPOSAL_STATUS_FAILED,
];

function proposalFromJSON(v: unknown, where: string, k: GovKeeper, router: MsgRouter | undefined): Proposal {
  const o = object(v, where, PROPOSAL_KEYS);
  const status = proposalStatusFromJSON(o.status);
  if (!LIVE_STATUSES.includes(status)) throw new GovGenesisError(`${where}.status ${JSON.stringify(o.status)} is not a proposal status`);
  const p: Proposal = {
    id: u64(o.id, `${where}.id`),
    messages: array(o.messages, `${where}.messages`).map((m, i) => anyFromJSON(m, `${where}.messages[${i}]`, router)),
    status,
    finalTallyResult: tallyFromJSON(o.final_tally_result, `${where}.final_tally_result`),
    submitTime: time(o.submit_time, `${where}.submit_time`),
    depositEndTime: time(o.deposit_end_time, `${where}.deposit_end_time`),
    totalDeposit: protoCoins(o.total_deposit, `${where}.total_deposit`),
    votingStartTime: time(o.voting_start_time, `${where}.voting_start_time`),
    votingEndTime: time(o.voting_end_time, `${where}.voting_end_time`),
    metadata: string(o.metadata, `${where}.metadata`, ''),
    title: string(o.title, `${where}.title`, ''),
    summary: string(o.summary, `${where}.summary`, ''),
    proposer: string(o.proposer, `${where}.proposer`, ''),
    expedited: boolean(o.expedited, `${where}.expedited`, false),
    failedReason: string(o.failed_reason, `${where}.failed_reason`, ''),
  };
  if (p.id === 0n) throw new GovGenesisError(`${where}.id must be at least 1`);
  if (p.expedited) throw new GovGenesisError(`${where}: expedited proposals are not supported`);
  validCoins(o.total_deposit, `${where}.total_deposit`);
  if (p.proposer !== '') guard(`${where}.proposer`, () => k.addressBytes(p.proposer, 'proposer'));
  if (p.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && p.depositEndTime === undefined)
    throw new GovGenesisError(`${where}: a proposal in its deposit period needs deposit_end_time`);
  if (p.status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD && (p.votingStartTime === undefined || p.votingEndTime === undefined)) {
    throw new GovGenesisError(`${where}: a proposal in its voting period needs voting_start_time and voting_end_time`);
  }
  return p;
}

function guard<T>(where: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new GovGenesisError(`${where}: ${errorMessage(e)}`);
  }
}

export function defaultGenesis(bondDenom?: string): GovGenesisJSON {
  return {
    starting_proposal_id: '1',
    deposits: [],
    votes: [],
    proposals: [],
    deposit_params: null,
    voting_params: null,
    tally_params: null,
    params: paramsToJSON(defaultParams(bondDenom)),
    constitution: '',
  };
}

const GENESIS_KEYS = ['starting_proposal_id', 'deposits', 'votes', 'proposals', 'deposit_params', 'voting_params', 'tally_params', 'params', 'constitution'];

/**
 * Parses and validates, as the SDK's ValidateGenesis: valid params, no duplicate proposal, deposit
 * or vote, and every deposit and vote for a known proposal; besides, ids below starting_proposal_id.
 */
export function parseGenesis(raw: unknown, k: GovKeeper): GovGenesis {
  const router = k.routerIfSet();
  const g = object(raw, 'genesis', GENESIS_KEYS);
  for (const legacy of ['deposit_params', 'voting_params', 'tally_params']) {
    if (g[legacy] !== undefined && g[legacy] !== null) throw new GovGenesisError(`${legacy} is deprecated since v0.47: use params`);
  }
  const startingProposalId = g.starting_proposal_id === undefined ? 1n : u64(g.starting_proposal_id, 'starting_proposal_id');
  if (startingProposalId === 0n) throw new GovGenesisError('starting_proposal_id must be at least 1');
  const params = g.params === undefined ? defaultParams(k.bondDenom) : paramsFromJSON(g.params, k.bondDenom, k.prefix);
  const constitution = string(g.constitution, 'constitution', '');

  const ids = new Set<bigint>();
  const proposals = array(g.proposals, 'proposals').map((v, i) => {
    const p = proposalFromJSON(v, `proposals[${i}]`, k, router);
    if (ids.has(p.id)) throw new GovGenesisError(`duplicate proposal id: ${p.id}`);
    if (p.id >= startingProposalId) throw new GovGenesisError(`proposal id ${p.id} is not below starting_proposal_id ${startingProposalId}`);
    ids.add(p.id);
    return p;
  });

  const depositKeys = new Set<string>();
  const deposits = array(g.deposits, 'deposits').map((v, i): Deposit => {
    const where = `deposits[${i}]`;
    const o = object(v, where, ['proposal_id', 'depositor', 'amount']);
    const proposalId = u64(o.proposal_id, `${where}.proposal_id`);
    const depositor = string(o.depositor, `${where}.depositor`);
    const bytes = guard(`${where}.depositor`, () => k.addressBytes(depositor, 'depositor'));
    validCoins(o.amount, `${where}.amount`);
    if (!ids.has(proposalId)) throw new GovGenesisError(`${where} has non-existent proposal id: ${proposalId}`);
    const key = `${proposalId}/${toHex(bytes)}`;
    if (depositKeys.has(key)) throw new GovGenesisError(`duplicate deposit of ${depositor} on proposal ${proposalId}`);
    depositKeys.add(key);
    return { proposalId, depositor, amount: protoCoins(o.amount, `${where}.amount`) };
  });

  const voteKeys = new Set<string>();
  const votes = array(g.votes, 'votes').map((v, i): Vote => {
    const where = `votes[${i}]`;
    const o = object(v, where, ['proposal_id', 'voter', 'options', 'metadata']);
    const proposalId = u64(o.proposal_id, `${where}.proposal_id`);
    const voter = string(o.voter, `${where}.voter`);
    const bytes = guard(`${where}.voter`, () => k.addressBytes(voter, 'voter'));
    const options = array(o.options, `${where}.options`).map((x, j) => {
      const opt = object(x, `${where}.options[${j}]`, ['option', 'weight']);
      const option = voteOptionFromJSON(opt.option);
      if (option === VoteOption.UNRECOGNIZED) throw new GovGenesisError(`${where}.options[${j}].option ${JSON.stringify(opt.option)} is not a vote option`);
      return { option, weight: string(opt.weight, `${where}.options[${j}].weight`) };
    });
    const checked = guard(`${where}.options`, () => validateVoteOptions(options));
    if (!ids.has(proposalId)) throw new GovGenesisError(`${where} has non-existent proposal id: ${proposalId}`);
    const key = `${proposalId}/${toHex(bytes)}`;
    if (voteKeys.has(key)) throw new GovGenesisError(`duplicate vote of ${voter} on proposal ${proposalId}`);
    voteKeys.add(key);
    return { proposalId, voter, options: checked, metadata: string(o.metadata, `${where}.metadata`, '') };
  });
  return { startingProposalId, params, constitution, proposals, deposits, votes };
}

/**
 * InitGenesis: params, the proposal id counter, proposals (queued by status), deposits and votes,
 * the gov module account; and, as the SDK, the gov account must hold exactly the deposits (so bank's
 * genesis must come first in the init order when there are deposits).
 */
export function initGenesis(ctx: Context, k: GovKeeper, raw: unknown): void {
  const g = parseGenesis(raw, k);
  k.setParams(ctx, g.params);
  setNextProposalId(ctx, k, g.startingProposalId);
  k.setConstitution(ctx, g.constitution);
  k.accounts.getModuleAccount(ctx, MODULE_NAME);
  let total: Coin[] = [];
  for (const d of g.deposits) {
    setDeposit(ctx, k, d);
    total = addCoins(total, fromProtoCoins(d.amount));
  }
  for (const v of g.votes) setVote(ctx, k, v);
  for (const p of g.proposals) {
    setProposal(ctx, k, p);
    enqueueProposal(ctx, k, p);
  }
  const balance = k.bank.getAllBalances(ctx, k.authority);
  if (!coinsEqual(balance, total)) {
    throw new GovGenesisError(`the gov module account ${k.authority} holds "${coinsToString(balance)}" but the deposits total "${coinsToString(total)}"`);
  }
}

export function exportGenesis(ctx: Context, k: GovKeeper): GovGenesisJSON {
  const router = k.routerIfSet();
  const proposals: ProposalJSON[] = [];
  iterateProposals(ctx, k, (p) => {
    proposals.push(proposalToJSON(p, router));
  });
  return {
    starting_proposal_id: getNextProposalId(ctx, k).toString(),
    deposits: getAllDeposits(ctx, k).map((d) => ({
      proposal_id: d.proposalId.toString(),
      depositor: d.depositor,
      amount: d.amount.map((c) => ({ denom: c.denom, amount: c.amount })),
    })),
    votes: getAllVotes(ctx, k).map((v) => ({
      proposal_id: v.proposalId.toString(),
      voter: v.voter,
      options: v.options.map((o) => ({ option: voteOptionToJSON(o.option), weight: o.weight })),
      metadata: v.metadata,
    })),
    proposals,
    deposit_params: null,
    voting_params: null,
    tally_params: null,
    params: paramsToJSON(k.getParams(ctx)),
    constitution: k.getConstitution(ctx),
  };
}
