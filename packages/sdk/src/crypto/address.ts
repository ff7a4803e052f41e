// Bech32 account addresses, as the Cosmos SDK's: bech32(prefix, ripemd160(sha256(compressed pubkey))).
import { Buffer } from 'node:buffer';
import { bech32 } from '@scure/base';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { errors } from '../app/errors.ts';
import { bytesNumber53 } from '../bytes/index.ts';
import { PUBLIC_KEY_LENGTH } from './secp256k1.ts';
import { errorMessage } from '@chaind/errors';

export const DEFAULT_PREFIX = 'chain';

/** The Cosmos SDK's bech32 length limit (BIP173 says 90, too short for 32-byte module/contract addresses). */
const BECH32_MAX_LENGTH = 1023;

/**
 * Encoded addresses, keyed by prefix and address bytes (latin1): events and responses encode the same
 * few addresses many times per tx. Bounded like the decode cache below; a pure function of its input.
 */
const encodedCache = new Map<string, string>();

export function toBech32(prefix: string, data: Uint8Array): string {
  if (prefix.length === 0) throw errors.invalidAddress.wrap('empty bech32 prefix');
  // the prefix's length first: no two (prefix, data) pairs share a key
  const key = `${prefix.length}:${prefix}${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1')}`;
  const hit = encodedCache.get(key);
  if (hit !== undefined) return hit;
  let s: string;
  try {
    s = bech32.encode(prefix, bech32.toWords(data), BECH32_MAX_LENGTH);
  } catch (e) {
    throw errors.invalidAddress.wrap(`cannot encode bech32 with prefix "${prefix}": ${errorMessage(e)}`);
  }
  if (encodedCache.size >= DECODED_CACHE_MAX) encodedCache.clear();
  encodedCache.set(key, s);
  // an address just encoded is usually decoded next (a signer derived from its key, then read by a keeper)
  if (prefix === prefix.toLowerCase()) {
    if (decodedCache.size >= DECODED_CACHE_MAX) decodedCache.clear();
    decodedCache.set(s, { prefix, data: Uint8Array.prototype.slice.call(data) });
  }
  return s;
}

/**
 * Decoded addresses, since every tx decodes the same few addresses several times (signers, fee
 * payer, keepers). Bounded: cleared when full. A pure function of its input, so safe to cache.
 */
const decodedCache = new Map<string, { prefix: string; data: Uint8Array }>();
const DECODED_CACHE_MAX = 20_000;

/**
 * Decodes a bech32 string; with `expectedPrefix`, a different prefix is an error (an address of
 * another chain must never be accepted as one of ours).
 */
export function fromBech32(address: string, expectedPrefix?: string): { prefix: string; data: Uint8Array } {
  const hit = decodedCache.get(address);
  if (hit !== undefined) {
    if (expectedPrefix !== undefined && hit.prefix !== expectedPrefix) {
      throw errors.invalidAddress.wrap(`invalid bech32 prefix in "${address}": expected "${expectedPrefix}", got "${hit.prefix}"`);
    }
    return { prefix: hit.prefix, data: hit.data.slice() };
  }
  const r = decodeBech32(address, expectedPrefix);
  if (decodedCache.size >= DECODED_CACHE_MAX) decodedCache.clear();
  decodedCache.set(address, { prefix: r.prefix, data: r.data.slice() });
  return r;
}

/**
 * The length of the bytes `address` decodes to, checking it as `fromBech32` does (the same errors):
 * for a validation that keeps nothing, no copy of the bytes.
 */
export function bech32DataLength(address: string, expectedPrefix?: string): number {
  const hit = decodedCache.get(address);
  if (hit === undefined || (expectedPrefix !== undefined && hit.prefix !== expectedPrefix)) return fromBech32(address, expectedPrefix).data.length;
  return hit.data.length;
}

function decodeBech32(address: string, expectedPrefix?: string): { prefix: string; data: Uint8Array } {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(address, BECH32_MAX_LENGTH);
  } catch (e) {
    const msg = errorMessage(e);
    // scure echoes the whole input in its checksum message; keep ours short and uniform.
    const detail = msg.startsWith('Invalid checksum') ? 'invalid checksum' : msg;
    throw errors.invalidAddress.wrap(`decoding bech32 address "${address}" failed: ${detail}`);
  }
  if (expectedPrefix !== undefined && decoded.prefix !== expectedPrefix) {
    throw errors.invalidAddress.wrap(`invalid bech32 prefix in "${address}": expected "${expectedPrefix}", got "${decoded.prefix}"`);
  }
  const data = bech32.fromWordsUnsafe(decoded.words);
  if (data === undefined) throw errors.invalidAddress.wrap(`decoding bech32 address "${address}" failed: invalid padding`);
  return { prefix: decoded.prefix, data };
}

/** The 20-byte account address of a compressed secp256k1 public key: ripemd160(sha256(pubkey)). */
export function rawAddressFromPublicKey(pubkey: Uint8Array): Uint8Array {
  if (pubkey.length !== PUBLIC_KEY_LENGTH || (pubkey[0] !== 2 && pubkey[0] !== 3)) {
    throw errors.invalidPubKey.wrap(`expected a ${PUBLIC_KEY_LENGTH}-byte compressed secp256k1 public key, got ${pubkey.length} bytes`);
  }
  // found by a number from the key's x coordinate (no string per lookup); a hit needs the whole key equal
  const k = bytesNumber53(pubkey, 1);
  const hit = addressCache.get(k);
  if (hit !== undefined && startsWith(hit, pubkey)) return hit.slice(PUBLIC_KEY_LENGTH);
  const addr = ripemd160(sha256(pubkey));
  if (addressCache.size >= DECODED_CACHE_MAX) addressCache.clear();
  const e = new Uint8Array(PUBLIC_KEY_LENGTH + addr.length);
  e.set(pubkey, 0);
  e.set(addr, PUBLIC_KEY_LENGTH);
  addressCache.set(k, e);
  return addr;
}

function startsWith(b: Uint8Array, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix[i]) return false;
  return true;
}
/** Public key → address, for the same reason as the decoded-address cache: each entry is key ‖ address. */
const addressCache = new Map<number, Uint8Array>();

export function addressFromPublicKey(pubkey: Uint8Array, prefix: string = DEFAULT_PREFIX): string {
  return toBech32(prefix, rawAddressFromPublicKey(pubkey));
}

/** A module account's address, as the Cosmos SDK's authtypes.NewModuleAddress: sha256(name)[:20]. */
export function moduleAddress(moduleName: string, prefix: string = DEFAULT_PREFIX): string {
  return toBech32(prefix, sha256(new TextEncoder().encode(moduleName)).subarray(0, 20));
}
