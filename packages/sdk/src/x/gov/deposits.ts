// Deposits (the SDK's x/gov/keeper/deposit.go): held by the gov module account, by proposal then
// depositor; a proposal whose total reaches min_deposit enters its voting period.
//
// DEPOSITS ARE REFUNDED, NOT BURNED, WHEN A PROPOSAL DIES IN ITS DEPOSIT PERIOD (our choice). A
// proposal that does not reach min_deposit within max_deposit_period is deleted by EndBlock and every
// deposit goes back to its depositor; deposits of passed, rejected and failed proposals are refunded
// too, and only a veto burns them. The SDK burned expired deposits unconditionally up to v0.46; since
// v0.47 the params burn_proposal_deposit_prevote (default false: refund), burn_vote_quorum (false)
// and burn_vote_veto (true) decide, and we honour them, so default params give exactly the above.
import { Deposit, ProposalStatus } from 'cosmjs-types/cosmos/gov/v1/gov';
import type { Context } from '../../app/context.ts';
import { errorMessage } from '../../app/errors.ts';
import { toBech32 } from '../../crypto/index.ts';
import { prefixEnd } from '../../store/index.ts';
import { addCoins, coinsToString, fromProtoCoins, isAllGTE, normalizeCoins, toProtoCoins, type Coin } from '../../types/coins.ts';
import { decFromInt, decMul, decTruncate } from './dec.ts';
import { govErrors } from './errors.ts';
import type { GovKeeper } from './keeper.ts';
import { DEPOSITS_PREFIX, MODULE_NAME, depositKey, depositsPrefix } from './keys.ts';
import type { ParsedParams } from './params.ts';
import { activateVotingPeriod, getProposal, setProposal } from './proposals.ts';

/** The SDK's validateInitialDeposit: at least min_initial_deposit_ratio of min_deposit. */
export function validateInitialDeposit(params: ParsedParams, deposit: readonly Coin[]): void {
  if (params.minInitialDepositRatio === 0n) return;
  const need = normalizeCoins(
    params.minDeposit.map((c) => ({ denom: c.denom, amount: decTruncate(decMul(decFromInt(c.amount), params.minInitialDepositRatio)) })),
  );
  if (!isAllGTE(deposit, need)) throw govErrors.minDepositTooSmall.wrap(`was (${coinsToString(deposit)}), need (${coinsToString(need)})`);
}

/** Only denoms of min_deposit may be deposited. */
export function validateDepositDenom(params: ParsedParams, deposit: readonly Coin[]): void {
  const accepted = params.minDeposit.map((c) => c.denom);
  for (const c of deposit) {
    if (!accepted.includes(c.denom)) {
      throw govErrors.invalidDepositDenom.wrap(`deposited ${c.amount}${c.denom}, but gov accepts only the following denom(s): [${accepted.join(' ')}]`);
    }
  }
}

