// Store layout of the `validators` store.
import { concatBytes } from '../../store/index.ts';

export const MODULE_NAME = 'validators';
export const STORE_KEY = 'validators';

/** 0x01 ‖ operator address bytes → Validator (protobuf, see validator.ts). Iteration is address-byte order. */
export const VALIDATOR_PREFIX = Uint8Array.of(0x01);
/** 0x02 ‖ consensus address (20 bytes) → operator address bytes: one validator per consensus key. */
export const CONS_ADDRESS_PREFIX = Uint8Array.of(0x02);

export function validatorKey(operator: Uint8Array): Uint8Array {
  return concatBytes(VALIDATOR_PREFIX, operator);
}

export function consAddressKey(consAddress: Uint8Array): Uint8Array {
  return concatBytes(CONS_ADDRESS_PREFIX, consAddress);
}
