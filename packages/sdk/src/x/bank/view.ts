// Bank's read-only keeper: addresses, balances and supply (the Cosmos SDK's x/bank/keeper/view.go,
// BaseViewKeeper); send.ts and keeper.ts build on it.
import type { Context } from '../../app/context.ts';
import { errors } from '../../app/errors.ts';
import { copyBytes } from '../../bytes/index.ts';
import { DEFAULT_PREFIX, fromBech32, toBech32 } from '../../crypto/index.ts';
import { prefixEnd } from '../../store/index.ts';
import { validateDenom, type Coin } from '../../types/coins.ts';
import { decodeAmount, readBalance, textOf } from './amounts.ts';
import { BALANCES_PREFIX, MAX_ADDRESS_LENGTH, STORE_KEY, SUPPLY_PREFIX, balanceKey, balancesPrefix, supplyKey } from './keys.ts';

/** A bech32 address (with the chain's prefix) or raw address bytes. */
export type AddressLike = string | Uint8Array;

export interface BankViewKeeperOptions {
  /** Bech32 prefix of account addresses; default "chain". */
  readonly prefix?: string;
}

/** Reads balances and supply; writes nothing. */
export class BankViewKeeper {
  readonly prefix: string;

  constructor(opts: BankViewKeeperOptions) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
  }

  /** Raw address bytes; a bech32 string must carry this chain's prefix. */
  addressBytes(address: AddressLike): Uint8Array {
    const bytes = typeof address === 'string' ? fromBech32(address, this.prefix).data : address;
    if (bytes.length === 0) throw errors.invalidAddress.wrap('addresses cannot be empty');
    if (bytes.length > MAX_ADDRESS_LENGTH) throw errors.invalidAddress.wrap(`address max length is ${MAX_ADDRESS_LENGTH}, got ${bytes.length}`);
    return bytes;
  }

  addressString(address: AddressLike): string {
    return toBech32(this.prefix, this.addressBytes(address));
  }

  getBalance(ctx: Context, address: AddressLike, denom: string): Coin {
    validateDenom(denom);
    const addr = this.addressBytes(address);
    return { denom, amount: readBalance(ctx.kvStore(STORE_KEY), balanceKey(addr, denom), denom) };
  }

  /** Every non-zero balance of an address, in denom (byte) order. */
  getAllBalances(ctx: Context, address: AddressLike): Coin[] {
    const prefix = balancesPrefix(this.addressBytes(address));
    const out: Coin[] = [];
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(prefix, prefixEnd(prefix))) {
      const denom = textOf(key.subarray(prefix.length));
      out.push({ denom, amount: decodeAmount(value, `balance of ${denom}`) });
    }
    return out;
  }

  hasBalance(ctx: Context, address: AddressLike, coin: Coin): boolean {
    return this.getBalance(ctx, address, coin.denom).amount >= coin.amount;
  }

  /** Every balance in store order (address length, address, denom); `cb` returns true to stop. */
  iterateAllBalances(ctx: Context, cb: (address: Uint8Array, coin: Coin) => boolean | void): void {
    const start = Uint8Array.of(BALANCES_PREFIX);
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(start, prefixEnd(start))) {
      const len = key[1];
      const address = copyBytes(key.subarray(2, 2 + len));
      const denom = textOf(key.subarray(2 + len));
      if (cb(address, { denom, amount: decodeAmount(value, `balance of ${denom}`) }) === true) return;
    }
  }

  getSupply(ctx: Context, denom: string): Coin {
    validateDenom(denom);
    const v = ctx.kvStore(STORE_KEY).get(supplyKey(denom));
    return { denom, amount: v === undefined ? 0n : decodeAmount(v, `supply of ${denom}`) };
  }

  /** The supply of every denom with a non-zero supply, in denom order. */
  getTotalSupply(ctx: Context): Coin[] {
    const start = Uint8Array.of(SUPPLY_PREFIX);
    const out: Coin[] = [];
    for (const { key, value } of ctx.kvStore(STORE_KEY).iterator(start, prefixEnd(start))) {
      const denom = textOf(key.subarray(1));
      out.push({ denom, amount: decodeAmount(value, `supply of ${denom}`) });
    }
    return out;
  }
}
