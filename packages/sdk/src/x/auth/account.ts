// Accounts as cosmos.auth.v1beta1: BaseAccount or ModuleAccount, stored packed in an Any.
import { BaseAccount, ModuleAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { errors } from '../../app/errors.ts';
import { BASE_ACCOUNT_TYPE_URL, decodeBaseAccount, encodeBaseAccount } from '../../codec/index.ts';
import { errorMessage } from '@chaind/errors';

export { BASE_ACCOUNT_TYPE_URL };
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
      return {
        address: b.address,
        pubKey: b.pubKey,
        accountNumber: b.accountNumber,
        sequence: b.sequence,
        module: { name: m.name, permissions: m.permissions },
      };
    }
  } catch (e) {
    throw errors.unpackAny.wrap(`cannot decode ${any.typeUrl}: ${errorMessage(e)}`);
  }
  throw errors.unpackAny.wrap(`unsupported account type ${any.typeUrl}`);
}

/** Stored bytes of an account: the encoded Any. */
export function encodeAccount(acc: Account): Uint8Array {
  if (acc.module !== undefined) return Any.encode(accountToAny(acc)).finish();
  return encodeBaseAccount(acc);
}

export function decodeAccount(bytes: Uint8Array): Account {
  return decodeBaseAccount(bytes) ?? accountFromAny(Any.decode(bytes));
}
