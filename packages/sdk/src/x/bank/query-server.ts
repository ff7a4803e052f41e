import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
  QueryParamsRequest,
  QueryParamsResponse,
  QuerySpendableBalanceByDenomRequest,
  QuerySpendableBalanceByDenomResponse,
  QuerySpendableBalancesRequest,
  QuerySpendableBalancesResponse,
  QuerySupplyOfRequest,
  QuerySupplyOfResponse,
  QueryTotalSupplyRequest,
  QueryTotalSupplyResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import type { PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import type { Context } from '../../app/context.ts';
import { unaryMethod } from '../../app/query/index.ts';
import type { QueryRouter, ServiceImpl } from '../../app/router.ts';
import { toProtoCoin, toProtoCoins, validateDenom } from '../../types/coins.ts';
import type { BankSendKeeper } from './send.ts';

/**
 * cosmos.bank.v1beta1.Query in ts-proto's generic-definition shape: cosmjs-types ships only a
 * promise client for this service, no definition object. The methods served so far.
 */
export const BankQueryDefinition = {
  name: 'Query',
  fullName: 'cosmos.bank.v1beta1.Query',
  methods: {
    balance: unaryMethod('Balance', QueryBalanceRequest, QueryBalanceResponse),
    allBalances: unaryMethod('AllBalances', QueryAllBalancesRequest, QueryAllBalancesResponse),
    spendableBalances: unaryMethod('SpendableBalances', QuerySpendableBalancesRequest, QuerySpendableBalancesResponse),
    spendableBalanceByDenom: unaryMethod('SpendableBalanceByDenom', QuerySpendableBalanceByDenomRequest, QuerySpendableBalanceByDenomResponse),
    totalSupply: unaryMethod('TotalSupply', QueryTotalSupplyRequest, QueryTotalSupplyResponse),
    supplyOf: unaryMethod('SupplyOf', QuerySupplyOfRequest, QuerySupplyOfResponse),
    params: unaryMethod('Params', QueryParamsRequest, QueryParamsResponse),
  },
} as const;
export type BankQueryDefinition = typeof BankQueryDefinition;

/** Pagination is not implemented: every result in one page, with its total. */
const onePage = (n: number): PageResponse => ({ nextKey: new Uint8Array(0), total: BigInt(n) });

/** Query handlers (reads only; params are the send keeper's); with no vesting or locks, spendable equals balance. */
export function bankQueryServer(keeper: BankSendKeeper): ServiceImpl<BankQueryDefinition> {
  const balance = (ctx: Context, address: string, denom: string): QueryBalanceResponse => {
    validateDenom(denom);
    return { balance: toProtoCoin(keeper.getBalance(ctx, address, denom)) };
  };
  const all = (ctx: Context, address: string): QueryAllBalancesResponse => {
    const coins = keeper.getAllBalances(ctx, address);
    return { balances: toProtoCoins(coins), pagination: onePage(coins.length) };
  };
  return {
    balance: (ctx, req) => balance(ctx, req.address, req.denom),
    allBalances: (ctx, req) => all(ctx, req.address),
    spendableBalances: (ctx, req) => all(ctx, req.address),
    spendableBalanceByDenom: (ctx, req) => balance(ctx, req.address, req.denom),
    totalSupply: (ctx) => {
      const supply = keeper.getTotalSupply(ctx);
      return { supply: toProtoCoins(supply), pagination: onePage(supply.length) };
    },
    supplyOf: (ctx, req) => ({ amount: toProtoCoin(keeper.getSupply(ctx, req.denom)) }),
    params: (ctx) => ({ params: keeper.getParams(ctx) }),
  };
}

export function registerBankQueryServer(router: QueryRouter, keeper: BankSendKeeper): void {
  router.registerService(BankQueryDefinition, bankQueryServer(keeper));
}
