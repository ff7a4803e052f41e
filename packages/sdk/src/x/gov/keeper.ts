// x/gov's keeper (cosmos.gov.v1, as the Cosmos SDK v0.50): proposals, deposits, votes, the tally and
// the end-of-block processing of both proposal queues.
//
// DEPOSITS ARE REFUNDED, NOT BURNED, WHEN A PROPOSAL DIES IN ITS DEPOSIT PERIOD (our choice). A
// proposal that does not reach min_deposit within max_deposit_period is deleted by EndBlock and every
// deposit goes back to its depositor; deposits of passed, rejected and failed proposals are refunded
// too, and only a veto burns them. The SDK burned expired deposits unconditionally up to v0.46; since
// v0.47 the params burn_proposal_deposit_prevote (default false: refund), burn_vote_quorum (false)
// and burn_vote_veto (true) decide, and we honour them, so default params give exactly the above.
//
// State machine rules: block time only (ctx.header.time), bigint amounts, 18-decimal fixed point,
// byte-ordered iteration, protobuf bytes in the store (see keys.ts for the layout).
import { Buffer } from 'node:buffer';
import { Deposit, Proposal, ProposalStatus, Vote, VoteOption, proposalStatusToJSON, voteOptionToJSON, type WeightedVoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import { CodedError, errors } from '../../app/errors.ts';
import type { MsgRouter } from '../../app/router.ts';
import { fromBech32, moduleAddress, toBech32 } from '../../crypto/index.ts';
import { prefixEnd, readU64be, toHex, u64be, utf8, type KVStore } from '../../store/index.ts';
import { addCoins, coinsToString, fromProtoCoins, isAllGTE, normalizeCoins, toProtoCoins, type Coin } from '../../types/coins.ts';
import type { AccountKeeper } from '../auth/keeper.ts';
import type { BankKeeper } from '../bank/keeper.ts';
import { DEC_ONE, decFromInt, decMul, decToString, decTruncate, tryParseDec } from './dec.ts';
import { govErrors } from './errors.ts';
import {
  ACTIVE_QUEUE_PREFIX,
  CONSTITUTION_KEY,
  DEPOSITS_PREFIX,
  GOV_MODULE_NAME,
  GOV_STORE_KEY,
  INACTIVE_QUEUE_PREFIX,
  PARAMS_KEY,
  PROPOSAL_ID_KEY,
  PROPOSALS_PREFIX,
  VOTES_PREFIX,
  depositKey,
  depositsPrefix,
  proposalKey,
  queueEndAt,
  queueKey,
  voteKey,
  votesPrefix,
} from './keys.ts';
import { DEFAULT_BOND_DENOM, Params, defaultParams, normalizeParams, parseParams, type ParsedParams } from './params.ts';
import { emptyTallyResult, tally, type TallyOutcome } from './tally.ts';
import { TimeError, addDuration, type Timestamp } from './time.ts';

/** Length limits of proposal texts (the SDK's keeper config); bytes, as Go's len(string). */
export interface GovConfig {
  readonly maxTitleLen: number;
  readonly maxMetadataLen: number;
  readonly maxSummaryLen: number;
}

export const DEFAULT_GOV_CONFIG: GovConfig = { maxTitleLen: 140, maxMetadataLen: 255, maxSummaryLen: 10_000 };

/**
 * Validator power by the bech32 address of each validator's operator account (any prefix: only the
 * address bytes count). Accounts missing from the map carry no power.
 */
export type VotingPowerFn = (ctx: Context) => ReadonlyMap<string, bigint>;

export interface GovKeeperOptions {
  readonly bank: BankKeeper;
  readonly accounts: AccountKeeper;
  readonly votingPower: VotingPowerFn;
  /** The app's message router; by default the one the module is registered with. */
  readonly msgRouter?: MsgRouter;
  /** Bech32 prefix of account addresses; default: the account keeper's. */
  readonly prefix?: string;
  /** Denom of the default min_deposit; default "stake". */
  readonly bondDenom?: string;
  readonly config?: Partial<GovConfig>;
}

export interface SubmitProposalInput {
  readonly messages: readonly Any[];
  readonly metadata: string;
  readonly title: string;
  readonly summary: string;
  readonly proposer: string;
}

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
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

/** The keeper's state reads and writes. Every method validates before it writes. */
export class GovKeeper {
  readonly bank: BankKeeper;
  readonly accounts: AccountKeeper;
  readonly prefix: string;
  readonly bondDenom: string;
  readonly config: GovConfig;
  /** The gov module account's address: the authority of every proposal message. */
  readonly authority: string;
  private readonly authorityHex: string;
  private readonly votingPower: VotingPowerFn;
  private router: MsgRouter | undefined;

  constructor(o: GovKeeperOptions) {
    this.bank = o.bank;
    this.accounts = o.accounts;
    this.prefix = o.prefix ?? o.accounts.prefix;
    this.bondDenom = o.bondDenom ?? DEFAULT_BOND_DENOM;
    this.config = { ...DEFAULT_GOV_CONFIG, ...o.config };
    this.votingPower = o.votingPower;
    this.router = o.msgRouter;
    this.authority = moduleAddress(GOV_MODULE_NAME, this.prefix);
    this.authorityHex = toHex(fromBech32(this.authority).data);
  }

  /** Sets the router proposal messages are checked and executed with, unless one was given. */
  useMsgRouter(router: MsgRouter): void {
    this.router ??= router;
  }

  /** The router, or undefined before the module is registered (genesis JSON then falls back to raw Anys). */
  routerIfSet(): MsgRouter | undefined {
    return this.router;
  }

  get msgRouter(): MsgRouter {
    if (this.router === undefined) throw errors.logic.wrap('the gov keeper has no message router: register the gov module or pass msgRouter');
    return this.router;
  }

  private store(ctx: Context): KVStore {
    return ctx.kvStore(GOV_STORE_KEY);
  }

  /** Address bytes of a bech32 address of this chain; `errors.invalidAddress` naming the role otherwise. */
  addressBytes(address: string, role: string): Uint8Array {
    let data: Uint8Array;
    try {
      data = fromBech32(address, this.prefix).data;
    } catch (e) {
      throw errors.invalidAddress.wrap(`invalid ${role} address: ${messageOf(e)}`);
    }
    if (data.length === 0 || data.length > 255) throw errors.invalidAddress.wrap(`invalid ${role} address: length ${data.length} is not in 1..255`);
    return data;
  }

  private isAuthority(address: string): boolean {
    try {
      return toHex(fromBech32(address).data) === this.authorityHex;
    } catch {
      return false;
    }
  }

  // ---- params and constitution ----

  getParams(ctx: Context): Params {
    const v = this.store(ctx).get(PARAMS_KEY);
    return v === undefined ? defaultParams(this.bondDenom) : Params.decode(v);
  }

  getParsedParams(ctx: Context): ParsedParams {
    return parseParams(this.getParams(ctx), this.prefix);
  }

  /** Validates (errors name the field) and stores params in canonical form. */
  setParams(ctx: Context, params: Params): void {
    parseParams(params, this.prefix);
    this.store(ctx).set(PARAMS_KEY, Params.encode(normalizeParams(params)).finish());
  }

  getConstitution(ctx: Context): string {
    const v = this.store(ctx).get(CONSTITUTION_KEY);
    return v === undefined ? '' : Buffer.from(v).toString('utf8');
  }

  setConstitution(ctx: Context, constitution: string): void {
    if (constitution === '') this.store(ctx).delete(CONSTITUTION_KEY);
    else this.store(ctx).set(CONSTITUTION_KEY, utf8(constitution));
  }

  // ---- proposals ----

  /** The id the next proposal gets (1 on a fresh chain). */
  getNextProposalId(ctx: Context): bigint {
    const v = this.store(ctx).get(PROPOSAL_ID_KEY);
    return v === undefined ? 1n : readU64be(v);
  }

  setNextProposalId(ctx: Context, id: bigint): void {
    if (id < 1n) throw errors.invalidRequest.wrap('the next proposal id must be at least 1');
    this.store(ctx).set(PROPOSAL_ID_KEY, u64be(id));
  }

  getProposal(ctx: Context, id: bigint): Proposal | undefined {
    if (id < 1n || id > 0xffffffffffffffffn) return undefined;
    const v = this.store(ctx).get(proposalKey(id));
    return v === undefined ? undefined : Proposal.decode(v);
  }

  setProposal(ctx: Context, p: Proposal): void {
    this.store(ctx).set(proposalKey(p.id), Proposal.encode(p).finish());
  }

  /** Removes a proposal and its queue entries (not its deposits or votes). */
  deleteProposal(ctx: Context, id: bigint): void {
    const p = this.getProposal(ctx, id);
    if (p === undefined) return;
    const store = this.store(ctx);
    if (p.depositEndTime !== undefined) store.delete(queueKey(INACTIVE_QUEUE_PREFIX, p.depositEndTime, id));
    if (p.votingEndTime !== undefined) store.delete(queueKey(ACTIVE_QUEUE_PREFIX, p.votingEndTime, id));
    store.delete(proposalKey(id));
  }

  /** Every proposal in id order; `cb` returns true to stop. */
  iterateProposals(ctx: Context, cb: (p: Proposal) => boolean | void): void {
    for (const e of this.store(ctx).iterator(PROPOSALS_PREFIX, prefixEnd(PROPOSALS_PREFIX))) {
      if (cb(Proposal.decode(e.value)) === true) return;
    }
  }

  /** Puts a proposal in the queue its status calls for (genesis import). */
  enqueue(ctx: Context, p: Proposal): void {
    if (p.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && p.depositEndTime !== undefined) {
      this.store(ctx).set(queueKey(INACTIVE_QUEUE_PREFIX, p.depositEndTime, p.id), u64be(p.id));
    }
    if (p.status === ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD && p.votingEndTime !== undefined) {
      this.store(ctx).set(queueKey(ACTIVE_QUEUE_PREFIX, p.votingEndTime, p.id), u64be(p.id));
    }
  }

  /** Title, summary and metadata within the configured limits (SDK texts). */
  validateProposalLengths(metadata: string, title: string, summary: string): void {
    this.assertMetadataLength(metadata);
    if (byteLength(title) > this.config.maxTitleLen) throw govErrors.titleTooLong.wrap(`got title with length ${byteLength(title)}`);
    if (byteLength(summary) > this.config.maxSummaryLen) throw govErrors.summaryTooLong.wrap(`got summary with length ${byteLength(summary)}`);
  }

  assertMetadataLength(metadata: string): void {
    if (byteLength(metadata) > this.config.maxMetadataLen) throw govErrors.metadataTooLong.wrap(`got metadata with length ${byteLength(metadata)}`);
  }

  /**
   * Each proposal message must be a registered type that decodes, pass its route's validateBasic,
   * and have the gov module account as its only signer (so its handler sees gov as the authority).
   */
  validateProposalMessages(messages: readonly Any[]): void {
    const router = this.msgRouter;
    messages.forEach((any, i) => {
      if (!router.has(any.typeUrl)) throw govErrors.unroutableProposalMsg.wrap(any.typeUrl);
      const { route, msg } = (() => {
        try {
          return router.decode(any);
        } catch (e) {
          throw govErrors.invalidProposalMsg.wrap(messageOf(e));
        }
      })();
      try {
        route.validateBasic?.(msg);
      } catch (e) {
        throw govErrors.invalidProposalMsg.wrap(messageOf(e));
      }
      const signers = route.signers?.(msg) ?? [];
      if (signers.length !== 1) throw govErrors.invalidSigner.wrap(`message ${i} (${any.typeUrl}) has ${signers.length} signers`);
      if (!this.isAuthority(signers[0])) throw govErrors.invalidSigner.wrap(signers[0]);
    });
  }

  /**
   * Stores a new proposal in its deposit period (keeper.SubmitProposal); the caller adds the initial
   * deposit. Emits submit_proposal.
   */
  submitProposal(ctx: Context, input: SubmitProposalInput): Proposal {
    this.validateProposalLengths(input.metadata, input.title, input.summary);
    this.addressBytes(input.proposer, 'proposer');
    this.validateProposalMessages(input.messages);
    const params = this.getParsedParams(ctx);
    const id = this.getNextProposalId(ctx);
    const submitTime = ctx.header.time;
    const depositEndTime = this.endTime(submitTime, params.maxDepositPeriod);
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
      proposer: toBech32(this.prefix, this.addressBytes(input.proposer, 'proposer')),
      expedited: false,
      failedReason: '',
    };
    this.setNextProposalId(ctx, id + 1n);
    this.setProposal(ctx, proposal);
    this.enqueue(ctx, proposal);
    ctx.events.emit('submit_proposal', [
      ['proposal_id', id.toString()],
      ['proposal_proposer', proposal.proposer],
      // the SDK's format: every type URL preceded by a comma
      ['proposal_messages', input.messages.map((m) => `,${m.typeUrl}`).join('')],
    ]);
    return proposal;
  }

  private endTime(start: Timestamp, period: ParsedParams['votingPeriod']): Timestamp {
    try {
      return addDuration(start, period);
    } catch (e) {
      if (e instanceof TimeError) throw errors.invalidRequest.wrap(e.message);
      throw e;
    }
  }

  /** Starts the voting period at the block time (keeper.ActivateVotingPeriod). */
  activateVotingPeriod(ctx: Context, proposal: Proposal): Proposal {
    const params = this.getParsedParams(ctx);
    const start = ctx.header.time;
    const p: Proposal = {
      ...proposal,
      status: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
      votingStartTime: start,
      votingEndTime: this.endTime(start, params.votingPeriod),
    };
    if (proposal.depositEndTime !== undefined) this.store(ctx).delete(queueKey(INACTIVE_QUEUE_PREFIX, proposal.depositEndTime, p.id));
    this.setProposal(ctx, p);
    this.enqueue(ctx, p);
    return p;
  }

  // ---- deposits ----

  /** The SDK's validateInitialDeposit: at least min_initial_deposit_ratio of min_deposit. */
  validateInitialDeposit(params: ParsedParams, deposit: readonly Coin[]): void {
    if (params.minInitialDepositRatio === 0n) return;
    const need = normalizeCoins(params.minDeposit.map((c) => ({ denom: c.denom, amount: decTruncate(decMul(decFromInt(c.amount), params.minInitialDepositRatio)) })));
    if (!isAllGTE(deposit, need)) throw govErrors.minDepositTooSmall.wrap(`was (${coinsToString(deposit)}), need (${coinsToString(need)})`);
  }

  /** Only denoms of min_deposit may be deposited. */
  validateDepositDenom(params: ParsedParams, deposit: readonly Coin[]): void {
    const accepted = params.minDeposit.map((c) => c.denom);
    for (const c of deposit) {
      if (!accepted.includes(c.denom)) {
        throw govErrors.invalidDepositDenom.wrap(`deposited ${c.amount}${c.denom}, but gov accepts only the following denom(s): [${accepted.join(' ')}]`);
      }
    }
  }

  /** A later deposit must reach min_deposit_ratio of min_deposit in at least one denom (the SDK's check). */
  private validateMinDepositRatio(params: ParsedParams, deposit: readonly Coin[]): void {
    if (params.minDepositRatio === 0n) return;
    const thresholds: string[] = [];
    for (const min of params.minDeposit) {
      const threshold = decTruncate(decMul(decFromInt(min.amount), params.minDepositRatio));
      thresholds.push(`${threshold}${min.denom}`);
      const given = deposit.find((c) => c.denom === min.denom);
      if (given !== undefined && given.amount >= threshold) return;
    }
    throw govErrors.minDepositTooSmall.wrap(`received ${coinsToString(deposit)} but need at least one of the following: ${thresholds.join(',')}`);
  }

  /**
   * Adds a deposit (keeper.AddDeposit): moves the coins from the depositor to the gov module account
   * and starts the voting period once the total reaches min_deposit. Returns whether it started.
   * `initial` skips the min_deposit_ratio check, as for a proposal's initial deposit.
   */
  addDeposit(ctx: Context, id: bigint, depositor: string, amount: readonly Coin[], initial = false): boolean {
    const depositorBytes = this.addressBytes(depositor, 'depositor');
    let proposal = this.getProposal(ctx, id);
    if (proposal === undefined) throw govErrors.unknownProposal.wrap(`${id}`);
    if (proposal.status !== ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && proposal.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) {
      throw govErrors.inactiveProposal.wrap(`${id}`);
    }
    const coins = normalizeCoins(amount);
    const params = this.getParsedParams(ctx);
    this.validateDepositDenom(params, coins);
    if (!initial) this.validateMinDepositRatio(params, coins);
    if (coins.length > 0) this.bank.sendCoinsFromAccountToModule(ctx, depositorBytes, GOV_MODULE_NAME, coins);
    const total = addCoins(fromProtoCoins(proposal.totalDeposit), coins);
    proposal = { ...proposal, totalDeposit: toProtoCoins(total) };
    this.setProposal(ctx, proposal);
    let started = false;
    if (proposal.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && isAllGTE(total, params.minDeposit)) {
      this.activateVotingPeriod(ctx, proposal);
      started = true;
    }
    const canonical = toBech32(this.prefix, depositorBytes);
    const existing = this.getDeposit(ctx, id, canonical);
    const sum = existing === undefined ? coins : addCoins(fromProtoCoins(existing.amount), coins);
    this.setDeposit(ctx, { proposalId: id, depositor: canonical, amount: toProtoCoins(sum) });
    ctx.events.emit('proposal_deposit', [
      ['amount', coinsToString(coins)],
      ['proposal_id', id.toString()],
      ['depositor', canonical],
    ]);
    return started;
  }

  getDeposit(ctx: Context, id: bigint, depositor: string): Deposit | undefined {
    const v = this.store(ctx).get(depositKey(id, this.addressBytes(depositor, 'depositor')));
    return v === undefined ? undefined : Deposit.decode(v);
  }

  setDeposit(ctx: Context, d: Deposit): void {
    this.store(ctx).set(depositKey(d.proposalId, this.addressBytes(d.depositor, 'depositor')), Deposit.encode(d).finish());
  }

  /** A proposal's deposits in depositor-address byte order. */
  getDeposits(ctx: Context, id: bigint): Deposit[] {
    const prefix = depositsPrefix(id);
    return [...this.store(ctx).iterator(prefix, prefixEnd(prefix))].map((e) => Deposit.decode(e.value));
  }

  /** Every deposit, by proposal id then depositor. */
  getAllDeposits(ctx: Context): Deposit[] {
    return [...this.store(ctx).iterator(DEPOSITS_PREFIX, prefixEnd(DEPOSITS_PREFIX))].map((e) => Deposit.decode(e.value));
  }

  /** Returns every deposit of a proposal to its depositor and deletes them. */
  refundAndDeleteDeposits(ctx: Context, id: bigint): void {
    for (const d of this.getDeposits(ctx, id)) {
      const coins = fromProtoCoins(d.amount);
      // a deposit the gov account made itself (a proposal message) is already where it would go
      if (coins.length > 0 && !this.isAuthority(d.depositor)) this.bank.sendCoinsFromModuleToAccount(ctx, GOV_MODULE_NAME, d.depositor, coins);
      this.store(ctx).delete(depositKey(id, this.addressBytes(d.depositor, 'depositor')));
    }
  }

  /** Burns every deposit of a proposal from the gov module account and deletes them. */
  deleteAndBurnDeposits(ctx: Context, id: bigint): void {
    let total: Coin[] = [];
    for (const d of this.getDeposits(ctx, id)) {
      total = addCoins(total, fromProtoCoins(d.amount));
      this.store(ctx).delete(depositKey(id, this.addressBytes(d.depositor, 'depositor')));
    }
    if (total.length > 0) this.bank.burnCoins(ctx, GOV_MODULE_NAME, total);
  }

  /**
   * Refunds or burns in a branch: if that fails (the gov account no longer holds the deposits) the
   * failure is logged and emitted, never allowed to halt the chain, and the deposits stay recorded.
   */
  private settleDeposits(ctx: Context, id: bigint, burn: boolean): void {
    const b = ctx.branch();
    try {
      if (burn) this.deleteAndBurnDeposits(b.ctx, id);
      else this.refundAndDeleteDeposits(b.ctx, id);
      b.write();
    } catch (e) {
      ctx.logger.error('failed to refund or burn deposits', { module: GOV_MODULE_NAME, proposal: id.toString(), error: messageOf(e) });
      ctx.events.emit('proposal_deposit', [
        ['proposal_id', id.toString()],
        ['proposal_deposit_error', 'failed to refund or burn deposits'],
        ['error', messageOf(e)],
      ]);
    }
  }

  // ---- votes ----

  /** Records (or replaces) a vote; only proposals in their voting period take votes. Emits proposal_vote. */
  addVote(ctx: Context, id: bigint, voter: string, options: readonly WeightedVoteOption[], metadata: string): void {
    const voterBytes = this.addressBytes(voter, 'voter');
    const proposal = this.getProposal(ctx, id);
    if (proposal === undefined || proposal.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) throw govErrors.inactiveProposal.wrap(`${id}`);
    this.assertMetadataLength(metadata);
    const checked = validateVoteOptions(options);
    const canonical = toBech32(this.prefix, voterBytes);
    this.store(ctx).set(voteKey(id, voterBytes), Vote.encode({ proposalId: id, voter: canonical, options: checked, metadata }).finish());
    ctx.events.emit('proposal_vote', [
      ['voter', canonical],
      // the SDK's WeightedVoteOptions.String: JSON with numeric options
      ['option', JSON.stringify(checked.map((o) => ({ option: o.option, weight: o.weight })))],
      ['proposal_id', id.toString()],
    ]);
  }

  getVote(ctx: Context, id: bigint, voter: string): Vote | undefined {
    const v = this.store(ctx).get(voteKey(id, this.addressBytes(voter, 'voter')));
    return v === undefined ? undefined : Vote.decode(v);
  }

  setVote(ctx: Context, v: Vote): void {
    this.store(ctx).set(voteKey(v.proposalId, this.addressBytes(v.voter, 'voter')), Vote.encode(v).finish());
  }

  /** A proposal's votes in voter-address byte order. */
  getVotes(ctx: Context, id: bigint): Vote[] {
    const prefix = votesPrefix(id);
    return [...this.store(ctx).iterator(prefix, prefixEnd(prefix))].map((e) => Vote.decode(e.value));
  }

  getAllVotes(ctx: Context): Vote[] {
    return [...this.store(ctx).iterator(VOTES_PREFIX, prefixEnd(VOTES_PREFIX))].map((e) => Vote.decode(e.value));
  }

  deleteVotes(ctx: Context, id: bigint): void {
    const prefix = votesPrefix(id);
    const store = this.store(ctx);
    for (const key of [...store.iterator(prefix, prefixEnd(prefix))].map((e) => e.key)) store.delete(key);
  }

  // ---- tally and end block ----

  /** The tally of a proposal's current votes against the validators' current power (read-only). */
  tally(ctx: Context, proposal: Proposal): TallyOutcome {
    const powers = new Map<string, bigint>();
    let total = 0n;
    for (const [address, power] of this.votingPower(ctx)) {
      let key: string;
      try {
        key = toHex(fromBech32(address).data);
      } catch (e) {
        throw errors.logic.wrap(`voting power of an invalid address "${address}": ${messageOf(e)}`);
      }
      if (power <= 0n) continue;
      powers.set(key, (powers.get(key) ?? 0n) + power);
      total += power;
    }
    return tally({
      votes: this.getVotes(ctx, proposal.id),
      powerOf: (voter) => powers.get(toHex(fromBech32(voter).data)) ?? 0n,
      totalPower: total,
      params: this.getParsedParams(ctx),
    });
  }

  /** Queue entries at or before the block time, collected before any of them is processed. */
  private due(ctx: Context, prefix: Uint8Array): { key: Uint8Array; id: bigint }[] {
    return [...this.store(ctx).iterator(prefix, queueEndAt(prefix, ctx.header.time))].map((e) => ({ key: e.key, id: readU64be(e.value) }));
  }

  /**
   * EndBlock: drops proposals whose deposit period ended short of min_deposit (refunding), then
   * tallies those whose voting period ended, in (end time, id) order, and executes the passed ones.
   */
  endBlocker(ctx: Context): void {
    const params = this.getParsedParams(ctx);
    for (const { key, id } of this.due(ctx, INACTIVE_QUEUE_PREFIX)) {
      this.store(ctx).delete(key);
      const proposal = this.getProposal(ctx, id);
      if (proposal === undefined) continue;
      this.deleteProposal(ctx, id);
      this.settleDeposits(ctx, id, params.burnProposalDepositPrevote);
      ctx.events.emit('inactive_proposal', [
        ['proposal_id', id.toString()],
        ['proposal_result', 'proposal_dropped'],
      ]);
      ctx.logger.info('proposal did not meet minimum deposit; deleted', {
        module: GOV_MODULE_NAME,
        proposal: id.toString(),
        title: proposal.title,
        min_deposit: coinsToString(params.minDeposit),
        total_deposit: coinsToString(fromProtoCoins(proposal.totalDeposit)),
      });
    }
    for (const { key, id } of this.due(ctx, ACTIVE_QUEUE_PREFIX)) {
      this.store(ctx).delete(key);
      const proposal = this.getProposal(ctx, id);
      if (proposal === undefined || proposal.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) continue;
      this.finishVoting(ctx, proposal);
    }
  }

  private finishVoting(ctx: Context, proposal: Proposal): void {
    const id = proposal.id;
    const outcome = this.tally(ctx, proposal);
    this.deleteVotes(ctx, id);
    this.settleDeposits(ctx, id, outcome.burnDeposits);
    let status: ProposalStatus;
    let failedReason = '';
    let result: string;
    let logMsg: string;
    if (outcome.passes) {
      const run = this.execute(ctx, proposal);
      if (run === undefined) {
        status = ProposalStatus.PROPOSAL_STATUS_PASSED;
        result = 'proposal_passed';
        logMsg = 'passed';
      } else {
        status = ProposalStatus.PROPOSAL_STATUS_FAILED;
        failedReason = run.error;
        result = 'proposal_failed';
        logMsg = `passed, but msg ${run.index} (${run.typeUrl}) failed on execution: ${run.error}`;
      }
    } else {
      status = ProposalStatus.PROPOSAL_STATUS_REJECTED;
      failedReason = 'proposal did not get enough votes to pass';
      result = 'proposal_rejected';
      logMsg = 'rejected';
    }
    // re-read: a message of the proposal may have touched it (a deposit, say)
    const latest = this.getProposal(ctx, id) ?? proposal;
    this.setProposal(ctx, { ...latest, status, failedReason, finalTallyResult: outcome.result });
    ctx.logger.info('proposal tallied', { module: GOV_MODULE_NAME, proposal: id.toString(), status: proposalStatusToJSON(status), title: proposal.title, results: logMsg });
    ctx.events.emit('active_proposal', [
      ['proposal_id', id.toString()],
      ['proposal_result', result],
      ['proposal_log', logMsg],
    ]);
  }

  /**
   * Runs a passed proposal's messages in order through the router, all in one branch of the block:
   * written only if every one succeeds. Returns the first failure, undefined on success.
   */
  private execute(ctx: Context, proposal: Proposal): { index: number; typeUrl: string; error: string } | undefined {
    const router = this.msgRouter;
    const b = ctx.branch();
    for (const [index, any] of proposal.messages.entries()) {
      try {
        const { route, msg } = router.decode(any);
        router.execute(b.ctx, route, msg);
      } catch (e) {
        const error = e instanceof CodedError ? e.message : `handling proposal message ${any.typeUrl} threw: ${messageOf(e)}`;
        return { index, typeUrl: any.typeUrl, error };
      }
    }
    b.write();
    return undefined;
  }
}
