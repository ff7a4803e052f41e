// Accounts as cosmos.auth.v1beta1: BaseAccount or ModuleAccount, stored packed in an Any.
import { BaseAccount, ModuleAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { errors } from '../../app/errors.ts';
import { anySize, readAny, writeAny } from '../../codec/tx.ts';
import { asciiLength, fastOr, lenFieldSize, NotFast, u64Size, WireReader, WireWriter } from '../../codec/wire.ts';

export const BASE_ACCOUNT_TYPE_URL = '/cosmos.auth.v1beta1.BaseAccount';
export const MODULE_ACCOUNT_TYPE_URL = '/cosmos.auth.v1beta1.ModuleAccount';

export interface ModuleAccountInfo {
  readonly name: string;
  readonly permissions: readonly string[];
}

export interface Account {
  readonly address: string;
  /** Packed public key; unset until the account's first signed tx (or genesis). */
  readonly pubKey: Any | undefined;
  readonly accountNumber: bigint;
  readonly sequence: bigint;
  /** Set for module accounts. */
  readonly module?: ModuleAccountInfo;
}

function baseAccount(acc: Account): BaseAccount {
  return { address: acc.address, pubKey: acc.pubKey, accountNumber: acc.accountNumber, sequence: acc.sequence };
}

export function accountToAny(acc: Account): Any {
  if (acc.module !== undefined) {
    const m: ModuleAccount = { baseAccount: baseAccount(acc), name: acc.module.name, permissions: [...acc.module.permissions] };
    return { typeUrl: MODULE_ACCOUNT_TYPE_URL, value: ModuleAccount.encode(m).finish() };
  }
  return { typeUrl: BASE_ACCOUNT_TYPE_URL, value: BaseAccount.encode(baseAccount(acc)).finish() };
}

export function accountFromAny(any: Any): Account {
  try {
    if (any.typeUrl === BASE_ACCOUNT_TYPE_URL) {
      const b = BaseAccount.decode(any.value);
      return { address: b.address, pubKey: b.pubKey, accountNumber: b.accountNumber, sequence: b.sequence };
    }
    if (any.typeUrl === MODULE_ACCOUNT_TYPE_URL) {
      const m = ModuleAccount.decode(any.value);
      const b = m.baseAccount ?? BaseAccount.fromPartial({});
      return { address: b.address, pubKey: b.pubKey, accountNumber: b.accountNumber, sequence: b.sequence, module: { name: m.name, permissions: m.permissions } };
    }
  } catch (e) {
    throw errors.unpackAny.wrap(`cannot decode ${any.typeUrl}: ${(e as Error).message}`);
  }
  throw errors.unpackAny.wrap(`unsupported account type ${any.typeUrl}`);
}

const BASE_URL_LENGTH = BASE_ACCOUNT_TYPE_URL.length;

/** Size of BaseAccount{address, pub_key, account_number, sequence}, as BaseAccount.encode writes it. */
function baseAccountSize(acc: Account): number {
  const a = asciiLength(acc.address);
  let n = a === 0 ? 0 : lenFieldSize(a);
  if (acc.pubKey !== undefined) n += lenFieldSize(anySize(acc.pubKey));
  if (acc.accountNumber !== 0n) n += 1 + u64Size(acc.accountNumber);
  if (acc.sequence !== 0n) n += 1 + u64Size(acc.sequence);
  return n;
}

/** Any{BASE_ACCOUNT_TYPE_URL, BaseAccount}: the bytes of every user account, written in one go. */
function fastEncodeBaseAccount(acc: Account): Uint8Array {
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

const slowEncodeAccount = (acc: Account): Uint8Array => Any.encode(accountToAny(acc)).finish();

/** Stored bytes of an account: the encoded Any. */
export function encodeAccount(acc: Account): Uint8Array {
  if (acc.module !== undefined) return slowEncodeAccount(acc);
  return fastOr(fastEncodeBaseAccount, slowEncodeAccount, acc);
}

const notFast = new NotFast('not on the fast path');

/** A stored BaseAccount; anything else (module accounts, odd encodings) goes through cosmjs-types. */
function fastDecodeBaseAccount(bytes: Uint8Array): Account {
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

const slowDecodeAccount = (bytes: Uint8Array): Account => accountFromAny(Any.decode(bytes));

export function decodeAccount(bytes: Uint8Array): Account {
  return fastOr(fastDecodeBaseAccount, slowDecodeAccount, bytes);
}
