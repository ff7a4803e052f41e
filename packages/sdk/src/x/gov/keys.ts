// Store layout of the `gov` store: the Cosmos SDK v0.50 x/gov collections prefixes and key encodings
// (uint64 big-endian ids, raw address bytes, sdk.FormatTimeBytes times), so byte order is the SDK's.
import { concatBytes, prefixEnd, u64be, utf8 } from '../../store/index.ts';
import { sortableTime, type Timestamp } from './time.ts';

export const MODULE_NAME = 'gov';
export const STORE_KEY = 'gov';

/** 0x00 ‖ id → Proposal (cosmos.gov.v1, protobuf). */
export const PROPOSALS_PREFIX = Uint8Array.of(0x00);
/** 0x01 ‖ voting end time ‖ id → id: proposals in their voting period, by end time. */
export const ACTIVE_QUEUE_PREFIX = Uint8Array.of(0x01);
/** 0x02 ‖ deposit end time ‖ id → id: proposals in their deposit period, by end time. */
export const INACTIVE_QUEUE_PREFIX = Uint8Array.of(0x02);
/** The next proposal id (uint64 big-endian). */
export const PROPOSAL_ID_KEY = Uint8Array.of(0x03);
/** 0x10 ‖ id ‖ depositor address bytes → Deposit. */
export const DEPOSITS_PREFIX = Uint8Array.of(0x10);
/** 0x20 ‖ id ‖ voter address bytes → Vote. */
export const VOTES_PREFIX = Uint8Array.of(0x20);
/** Params (cosmos.gov.v1, protobuf). */
export const PARAMS_KEY = Uint8Array.of(0x30);
/** The constitution (UTF-8 text). */
export const CONSTITUTION_KEY = Uint8Array.of(0x31);

export function proposalKey(id: bigint): Uint8Array {
  return concatBytes(PROPOSALS_PREFIX, u64be(id));
}

export function queueKey(prefix: Uint8Array, time: Timestamp, id: bigint): Uint8Array {
  return concatBytes(prefix, utf8(sortableTime(time)), u64be(id));
}

/** The exclusive end of a queue's entries whose time is at or before `time` (the SDK's PrefixUntilPairRange). */
export function queueEndAt(prefix: Uint8Array, time: Timestamp): Uint8Array {
  return prefixEnd(concatBytes(prefix, utf8(sortableTime(time)))) as Uint8Array;
}

export function depositsPrefix(id: bigint): Uint8Array {
  return concatBytes(DEPOSITS_PREFIX, u64be(id));
}

export function depositKey(id: bigint, depositor: Uint8Array): Uint8Array {
  return concatBytes(DEPOSITS_PREFIX, u64be(id), depositor);
}

export function votesPrefix(id: bigint): Uint8Array {
  return concatBytes(VOTES_PREFIX, u64be(id));
}

export function voteKey(id: bigint, voter: Uint8Array): Uint8Array {
  return concatBytes(VOTES_PREFIX, u64be(id), voter);
}