/** A later deposit must reach min_deposit_ratio of min_deposit in at least one denom (the SDK's check). */
function validateMinDepositRatio(params: ParsedParams, deposit: readonly Coin[]): void {
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
export function addDeposit(ctx: Context, k: GovKeeper, id: bigint, depositor: string, amount: readonly Coin[], initial = false): boolean {
  const depositorBytes = k.addressBytes(depositor, 'depositor');
  let proposal = getProposal(ctx, k, id);
  if (proposal === undefined) throw govErrors.unknownProposal.wrap(`${id}`);
  if (proposal.status !== ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && proposal.status !== ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD) {
    throw govErrors.inactiveProposal.wrap(`${id}`);
  }
  const coins = normalizeCoins(amount);
  const params = k.getParsedParams(ctx);
  validateDepositDenom(params, coins);
  if (!initial) validateMinDepositRatio(params, coins);
  if (coins.length > 0) k.bank.sendCoinsFromAccountToModule(ctx, depositorBytes, MODULE_NAME, coins);
  const total = addCoins(fromProtoCoins(proposal.totalDeposit), coins);
  proposal = { ...proposal, totalDeposit: toProtoCoins(total) };
  setProposal(ctx, k, proposal);
  let started = false;
  if (proposal.status === ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD && isAllGTE(total, params.minDeposit)) {
    activateVotingPeriod(ctx, k, proposal);
    started = true;
  }
  const canonical = toBech32(k.prefix, depositorBytes);
  const existing = getDeposit(ctx, k, id, canonical);
  const sum = existing === undefined ? coins : addCoins(fromProtoCoins(existing.amount), coins);
  setDeposit(ctx, k, { proposalId: id, depositor: canonical, amount: toProtoCoins(sum) });
  ctx.events.emit('proposal_deposit', [
    ['amount', coinsToString(coins)],
    ['proposal_id', id.toString()],
    ['depositor', canonical],
  ]);
  return started;
}

export function getDeposit(ctx: Context, k: GovKeeper, id: bigint, depositor: string): Deposit | undefined {
  const v = k.store(ctx).get(depositKey(id, k.addressBytes(depositor, 'depositor')));
  return v === undefined ? undefined : Deposit.decode(v);
}

export function setDeposit(ctx: Context, k: GovKeeper, d: Deposit): void {
  k.store(ctx).set(depositKey(d.proposalId, k.addressBytes(d.depositor, 'depositor')), Deposit.encode(d).finish());
}

/** A proposal's deposits in depositor-address byte order. */
export function getDeposits(ctx: Context, k: GovKeeper, id: bigint): Deposit[] {
  const prefix = depositsPrefix(id);
  return [...k.store(ctx).iterator(prefix, prefixEnd(prefix))].map((e) => Deposit.decode(e.value));
}

/** Every deposit, by proposal id then depositor. */
export function getAllDeposits(ctx: Context, k: GovKeeper): Deposit[] {
  return [...k.store(ctx).iterator(DEPOSITS_PREFIX, prefixEnd(DEPOSITS_PREFIX))].map((e) => Deposit.decode(e.value));
}

/** Returns every deposit of a proposal to its depositor and deletes them. */
export function refundAndDeleteDeposits(ctx: Context, k: GovKeeper, id: bigint): void {
  for (const d of getDeposits(ctx, k, id)) {
    const coins = fromProtoCoins(d.amount);
    // a deposit the gov account made itself (a proposal message) is already where it would go
    if (coins.length > 0 && !k.isAuthority(d.depositor)) k.bank.sendCoinsFromModuleToAccount(ctx, MODULE_NAME, d.depositor, coins);
    k.store(ctx).delete(depositKey(id, k.addressBytes(d.depositor, 'depositor')));
  }
}

/** Burns every deposit of a proposal from the gov module account and deletes them. */
export function deleteAndBurnDeposits(ctx: Context, k: GovKeeper, id: bigint): void {
  let total: Coin[] = [];
  for (const d of getDeposits(ctx, k, id)) {
    total = addCoins(total, fromProtoCoins(d.amount));
    k.store(ctx).delete(depositKey(id, k.addressBytes(d.depositor, 'depositor')));
  }
  if (total.length > 0) k.bank.burnCoins(ctx, MODULE_NAME, total);
}

/**
 * Refunds or burns in a branch: if that fails (the gov account no longer holds the deposits) the
 * failure is logged and emitted, never allowed to halt the chain, and the deposits stay recorded.
 */
export function settleDeposits(ctx: Context, k: GovKeeper, id: bigint, burn: boolean): void {
  const b = ctx.branch();
  try {
    if (burn) deleteAndBurnDeposits(b.ctx, k, id);
    else refundAndDeleteDeposits(b.ctx, k, id);
    b.write();
  } catch (e) {
    ctx.logger.error('failed to refund or burn deposits', { module: MODULE_NAME, proposal: id.toString(), error: errorMessage(e) });
    ctx.events.emit('proposal_deposit', [
      ['proposal_id', id.toString()],
      ['proposal_deposit_error', 'failed to refund or burn deposits'],
      ['error', errorMessage(e)],
    ]);
  }
}
