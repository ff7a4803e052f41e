// Gov genesis as the Cosmos SDK v0.50's JSON (cosmos.gov.v1.GenesisState, proto field names).
// Proposal messages are protobuf JSON Anys ({"@type", ...fields}) converted with the codecs of the
// message router; a type without a JSON codec travels as {"@type", "value": base64}.
import { ChaindError } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { GenesisState } from 'cosmjs-types/cosmos/gov/v1/genesis';
import { ProposalStatus, VoteOption, type Deposit, type Proposal, type TallyResult, type Vote } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import { errorMessage } from '../../app/errors.ts';
import type { MsgRouter } from '../../app/router.ts';
import { fromProtoJSON, jsonNames, protoName, protoNames, toProtoJSON, type AnyJSON, type ProtoJSON, type ProtoJsonOptions } from '../../genesis/proto-json.ts';
import { toHex } from '../../store/index.ts';
import { addCoins, coinsEqual, coinsToString, fromProtoCoins, type Coin } from '../../types/coins.ts';
import { getAllDeposits, setDeposit } from './deposits.ts';
import type { GovKeeper } from './keeper.ts';
import { MODULE_NAME } from './keys.ts';
import { Params, defaultParams, parseParams } from './params.ts';
import { enqueueProposal, getNextProposalId, iterateProposals, setNextProposalId, setProposal } from './proposals.ts';
import { durationFromJSON, durationToJSON, timestampFromJSON, timestampToJSON } from './time.ts';
import { getAllVotes, setVote, validateVoteOptions } from './votes.ts';

export type GovGenesisJSON = ProtoJSON<GenesisState>;
export type GovParamsJSON = ProtoJSON<Params>;
export type ProposalJSON = ProtoJSON<Proposal>;

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

const fail = (detail: string): GovGenesisError => new GovGenesisError(detail);

function guard<T>(where: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new GovGenesisError(`${where}: ${errorMessage(e)}`);
  }
}

type Obj = Record<string, unknown>;

