// Store layout of the `auth` store, as the Cosmos SDK's x/auth collections prefixes.
import { concatBytes, u64be } from '../../store/index.ts';

export const MODULE_NAME = 'auth';
export const STORE_KEY = 'auth';
/** The module account that collects transaction fees. */
export const FEE_COLLECTOR_NAME = 'fee_collector';

export const PARAMS_KEY = Uint8Array.of(0x00);
/** 0x01 ‖ address bytes → Any(BaseAccount | ModuleAccount). */
export const ACCOUNT_PREFIX = Uint8Array.of(0x01);
/** The next account number (uint64 big-endian). */
export const GLOBAL_ACCOUNT_NUMBER_KEY = Uint8Array.of(0x02);
/** 0x03 ‖ account number (uint64 big-endian) → address bytes. */
export const ACCOUNT_NUMBER_PREFIX = Uint8Array.of(0x03);

export function accountKey(address: Uint8Array): Uint8Array {
  return concatBytes(ACCOUNT_PREFIX, address);
}

export function accountNumberKey(accountNumber: bigint): Uint8Array {
  return concatBytes(ACCOUNT_NUMBER_PREFIX, u64be(accountNumber));
}
