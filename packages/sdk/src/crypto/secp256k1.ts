// secp256k1 keys and Cosmos "direct" signatures, on the native libsecp256k1 binding.
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import type * as Secp256k1 from 'secp256k1';
import { hash } from 'node:crypto';

/**
 * The 32 bytes a SIGN_MODE_DIRECT signature signs: sha256 of the sign bytes (OpenSSL's, in one call with
 * no Hash object: several times faster than the pure-JS one on a sign doc).
 */
export function signBytesDigest(signBytes: Uint8Array): Uint8Array {
  return hash('sha256', signBytes, 'buffer');
}

type Secp256k1Api = typeof Secp256k1;

const require = createRequire(import.meta.url);

/**
 * The `secp256k1` package's own entry silently falls back to its pure-JS (elliptic) build when the
 * prebuilt addon fails to load; we load the same way but record which one we got so it can be reported.
 */
function loadSecp256k1(): { api: Secp256k1Api; impl: 'native' | 'elliptic' } {
  try {
    return { api: require('secp256k1/bindings') as Secp256k1Api, impl: 'native' };
  } catch {
    return { api: require('secp256k1/elliptic') as Secp256k1Api, impl: 'elliptic' };
  }
}

// loaded at first use: a command that neither signs nor verifies (a query, `version`) does not load the addon
let loaded: { api: Secp256k1Api; impl: 'native' | 'elliptic' } | undefined;
const lib = (): { api: Secp256k1Api; impl: 'native' | 'elliptic' } => (loaded ??= loadSecp256k1());

/** Which secp256k1 implementation is in use: the native libsecp256k1 addon, or the package's JS fallback. */
export function secp256k1Implementation(): 'native' | 'elliptic' {
  return lib().impl;
}

/** Group order n and n/2 (big-endian): signatures with s > n/2 are malleable and rejected, as in the Cosmos SDK. */
const CURVE_N = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const HALF_N = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');
const ZERO_32 = Buffer.alloc(32);

export const PRIVATE_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 33;
export const SIGNATURE_LENGTH = 64;
/** sha256. */
export const DIGEST_LENGTH = 32;

/** True for 32 bytes encoding a scalar in [1, n-1]. */
export function isValidPrivateKey(privateKey: Uint8Array): boolean {
  return privateKey instanceof Uint8Array && privateKey.length === PRIVATE_KEY_LENGTH && lib().api.privateKeyVerify(privateKey);
}

/** The compressed (33-byte) public key of a private key. */
export function publicKeyFromPrivate(privateKey: Uint8Array): Uint8Array {
  if (!isValidPrivateKey(privateKey)) throw new Error('invalid secp256k1 private key: expected 32 bytes in [1, n-1]');
  return lib().api.publicKeyCreate(privateKey, true);
}

/**
 * Cosmos SIGN_MODE_DIRECT signature: 64-byte r‖s over sha256(signDocBytes), RFC6979 nonce, low S
 * (libsecp256k1 always normalizes), so it is byte-identical to CosmJS' DirectSecp256k1HdWallet.
 */
export function signDirect(privateKey: Uint8Array, signDocBytes: Uint8Array): Uint8Array {
  if (!isValidPrivateKey(privateKey)) throw new Error('invalid secp256k1 private key: expected 32 bytes in [1, n-1]');
  return lib().api.ecdsaSign(signBytesDigest(signDocBytes), privateKey).signature;
}

/**
 * The checks of `verifySignature` that need no curve arithmetic: a 33-byte key, a 64-byte r‖s with r in
 * [1, n-1] and s in [1, n/2] (high-S is malleable and refused, as in the Cosmos SDK). Checked here as well
 * as by the backend so the rule never depends on which implementation loaded, or on which thread verifies.
 */
export function isWellFormedSignature(pubkey: Uint8Array, signature: Uint8Array): boolean {
  if (!(pubkey instanceof Uint8Array) || pubkey.length !== PUBLIC_KEY_LENGTH) return false;
  if (!(signature instanceof Uint8Array) || signature.length !== SIGNATURE_LENGTH) return false;
  const sig = Buffer.from(signature.buffer, signature.byteOffset, SIGNATURE_LENGTH);
  const r = sig.subarray(0, 32);
  const s = sig.subarray(32, 64);
  return !r.equals(ZERO_32) && Buffer.compare(r, CURVE_N) < 0 && !s.equals(ZERO_32) && Buffer.compare(s, HALF_N) <= 0;
}

/**
 * Verifies a 64-byte r‖s signature over sha256(signDocBytes) with a compressed public key, as the
 * Cosmos SDK's secp256k1 PubKey.VerifySignature: high-S is rejected. Returns false, never throws,
 * on malformed input (wrong lengths, r or s out of range, a public key not on the curve).
 */
export function verifySignature(pubkey: Uint8Array, signDocBytes: Uint8Array, signature: Uint8Array): boolean {
  return signDocBytes instanceof Uint8Array && verifyDigestSignature(pubkey, signBytesDigest(signDocBytes), signature);
}

/** `verifySignature` given the sign bytes' digest (`signBytesDigest`) rather than the bytes. */
export function verifyDigestSignature(pubkey: Uint8Array, digest: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (!isWellFormedSignature(pubkey, signature) || !(digest instanceof Uint8Array) || digest.length !== DIGEST_LENGTH) return false;
    return lib().api.ecdsaVerify(signature, digest, pubkey);
  } catch {
    return false;
  }
}

/** The module a worker thread loads to verify exactly as this thread does (the native addon or the JS fallback). */
export function secp256k1ModulePath(): string {
  return require.resolve(lib().impl === 'native' ? 'secp256k1/bindings' : 'secp256k1/elliptic');
}
