// Fast codecs for cosmos.auth.v1beta1's stored messages (accounts, params): byte for byte and value for
// value what cosmjs-types gives (codec.test.ts compares them through x/auth).
import { BaseAccount, Params } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { anySize, readAny, writeAny } from './tx.ts';
import { asciiLength, fastOr, lenFieldSize, NotFast, u64Size, WireReader, WireWriter } from './wire.ts';

export const BASE_ACCOUNT_TYPE_URL = '/cosmos.auth.v1beta1.BaseAccount';

/** BaseAccount's fields, as x/auth's accounts carry them. */
export interface BaseAccountFields {
  readonly address: string;
  readonly pubKey: Any | undefined;
  readonly accountNumber: bigint;
  readonly sequence: bigint;
}

const BASE_URL_LENGTH = BASE_ACCOUNT_TYPE_URL.length;

/** Size of BaseAccount{address, pub_key, account_number, sequence}, as BaseAccount.encode writes it. */
function baseAccountSize(acc: BaseAccountFields): number {
  const a = asciiLength(acc.address);
  let n = a === 0 ? 0 : lenFieldSize(a);
  if (acc.pubKey !== undefined) n += lenFieldSize(anySize(acc.pubKey));
  if (acc.accountNumber !== 0n) n += 1 + u64Size(acc.accountNumber);
  if (acc.sequence !== 0n) n += 1 + u64Size(acc.sequence);
  return n;
}

/** Any{BASE_ACCOUNT_TYPE_URL, BaseAccount}: the bytes of every user account, written in one go. */
function fastEncodeBaseAccount(acc: BaseAccountFields): Uint8Array {
  const inner = baseAccountSize(acc);
  const w = new WireWriter(lenFieldSize(BASE_URL_LENGTH) + (inner === 0 ? 0 : lenFieldSize(inner)));
  w.ascii(0x0a, BASE_ACCOUNT_TYPE_URL);
  if (inner > 0) {
    w.lenTag(0x12, inner);
    if (acc.address.length > 0) w.ascii(0x0a, acc.address);
    if (acc.pubKey !== undefined) {
      w.lenTag(0x12, anySize(acc.pubKey));
      writeAny(w, acc.pubKey);
    }
    if (acc.accountNumber !== 0n) {
      w.byte(0x18);
      w.u64(acc.accountNumber);
    }
    if (acc.sequence !== 0n) {
      w.byte(0x20);
      w.u64(acc.sequence);
    }
  }
  return w.finish();
}

function slowEncodeBaseAccount(acc: BaseAccountFields): Uint8Array {
  const value = BaseAccount.encode({ address: acc.address, pubKey: acc.pubKey, accountNumber: acc.accountNumber, sequence: acc.sequence }).finish();
  return Any.encode({ typeUrl: BASE_ACCOUNT_TYPE_URL, value }).finish();
}

/** Any.encode({BASE_ACCOUNT_TYPE_URL, BaseAccount.encode(acc)}).finish(). */
export function encodeBaseAccount(acc: BaseAccountFields): Uint8Array {
  return fastOr(fastEncodeBaseAccount, slowEncodeBaseAccount, acc);
}

const notFast = new NotFast('not on the fast path');

/** A stored BaseAccount; anything else (module accounts, odd encodings) is left to cosmjs-types. */
function fastDecodeBaseAccount(bytes: Uint8Array): BaseAccountFields {
  const any = readAny(WireReader.of(bytes));
  if (any.typeUrl !== BASE_ACCOUNT_TYPE_URL) throw notFast;
  const r = new WireReader(any.value);
  let address = '';
  let pubKey: Any | undefined;
  let accountNumber = 0n;
  let sequence = 0n;
  while (r.next()) {
    if (r.field === 1) address = r.string();
    else if (r.field === 2) pubKey = readAny(r.sub());
    else if (r.field === 3) accountNumber = r.uint64();
    else if (r.field === 4) sequence = r.uint64();
    else r.skip();
  }
  return { address, pubKey, accountNumber, sequence };
}

const noAccount = (): undefined => undefined;

/**
 * The BaseAccount in encoded Any bytes, as cosmjs-types decodes it; undefined for any other type (a
 * module account) or an encoding only cosmjs-types reads: the caller decodes those with cosmjs-types.
 */
export function decodeBaseAccount(bytes: Uint8Array): BaseAccountFields | undefined {
  return fastOr<Uint8Array, BaseAccountFields | undefined>(fastDecodeBaseAccount, noAccount, bytes);
}

/** Params{max_memo_characters, tx_sig_limit, tx_size_cost_per_byte, sig_verify_cost_ed25519, sig_verify_cost_secp256k1}. */
function fastParams(bytes: Uint8Array): Params {
  const r = new WireReader(bytes);
  const p: Params = { maxMemoCharacters: 0n, txSigLimit: 0n, txSizeCostPerByte: 0n, sigVerifyCostEd25519: 0n, sigVerifyCostSecp256k1: 0n };
  while (r.next()) {
    if (r.field === 1) p.maxMemoCharacters = r.uint64();
    else if (r.field === 2) p.txSigLimit = r.uint64();
    else if (r.field === 3) p.txSizeCostPerByte = r.uint64();
    else if (r.field === 4) p.sigVerifyCostEd25519 = r.uint64();
    else if (r.field === 5) p.sigVerifyCostSecp256k1 = r.uint64();
    else r.skip();
  }
  return p;
}

const slowParams = (bytes: Uint8Array): Params => Params.decode(bytes);

/** Params.decode, without its reader's copy (no bytes fields to alias). */
export function decodeAuthParams(bytes: Uint8Array): Params {
  return fastOr(fastParams, slowParams, bytes);
}
