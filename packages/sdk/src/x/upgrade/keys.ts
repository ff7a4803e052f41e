// The spec's persisted state, in the store named `upgrade` (spec §2 "Persisted state").
import { concatBytes, utf8 } from '../../store/index.ts';

export const MODULE_NAME = 'upgrade';
export const STORE_KEY = 'upgrade';

/** 0x0 → the current Plan (protobuf). */
export const PLAN_KEY = Uint8Array.of(0x00);
/** 0x1 ‖ plan name → big-endian uint64 height at which it was done. */
export const DONE_PREFIX = Uint8Array.of(0x01);
/** 0x2 ‖ module name → big-endian uint64 consensus version. */
export const VERSION_MAP_PREFIX = Uint8Array.of(0x02);
/** 0x3 → big-endian uint64 protocol version. */
export const PROTOCOL_VERSION_KEY = Uint8Array.of(0x03);

/** 0x4 ‖ validator consensus address (20 bytes) → ReadinessRecord: its latest attestation for the scheduled plan (chaind's extension). */
export const READINESS_PREFIX = Uint8Array.of(0x04);
/** 0x5 → big-endian uint64 `abci.vote_extensions_enable_height` from genesis (absent: vote extensions off; chaind's extension). */
export const VOTE_EXTENSIONS_HEIGHT_KEY = Uint8Array.of(0x05);

/** 0x6 → Params (protobuf); absent: the defaults, the gate off (chaind's extension). */
export const PARAMS_KEY = Uint8Array.of(0x06);
/** 0x7 → ReadinessDelay: how the readiness gate moved the scheduled plan; absent: it did not (chaind's extension). */
export const READINESS_DELAY_KEY = Uint8Array.of(0x07);

export function readinessKey(consensusAddress: Uint8Array): Uint8Array {
  return concatBytes(READINESS_PREFIX, consensusAddress);
}

export function doneKey(name: string): Uint8Array {
  return concatBytes(DONE_PREFIX, utf8(name));
}

export function versionKey(moduleName: string): Uint8Array {
  return concatBytes(VERSION_MAP_PREFIX, utf8(moduleName));
}

/**
 * The SDK's IBC upgrade state, string keys with the height in decimal, so an IBC module (and its
 * relayers' proofs) can be added later without moving state: `upgradedIBCState/<h>/upgradedClient`.
 */
export const KEY_UPGRADED_IBC_STATE = 'upgradedIBCState';
export const KEY_UPGRADED_CLIENT = 'upgradedClient';
export const KEY_UPGRADED_CONS_STATE = 'upgradedConsState';

export function upgradedClientKey(height: bigint): Uint8Array {
  return utf8(`${KEY_UPGRADED_IBC_STATE}/${height}/${KEY_UPGRADED_CLIENT}`);
}

export function upgradedConsStateKey(height: bigint): Uint8Array {
  return utf8(`${KEY_UPGRADED_IBC_STATE}/${height}/${KEY_UPGRADED_CONS_STATE}`);
}
