// Store layout of the `bank` store and the module's names (the shape every module's keys.ts has).
import { Buffer } from 'node:buffer';
import { concatBytes, utf8 } from '../../store/index.ts';

export const MODULE_NAME = 'bank';
export const STORE_KEY = 'bank';

/**
 * State layout, byte for byte the Cosmos SDK v0.50's x/bank collections:
 *   0x00 ‖ denom                      → supply of denom
 *   0x02 ‖ len(addr) ‖ addr ‖ denom   → balance of addr in denom
 *   0x04 ‖ denom                      → send enabled for denom: one byte, 0x01 or 0x00
 *   0x05                              → Params, protobuf
 * Amounts are sdk.Int's binary encoding: its canonical decimal digits, no sign, no leading zeros
 * (what math.Int.Marshal writes, and what a protobuf Coin's amount field carries). A zero amount
 * is never stored; its key is deleted, as the SDK does. Addresses are raw bytes, not bech32.
 */
export const SUPPLY_PREFIX = 0x00;
export const BALANCES_PREFIX = 0x02;
export const SEND_ENABLED_PREFIX = 0x04;
export const PARAMS_KEY = Uint8Array.of(0x05);

export const MAX_ADDRESS_LENGTH = 255;

export function supplyKey(denom: string): Uint8Array {
  return concatBytes(Uint8Array.of(SUPPLY_PREFIX), utf8(denom));
}

export function balancesPrefix(address: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(BALANCES_PREFIX, address.length), address);
}

/** 0x02 ‖ len(addr) ‖ addr ‖ denom, built in one buffer (every balance access makes one). */
export function balanceKey(address: Uint8Array, denom: string): Uint8Array {
  const n = address.length;
  const key = Buffer.allocUnsafe(2 + n + Buffer.byteLength(denom, 'utf8'));
  key[0] = BALANCES_PREFIX;
  key[1] = n;
  key.set(address, 2);
  key.write(denom, 2 + n, 'utf8');
  return key;
}

export function sendEnabledKey(denom: string): Uint8Array {
  return concatBytes(Uint8Array.of(SEND_ENABLED_PREFIX), utf8(denom));
}
