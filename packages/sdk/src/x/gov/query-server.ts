// cosmos.gov.v1.Query, served through the app's query router with the SDK v0.50 semantics and texts.
import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { Deposit, Proposal, ProposalStatus, Vote } from 'cosmjs-types/cosmos/gov/v1/gov';
import {
  QueryConstitutionRequest,
  QueryConstitutionResponse,
  QueryDepositRequest,
  QueryDepositResponse,
  QueryDepositsRequest,
  QueryDepositsResponse,
  QueryParamsRequest,
  QueryParamsResponse,
  QueryProposalRequest,
  QueryProposalResponse,
  QueryProposalsRequest,
  QueryProposalsResponse,
  QueryTallyResultRequest,
  QueryTallyResultResponse,
  QueryVoteRequest,
  QueryVoteResponse,
  QueryVotesRequest,
  QueryVotesResponse,
} from 'cosmjs-types/cosmos/gov/v1/query';
import type { Context } from '../../app/context.ts';
import { DEFAULT_PAGE_LIMIT, grpcError, paginate, unaryMethod } from '../../app/query/index.ts';
import type { QueryRouter, ServiceImpl } from '../../app/router.ts';
import { concatBytes, prefixEnd, type Entry, type ReadKVStore } from '../../store/index.ts';
import { getDeposit } from './deposits.ts';
import type { GovKeeper } from './keeper.ts';
import { STORE_KEY, PROPOSALS_PREFIX, depositKey, depositsPrefix, voteKey, votesPrefix } from './keys.ts';
import { emptyTallyResult, getProposal } from './proposals.ts';
import { tallyProposal } from './tally.ts';
import { getVote } from './votes.ts';
import { errorMessage } from '@chaind/errors';

/** ts-proto generic definition of cosmos.gov.v1.Query (cosmjs-types ships only a client). */
export const GovQueryDefinition = {
  name: 'Query',
  fullName: 'cosmos.gov.v1.Query',
  methods: {
    constitution: unaryMethod('Constitution', QueryConstitutionRequest, QueryConstitutionResponse),
    proposal: unaryMethod('Proposal', QueryProposalRequest, QueryProposalResponse),
    proposals: unaryMethod('Proposals', QueryProposalsRequest, QueryProposalsResponse),
    vote: unaryMethod('Vote', QueryVoteRequest, QueryVoteResponse),
    votes: unaryMethod('Votes', QueryVotesRequest, QueryVotesResponse),
    params: unaryMethod('Params', QueryParamsRequest, QueryParamsResponse),
    deposit: unaryMethod('Deposit', QueryDepositRequest, QueryDepositResponse),
    deposits: unaryMethod('Deposits', QueryDepositsRequest, QueryDepositsResponse),
    tallyResult: unaryMethod('TallyResult', QueryTallyResultRequest, QueryTallyResultResponse),
  },
} as const;
export type GovQueryDefinition = typeof GovQueryDefinition;

const STATUSES: ReadonlySet<ProposalStatus> = new Set([
  ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD,
  ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
  ProposalStatus.PROPOSAL_STATUS_PASSED,
  ProposalStatus.PROPOSAL_STATUS_REJECTED,
  ProposalStatus.PROPOSAL_STATUS_FAILED,
]);

/**
 * As auth's `paginate`, keeping only entries `include` accepts (the SDK's CollectionFilteredPaginate):
 * limit and offset count matching entries; `nextKey` is the key of the next matching entry.
 */
export function paginateFiltered<T>(
  store: ReadKVStore,
  prefix: Uint8Array,
  req: PageRequest | undefined,
  decode: (e: Entry) => T,
  include: (item: T) => boolean,
): { items: T[]; page: PageResponse } {
  const key = req?.key ?? new Uint8Array(0);
  const offset = req?.offset ?? 0n;
  const limit = req === undefined || req.limit === 0n ? DEFAULT_PAGE_LIMIT : req.limit;
  const reverse = req?.reverse ?? false;
  const countTotal = key.length === 0 && (req?.countTotal ?? false);
  if (offset > 0n && key.length > 0) throw grpcError('InvalidArgument', 'paginate: invalid request, either offset or key is expected, got both');
  const end = prefixEnd(prefix);
  let it: IterableIterator<Entry>;
  if (key.length > 0) {
    const at = concatBytes(prefix, key);
    it = reverse ? store.reverseIterator(prefix, concatBytes(at, Uint8Array.of(0))) : store.iterator(at, end);
  } else {
    it = reverse ? store.reverseIterator(prefix, end) : store.iterator(prefix, end);
  }
  const items: T[] = [];
  let nextKey: Uint8Array = new Uint8Array(0);
  let n = 0n;
  for (const e of it) {
    const item = decode(e);
    if (!include(item)) continue;
    n++;
    if (n <= offset) continue;
    if (n <= offset + limit) {
      items.push(item);
      continue;
    }
    if (nextKey.length === 0) nextKey = e.key.subarray(prefix.length);
    if (!countTotal) break;
  }
  return { items, page: { nextKey, total: countTotal ? n : 0n } };
}

