// cosmos.auth.v1beta1.Query, served through the app's query router.
import {
  AddressBytesToStringRequest,
  AddressBytesToStringResponse,
  AddressStringToBytesRequest,
  AddressStringToBytesResponse,
  Bech32PrefixRequest,
  Bech32PrefixResponse,
  QueryAccountAddressByIDRequest,
  QueryAccountAddressByIDResponse,
  QueryAccountInfoRequest,
  QueryAccountInfoResponse,
  QueryAccountRequest,
  QueryAccountResponse,
  QueryAccountsRequest,
  QueryAccountsResponse,
  QueryModuleAccountByNameRequest,
  QueryModuleAccountByNameResponse,
  QueryModuleAccountsRequest,
  QueryModuleAccountsResponse,
  QueryParamsRequest,
  QueryParamsResponse,
} from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { Any } from 'cosmjs-types/google/protobuf/any';
import type { Context } from '../../app/context.ts';
import { CodedError } from '../../app/errors.ts';
import { grpcError, paginate, unaryMethod } from '../../app/query/index.ts';
import type { ServiceImpl } from '../../app/router.ts';
import { accountToAny, type Account } from './account.ts';
import type { AccountKeeper } from './keeper.ts';
import { ACCOUNT_PREFIX, STORE_KEY } from './keys.ts';

/** ts-proto generic definition of cosmos.auth.v1beta1.Query (cosmjs-types ships only a client). */
export const AuthQueryDefinition = {
  name: 'Query',
  fullName: 'cosmos.auth.v1beta1.Query',
  methods: {
    accounts: unaryMethod('Accounts', QueryAccountsRequest, QueryAccountsResponse),
    account: unaryMethod('Account', QueryAccountRequest, QueryAccountResponse),
    accountAddressByID: unaryMethod('AccountAddressByID', QueryAccountAddressByIDRequest, QueryAccountAddressByIDResponse),
    params: unaryMethod('Params', QueryParamsRequest, QueryParamsResponse),
    moduleAccounts: unaryMethod('ModuleAccounts', QueryModuleAccountsRequest, QueryModuleAccountsResponse),
    moduleAccountByName: unaryMethod('ModuleAccountByName', QueryModuleAccountByNameRequest, QueryModuleAccountByNameResponse),
    bech32Prefix: unaryMethod('Bech32Prefix', Bech32PrefixRequest, Bech32PrefixResponse),
    addressBytesToString: unaryMethod('AddressBytesToString', AddressBytesToStringRequest, AddressBytesToStringResponse),
    addressStringToBytes: unaryMethod('AddressStringToBytes', AddressStringToBytesRequest, AddressStringToBytesResponse),
    accountInfo: unaryMethod('AccountInfo', QueryAccountInfoRequest, QueryAccountInfoResponse),
  },
} as const;

export type AuthQueryDefinition = typeof AuthQueryDefinition;

/** Bad input is InvalidArgument, as the SDK's query server (status.Error(codes.InvalidArgument, …)). */
function addressArg(k: AccountKeeper, address: string): Uint8Array {
  try {
    return k.addressBytes(address);
  } catch (e) {
    throw grpcError('InvalidArgument', e instanceof CodedError ? e.message : String(e));
  }
}

function existing(ctx: Context, k: AccountKeeper, address: string): Account {
  addressArg(k, address);
  const acc = k.getAccount(ctx, address);
  if (acc === undefined) throw grpcError('NotFound', `account ${address} not found`);
  return acc;
}

export function authQueryServer(k: AccountKeeper): ServiceImpl<AuthQueryDefinition> {
  return {
    accounts(ctx, req) {
      const { items, page } = paginate(ctx.kvStore(STORE_KEY), ACCOUNT_PREFIX, req.pagination, (e) => Any.decode(e.value));
      return { accounts: items, pagination: page };
    },
    account(ctx, req) {
      return { account: accountToAny(existing(ctx, k, req.address)) };
    },
    accountAddressByID(ctx, req) {
      // `id` is the deprecated int64 field; account_id wins when set, as in the SDK
      const n = req.accountId !== 0n ? req.accountId : req.id;
      if (n < 0n) throw grpcError('InvalidArgument', 'invalid account number');
      const address = k.addressByAccountNumber(ctx, n);
      if (address === undefined) throw grpcError('NotFound', `account address not found with account number ${n}`);
      return { accountAddress: address };
    },
    params(ctx) {
      return { params: k.getParams(ctx) };
    },
    moduleAccounts(ctx) {
      const accounts: Any[] = [];
      k.iterateAccounts(ctx, (a) => {
        if (a.module !== undefined) accounts.push(accountToAny(a));
      });
      return { accounts };
    },
    moduleAccountByName(ctx, req) {
      if (req.name.trim().length === 0) throw grpcError('InvalidArgument', 'module name is empty');
      const acc = k.getAccount(ctx, k.moduleAddress(req.name));
      if (acc?.module !== undefined) return { account: accountToAny(acc) };
      // a configured module account not created yet is shown as it would be (query writes are discarded)
      if (acc === undefined && Object.hasOwn(k.moduleAccounts, req.name)) return { account: accountToAny(k.getModuleAccount(ctx, req.name)) };
      throw grpcError('NotFound', `account ${req.name} not found`);
    },
    bech32Prefix() {
      return { bech32Prefix: k.prefix };
    },
    addressBytesToString(_ctx, req) {
      if (req.addressBytes.length === 0) throw grpcError('InvalidArgument', 'empty address bytes is not allowed');
      return { addressString: k.addressString(req.addressBytes) };
    },
    addressStringToBytes(_ctx, req) {
      if (req.addressString.trim().length === 0) throw grpcError('InvalidArgument', 'empty address string is not allowed');
      return { addressBytes: addressArg(k, req.addressString) };
    },
    accountInfo(ctx, req) {
      const a = existing(ctx, k, req.address);
      return { info: { address: a.address, pubKey: a.pubKey, accountNumber: a.accountNumber, sequence: a.sequence } };
    },
  };
}
