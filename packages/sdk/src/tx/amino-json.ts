// SIGN_MODE_LEGACY_AMINO_JSON: the sign bytes are the StdSignDoc in the SDK's amino JSON (keys sorted,
// `&<>` escaped), exactly as @cosmjs/amino's `serializeSignDoc` makes them; each message's amino JSON
// is its module's (`MsgRoute.amino`), the rules every module follows are here (x/tx/signing/aminojson).
import { serializeSignDoc, type StdSignDoc } from '@cosmjs/amino';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { errors } from '../app/errors.ts';
import type { AminoMsgJson, MsgRouter } from '../app/router.ts';
import type { DecodedTx } from './decode.ts';

/** A field value before the amino JSON rules: int64/uint64 as bigint, enums as numbers, the rest JSON already. */
export type AminoFieldValue = string | bigint | number | boolean | undefined | readonly unknown[] | object;

function isEmpty(v: AminoFieldValue): boolean {
  if (v === undefined || v === '' || v === 0n || v === 0 || v === false) return true;
  return Array.isArray(v) && v.length === 0;
}

/**
 * A message's fields in amino JSON: a field with its type's zero value is left out (omitempty) unless
 * named in `keep` (the proto's `amino.dont_omitempty`); bigints (int64, uint64) become decimal strings.
 */
export function aminoFields(fields: Readonly<Record<string, AminoFieldValue>>, keep: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (isEmpty(v) && !keep.includes(k)) continue;
    out[k] = typeof v === 'bigint' ? v.toString() : v;
  }
  return out;
}

/** Coins with `amino.encoding = "legacy_coins"`: always an array (`[]` when empty), amount always present. */
export function aminoCoins(coins: readonly Coin[]): Record<string, unknown>[] {
  return coins.map((c) => aminoFields({ denom: c.denom, amount: c.amount }, ['amount']));
}

/** The range of a google.protobuf.Timestamp's seconds: years 0001 to 9999. */
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

/** Go's time.Time in JSON (RFC 3339, fraction without trailing zeros); unset is Go's zero time, as a non-nullable stdtime. */
export function aminoTime(t: { readonly seconds: bigint; readonly nanos: number } | undefined): string {
  if (t === undefined) return '0001-01-01T00:00:00Z';
  if (t.seconds < MIN_SECONDS || t.seconds > MAX_SECONDS || !Number.isInteger(t.nanos) || t.nanos < 0 || t.nanos > 999_999_999) {
    throw errors.invalidRequest.wrap(`timestamp out of range: ${t.seconds}s ${t.nanos}ns`);
  }
  const iso = new Date(Number(t.seconds) * 1000).toISOString().slice(0, 19);
  const frac = t.nanos === 0 ? '' : `.${t.nanos.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${iso}${frac}Z`;
}

/**
 * How deep messages may nest in one message's amino JSON (a proposal's messages are one level): a
 * consensus rule, not a node setting, so that no node's stack decides a tx's fate.
 */
export const MAX_AMINO_MSG_DEPTH = 16;

/** The amino JSON of a routed message: `{type, value}`, refused (code 37) when its module gives it no amino form. */
export function aminoMsg(router: MsgRouter, any: Any, depth = 0): AminoMsgJson {
  if (depth >= MAX_AMINO_MSG_DEPTH) throw errors.invalidRequest.wrap(`messages nested more than ${MAX_AMINO_MSG_DEPTH} deep`);
  const { route, msg } = router.decode(any);
  if (route.amino === undefined) {
    throw errors.notSupported.wrap(`${any.typeUrl} has no amino JSON form; sign it with SIGN_MODE_DIRECT`);
  }
  return { type: route.amino.name, value: route.amino.value(msg, (a) => aminoMsg(router, a, depth + 1)) };
}

/**
 * The StdSignDoc an amino JSON signer signed for `tx`: chain id, account number and sequence, the fee
 * (amount, gas, payer and granter when set), memo, messages, timeout height when set.
 */
export function aminoSignDoc(tx: DecodedTx, router: MsgRouter, chainId: string, accountNumber: bigint, sequence: bigint): StdSignDoc {
  // the SDK's amino JSON handler refuses what its sign doc cannot show
  if (tx.body.nonCriticalExtensionOptions.length > 0) throw errors.notSupported.wrap('SIGN_MODE_LEGACY_AMINO_JSON does not support protobuf extension options');
  const fee = tx.fee;
  return {
    chain_id: chainId,
    account_number: accountNumber.toString(),
    sequence: sequence.toString(),
    fee: {
      amount: aminoCoins(fee.amount) as unknown as StdSignDoc['fee']['amount'],
      gas: fee.gasLimit.toString(),
      ...(fee.payer !== '' && { payer: fee.payer }),
      ...(fee.granter !== '' && { granter: fee.granter }),
    },
    msgs: tx.msgs.map((m) => aminoMsg(router, m)),
    memo: tx.body.memo,
    ...(tx.body.timeoutHeight > 0n && { timeout_height: tx.body.timeoutHeight.toString() }),
  };
}

/** The bytes a SIGN_MODE_LEGACY_AMINO_JSON signer signs (sha256 is applied by the signature scheme). */
export function aminoSignBytes(tx: DecodedTx, router: MsgRouter, chainId: string, accountNumber: bigint, sequence: bigint): Uint8Array {
  return serializeSignDoc(aminoSignDoc(tx, router, chainId, accountNumber, sequence));
}