export function anyToJSON(any: Any, router: MsgRouter | undefined): AnyJSON {
  const codec = router?.has(any.typeUrl) ? router.route(any.typeUrl).codec : undefined;
  if (codec?.toJSON !== undefined) {
    const fields = protoNames(codec.toJSON(codec.decode(any.value))) as Obj;
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
      return { typeUrl, value: codec.encode(codec.fromJSON(jsonNames(fields))).finish() };
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

/** The JSON forms gov writes and reads; Anys with the router's codecs. */
function jsonOptions(router: MsgRouter | undefined): ProtoJsonOptions {
  return {
    fail,
    timestamp: { toJSON: timestampToJSON, fromJSON: timestampFromJSON },
    duration: { toJSON: durationToJSON, fromJSON: durationFromJSON },
    any: { toJSON: (a) => anyToJSON(a, router), fromJSON: (v, where) => anyFromJSON(v, where, router) },
  };
}

export function paramsToJSON(p: Params): GovParamsJSON {
  return toProtoJSON(Params, p, jsonOptions(undefined));
}

/** Params from JSON; a missing field takes its default, then the whole is validated (errors name the field). */
export function paramsFromJSON(v: unknown, bondDenom: string, prefix?: string): Params {
  const p = fromProtoJSON(Params, v, 'params', jsonOptions(undefined), defaultParams(bondDenom));
  try {
    parseParams(p, prefix);
  } catch (e) {
    throw new GovGenesisError(`params.${errorMessage(e)}`);
  }
  return p;
}

const LIVE_STATUSES: readonly ProposalStatus[] = [
  ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD,
  ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
  ProposalStatus.PROPOSAL_STATUS_PASSED,
  ProposalStatus.PROPOSAL_STATUS_REJECTED,
  ProposalStatus.PROPOSAL_STATUS_FAILED,
];

/** The checks beyond the JSON's shape; `raw` is the proposal's JSON, for the texts of errors. */
function checkProposal(p: Proposal, raw: ProposalJSON, where: string, k: GovKeeper): Proposal {
  if (!LIVE_STATUSES.includes(p.status)) throw new GovGenesisError(`${where}.status ${JSON.stringify(raw.status)} is not a proposal status`);
  if (p.id < 1n) throw new GovGenesisError(`${where}.id must be at least 1`);
  if (p.expedited) throw new GovGenesisError(`${where}: expedited proposals are not supported`);
  guard(`${where}.total_deposit`, () => fromProtoCoins(p.totalDeposit));
  if (p.proposer !== '') guard(`${where}.proposer`, () => k.addressBytes(p.proposer, 'proposer'));
  if (p.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && p.depositEndTime === undefined)
    throw new GovGenesisError(`${where}: a proposal in its deposit period needs deposit_end_time`);
  if (p.status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD && (p.votingStartTime === undefined || p.votingEndTime === undefined)) {
    throw new GovGenesisError(`${where}: a proposal in its voting period needs voting_start_time and voting_end_time`);
  }
  const tally = p.finalTallyResult;
  if (tally === undefined) return p;
  // a count left out reads as 0
  const counts = { ...tally };
  for (const field of Object.keys(counts) as (keyof TallyResult)[]) {
    const name = protoName(field);
    if ((raw.final_tally_result as Obj | null)?.[name] === undefined) counts[field] = '0';
    else if (!/^[0-9]+$/.test(counts[field])) throw new GovGenesisError(`${where}.final_tally_result.${name} must be a non-negative integer string`);
  }
  return { ...p, finalTallyResult: counts };
}

export function defaultGenesis(bondDenom?: string): GovGenesisJSON {
  const g = GenesisState.fromPartial({ startingProposalId: 1n });
  return toProtoJSON(GenesisState, { ...g, params: defaultParams(bondDenom) }, jsonOptions(undefined));
}

const LEGACY_PARAMS = ['deposit_params', 'voting_params', 'tally_params'] as const;

/**
 * Parses and validates, as the SDK's ValidateGenesis: valid params, no duplicate proposal, deposit
 * or vote, and every deposit and vote for a known proposal; besides, ids below starting_proposal_id.
 */
export function parseGenesis(raw: unknown, k: GovKeeper): GovGenesis {
  const router = k.routerIfSet();
  // params are read on their own, a missing field taking gov's default rather than protobuf's
  const isObj = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const { params: rawParams, ...rest } = isObj ? (raw as Obj) : { params: undefined };
  const parsed = fromProtoJSON(GenesisState, isObj ? rest : raw, '', jsonOptions(router), GenesisState.fromPartial({ startingProposalId: 1n }));
  const json = rest as Partial<GovGenesisJSON>;
  for (const legacy of LEGACY_PARAMS) {
    if (json[legacy] !== undefined && json[legacy] !== null) throw new GovGenesisError(`${legacy} is deprecated since v0.47: use params`);
  }
  const { startingProposalId, constitution } = parsed;
  if (startingProposalId < 1n) throw new GovGenesisError('starting_proposal_id must be at least 1');
  const params = rawParams === undefined ? defaultParams(k.bondDenom) : paramsFromJSON(rawParams, k.bondDenom, k.prefix);

  const ids = new Set<bigint>();
  const proposals = parsed.proposals.map((v, i) => {
    const p = checkProposal(v, (json.proposals ?? [])[i], `proposals[${i}]`, k);
    if (ids.has(p.id)) throw new GovGenesisError(`duplicate proposal id: ${p.id}`);
    if (p.id >= startingProposalId) throw new GovGenesisError(`proposal id ${p.id} is not below starting_proposal_id ${startingProposalId}`);
    ids.add(p.id);
    return p;
  });

  const depositKeys = new Set<string>();
  for (const [i, d] of parsed.deposits.entries()) {
    const where = `deposits[${i}]`;
    const bytes = guard(`${where}.depositor`, () => k.addressBytes(d.depositor, 'depositor'));
    guard(`${where}.amount`, () => fromProtoCoins(d.amount));
    if (!ids.has(d.proposalId)) throw new GovGenesisError(`${where} has non-existent proposal id: ${d.proposalId}`);
    const key = `${d.proposalId}/${toHex(bytes)}`;
    if (depositKeys.has(key)) throw new GovGenesisError(`duplicate deposit of ${d.depositor} on proposal ${d.proposalId}`);
    depositKeys.add(key);
  }

  const voteKeys = new Set<string>();
  const votes = parsed.votes.map((v, i): Vote => {
    const where = `votes[${i}]`;
    const bytes = guard(`${where}.voter`, () => k.addressBytes(v.voter, 'voter'));
    for (const [j, o] of v.options.entries()) {
      if (o.option === VoteOption.UNRECOGNIZED) {
        const given = (json.votes ?? [])[i].options[j].option;
        throw new GovGenesisError(`${where}.options[${j}].option ${JSON.stringify(given)} is not a vote option`);
      }
    }
    const options = guard(`${where}.options`, () => validateVoteOptions(v.options));
    if (!ids.has(v.proposalId)) throw new GovGenesisError(`${where} has non-existent proposal id: ${v.proposalId}`);
    const key = `${v.proposalId}/${toHex(bytes)}`;
    if (voteKeys.has(key)) throw new GovGenesisError(`duplicate vote of ${v.voter} on proposal ${v.proposalId}`);
    voteKeys.add(key);
    return { ...v, options };
  });
  return { startingProposalId, params, constitution, proposals, deposits: parsed.deposits, votes };
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
  const proposals: Proposal[] = [];
  iterateProposals(ctx, k, (p) => {
    proposals.push(p);
  });
  const state = GenesisState.fromPartial({
    startingProposalId: getNextProposalId(ctx, k),
    deposits: getAllDeposits(ctx, k),
    votes: getAllVotes(ctx, k),
    proposals,
    params: k.getParams(ctx),
    constitution: k.getConstitution(ctx),
  });
  return toProtoJSON(GenesisState, state, jsonOptions(k.routerIfSet()));
}
