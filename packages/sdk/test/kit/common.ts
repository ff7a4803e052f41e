// What the kit's test apps share: the denom, genesis accounts, account queries and state dumps.
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import type { ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { CommitMultiStore, toHex } from '@chaind/sdk/store';
import { accountFromAny, type Account } from '@chaind/sdk/x/auth';

export const DENOM = 'stake';

/** auth genesis accounts (JSON) of `addresses`: base accounts without a public key, numbered in that order. */
export function genesisAccounts(addresses: readonly string[]): Record<string, unknown>[] {
  return addresses.map((address) => ({ '@type': '/cosmos.auth.v1beta1.BaseAccount', address, pub_key: null, account_number: '0', sequence: '0' }));
}

/** The account at `address` through the auth Account query, or undefined. */
export function queryAccount(query: (path: string, data: Uint8Array) => ResponseQuery, address: string): Account | undefined {
  const r = query('/cosmos.auth.v1beta1.Query/Account', QueryAccountRequest.encode({ address }).finish());
  return r.code !== 0 ? undefined : accountFromAny(QueryAccountResponse.decode(r.value).account as Any);
}

/** Every key and value of the `names` stores (default: all) in committed state, "<store>/<hex key>" → hex value. */
export function dumpStores(store: CommitMultiStore, names?: readonly string[]): Map<string, string> {
  const snap = store.snapshot();
  try {
    const out = new Map<string, string>();
    for (const name of names ?? snap.storeNames()) {
      for (const e of snap.getStore(name).iterator()) out.set(`${name}/${toHex(e.key)}`, toHex(e.value));
    }
    return out;
  } finally {
    snap.release();
  }
}
