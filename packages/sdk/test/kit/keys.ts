// Deterministic test keys: account keys (secp256k1) and validator consensus keys (ed25519).
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { addressFromPublicKey, publicKeyFromPrivate } from '@chaind/sdk/crypto';

export interface TestKey {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly address: string;
}

/** A deterministic account key: 32 bytes of `i + 1` (a valid scalar). */
export function testKey(i: number): TestKey {
  const privateKey = new Uint8Array(32).fill(i + 1);
  const publicKey = publicKeyFromPrivate(privateKey);
  return { privateKey, publicKey, address: addressFromPublicKey(publicKey) };
}

/** PKCS#8 DER prefix of a raw 32-byte ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The ed25519 public key (32 bytes) of the seed filled with `i + 1`. */
export function testConsensusKey(i: number): Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.alloc(32, i + 1)]), format: 'der', type: 'pkcs8' });
  // SPKI DER of an ed25519 key is a 12-byte header and the 32 key bytes
  return new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(12));
}