function proposalIdArg(id: bigint): bigint {
  if (id === 0n) throw grpcError('InvalidArgument', 'proposal id can not be 0');
  return id;
}

function addressArg(k: GovKeeper, address: string, role: string): Uint8Array {
  if (address === '') throw grpcError('InvalidArgument', `empty ${role} address`);
  try {
    return k.addressBytes(address, role);
  } catch (e) {
    throw grpcError('InvalidArgument', errorMessage(e));
  }
}

function existingProposal(ctx: Context, k: GovKeeper, id: bigint): Proposal {
  const p = getProposal(ctx, k, proposalIdArg(id));
  if (p === undefined) throw grpcError('NotFound', `proposal ${id} doesn't exist`);
  return p;
}

export function govQueryServer(k: GovKeeper): ServiceImpl<GovQueryDefinition> {
  const store = (ctx: Context): ReadKVStore => ctx.kvStore(STORE_KEY);
  return {
    constitution(ctx) {
      return { constitution: k.getConstitution(ctx) };
    },
    proposal(ctx, req) {
      return { proposal: existingProposal(ctx, k, req.proposalId) };
    },
    proposals(ctx, req) {
      const voter = req.voter === '' ? undefined : addressArg(k, req.voter, 'voter');
      const depositor = req.depositor === '' ? undefined : addressArg(k, req.depositor, 'depositor');
      const s = store(ctx);
      const { items, page } = paginateFiltered(
        s,
        PROPOSALS_PREFIX,
        req.pagination,
        (e) => Proposal.decode(e.value),
        (p) =>
          (!STATUSES.has(req.proposalStatus) || p.status === req.proposalStatus) &&
          (voter === undefined || s.has(voteKey(p.id, voter))) &&
          (depositor === undefined || s.has(depositKey(p.id, depositor))),
      );
      return { proposals: items, pagination: page };
    },
    vote(ctx, req) {
      proposalIdArg(req.proposalId);
      addressArg(k, req.voter, 'voter');
      const vote = getVote(ctx, k, req.proposalId, req.voter);
      if (vote === undefined) throw grpcError('InvalidArgument', `voter: ${req.voter} not found for proposal: ${req.proposalId}`);
      return { vote };
    },
    votes(ctx, req) {
      const { items, page } = paginate(store(ctx), votesPrefix(proposalIdArg(req.proposalId)), req.pagination, (e) => Vote.decode(e.value));
      return { votes: items, pagination: page };
    },
    params(ctx, req) {
      const params = k.getParams(ctx);
      const res: QueryParamsResponse = { params };
      switch (req.paramsType) {
        case 'deposit':
          res.depositParams = { minDeposit: params.minDeposit, maxDepositPeriod: params.maxDepositPeriod };
          break;
        case 'voting':
          res.votingParams = { votingPeriod: params.votingPeriod };
          break;
        case 'tallying':
          res.tallyParams = { quorum: params.quorum, threshold: params.threshold, vetoThreshold: params.vetoThreshold };
          break;
        case '':
          break;
        default:
          throw grpcError('InvalidArgument', `unknown params type: ${req.paramsType}`);
      }
      return res;
    },
    deposit(ctx, req) {
      proposalIdArg(req.proposalId);
      addressArg(k, req.depositor, 'depositor');
      const deposit = getDeposit(ctx, k, req.proposalId, req.depositor);
      if (deposit === undefined) throw grpcError('InvalidArgument', `depositer: ${req.depositor} not found for proposal: ${req.proposalId}`);
      return { deposit };
    },
    deposits(ctx, req) {
      const { items, page } = paginate(store(ctx), depositsPrefix(proposalIdArg(req.proposalId)), req.pagination, (e) => Deposit.decode(e.value));
      return { deposits: items, pagination: page };
    },
    tallyResult(ctx, req) {
      const p = existingProposal(ctx, k, req.proposalId);
      switch (p.status) {
        case ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD:
          return { tally: emptyTallyResult() };
        case ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD:
          // the live tally, against the validators' current power
          return { tally: tallyProposal(ctx, k, p).result };
        default:
          return { tally: p.finalTallyResult ?? emptyTallyResult() };
      }
    },
  };
}

export function registerGovQueryServer(router: QueryRouter, k: GovKeeper): void {
  router.registerService(GovQueryDefinition, govQueryServer(k));
}
