// A validator: operator account, ed25519 consensus key, voting power, moniker. Stored as protobuf:
//   message Validator { string operator_address = 1; bytes consensus_pubkey = 2; int64 power = 3; string moniker = 4; }
// (hand-encoded: no generated type exists; unknown fields are skipped on decode, so fields can be added).
import { Buffer } from 'node:buffer';
import { sha256 } from '@noble/hashes/sha2.js';
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';
import type { ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import { errors } from '../../app/errors.ts';

export const ED25519_PUBKEY_LENGTH = 32;
/** The Cosmos SDK's Any type URL of an ed25519 key (`{"@type": …, "key": base64}` in genesis). */
export const ED25519_PUBKEY_TYPE_URL = '/cosmos.crypto.ed25519.PubKey';
/** CometBFT's amino JSON name of an ed25519 key (`{"type": …, "value": base64}` in its genesis and RPC). */
export const COMETBFT_ED25519_TYPE = 'tendermint/PubKeyEd25519';
/** CometBFT's MaxTotalVotingPower (MaxInt64 / 8): a bound on each power and on their sum. */
export const MAX_TOTAL_VOTING_POWER = ((1n << 63n) - 1n) / 8n;
/** The Cosmos SDK's MaxMonikerLength. */
export const MAX_MONIKER_LENGTH = 70;

export interface Validator {
  /** The operator's account address (bech32 with the chain's prefix). */
  readonly operatorAddress: string;
  /** Raw ed25519 public key, 32 bytes. */
  readonly consensusPubKey: Uint8Array;
  readonly power: bigint;
  readonly moniker: string;
}

/** CometBFT's validator address rule: the first 20 bytes of sha256(ed25519 public key). */
export function consensusAddress(pubKey: Uint8Array): Uint8Array {
  if (pubKey.length !== ED25519_PUBKEY_LENGTH) {
    throw errors.invalidPubKey.wrap(`expected a ${ED25519_PUBKEY_LENGTH}-byte ed25519 public key, got ${pubKey.length} bytes`);
  }
  return sha256(pubKey).subarray(0, 20);
}

/** The consensus address as CometBFT prints it (upper-case hex). */
export function consensusAddressHex(pubKey: Uint8Array): string {
  return Buffer.from(consensusAddress(pubKey)).toString('hex').toUpperCase();
}

export function encodeValidator(v: Validator): Uint8Array {
  const w = BinaryWriter.create();
  if (v.operatorAddress !== '') w.uint32(10).string(v.operatorAddress);
  if (v.consensusPubKey.length > 0) w.uint32(18).bytes(v.consensusPubKey);
  if (v.power !== 0n) w.uint32(24).int64(v.power);
  if (v.moniker !== '') w.uint32(34).string(v.moniker);
  return w.finish();
}

export function decodeValidator(bytes: Uint8Array): Validator {
  const r = new BinaryReader(bytes);
  let operatorAddress = '';
  let consensusPubKey: Uint8Array = new Uint8Array(0);
  let power = 0n;
  let moniker = '';
  while (r.pos < r.len) {
    const tag = r.uint32();
    switch (tag) {
      case 10:
        operatorAddress = r.string();
        break;
      case 18:
        consensusPubKey = r.bytes();
        break;
      case 24:
        power = r.int64();
        break;
      case 34:
        moniker = r.string();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  return { operatorAddress, consensusPubKey, power, moniker };
}

/** The CometBFT ValidatorUpdate of a validator (InitChain, and FinalizeBlock once powers change). */
export function toValidatorUpdate(v: Validator): ValidatorUpdate {
  return { pubKey: { ed25519: v.consensusPubKey }, power: v.power };
}
