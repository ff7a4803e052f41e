// How bank's keepers read and write the values in its store (amounts, denoms in keys), shared by view.ts,
// send.ts and keeper.ts; the byte layout is keys.ts's.
import { Buffer } from 'node:buffer';
import { errors } from '../../app/errors.ts';
import { utf8, type KVStore } from '../../store/index.ts';
import { MAX_AMOUNT } from '../../types/coins.ts';

export function encodeAmount(amount: bigint): Uint8Array {
  return utf8(amount.toString());
}

/** Largest digit count whose value a Number holds exactly (10^15 < 2^53). */
const EXACT_DIGITS = 15;

export function decodeAmount(value: Uint8Array, where: string): bigint {
  // only canonical positive amounts are ever written: [1-9][0-9]*
  const n = value.length;
  let ok = n > 0 && value[0] >= 0x31 && value[0] <= 0x39;
  let exact = 0;
  for (let i = 0; ok && i < n; i++) {
    const d = value[i] - 0x30;
    if (d < 0 || d > 9) ok = false;
    else if (i < EXACT_DIGITS) exact = exact * 10 + d;
  }
  const s = n > EXACT_DIGITS || !ok ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1') : '';
  if (!ok) throw errors.logic.wrap(`corrupt bank state: ${where} holds "${s.slice(0, 100)}"`);
  return n > EXACT_DIGITS ? BigInt(s) : BigInt(exact);
}

/** A denom (or other text) held in a key's tail. */
export const textOf = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** A balance under `key` (a valid denom's), as getBalance reads it. */
export function readBalance(store: KVStore, key: Uint8Array, denom: string): bigint {
  const v = store.get(key);
  return v === undefined ? 0n : decodeAmount(v, `balance of ${denom}`);
}

/** A balance write as setBalance makes it, for a denom already validated. */
export function writeBalance(store: KVStore, key: Uint8Array, denom: string, amount: bigint): void {
  if (amount < 0n || amount > MAX_AMOUNT) throw errors.invalidCoins.wrap(`balance out of range: ${amount}${denom}`);
  if (amount === 0n) store.delete(key);
  else store.set(key, encodeAmount(amount));
}
