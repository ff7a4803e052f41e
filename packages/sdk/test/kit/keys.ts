// Test support (not used by production code): deterministic ed25519 consensus keys.
import { createPrivateKey, createPublicKey } from 'node:crypto';

/** PKCS#8 DER prefix of a raw 32-byte ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The ed25519 public key (32 bytes) of the seed filled with `i + 1`. */
export function testConsensusKey(i: number): Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.alloc(32, i + 1)]), format: 'der', type: 'pkcs8' });
  // SPKI DER of an ed25519 key is a 12-byte header and the 32 key bytes
  return new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(12));
}
