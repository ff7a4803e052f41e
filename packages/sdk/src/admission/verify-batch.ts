// What the signature pool and its worker threads exchange. A batch is one transferred buffer: per
// triple, key length (u8), key, signature (64 bytes), the sign bytes' digest (32 bytes). The answer:
// one byte per triple, 1 = verified.
import { Buffer } from 'node:buffer';
import { DIGEST_LENGTH, SIGNATURE_LENGTH } from '../crypto/secp256k1.ts';
import type { SignatureTriple } from '../crypto/verified-signatures.ts';

/** What a worker is given at its start. */
export interface VerifyWorkerData {
  /** The module it verifies with (its `ecdsaVerify`): the backend its parent thread uses. */
  readonly secp256k1: string;
}

/** The part of the `secp256k1` package's API a worker uses. */
export interface EcdsaVerifier {
  ecdsaVerify(signature: Uint8Array, digest: Uint8Array, pubkey: Uint8Array): boolean;
}

/** The triples of `batch`, packed into one buffer to transfer. */
export function packBatch(batch: readonly { readonly triple: SignatureTriple }[]): ArrayBuffer {
  let size = 4;
  for (const { triple } of batch) size += 1 + triple.pubkey.length + SIGNATURE_LENGTH + DIGEST_LENGTH;
  const ab = new ArrayBuffer(size);
  const b = Buffer.from(ab);
  b.writeUInt32LE(batch.length, 0);
  let o = 4;
  for (const { triple } of batch) {
    b[o] = triple.pubkey.length;
    b.set(triple.pubkey, o + 1);
    o += 1 + triple.pubkey.length;
    b.set(triple.signature, o);
    o += SIGNATURE_LENGTH;
    b.set(triple.digest, o);
    o += DIGEST_LENGTH;
  }
  return ab;
}

/** A worker's answer to a packed batch: each signature verified over its digest; one that throws is not verified. */
export function answerBatch(ab: ArrayBuffer, secp: EcdsaVerifier): Uint8Array<ArrayBuffer> {
  const b = Buffer.from(ab);
  const n = b.readUInt32LE(0);
  const out = new Uint8Array(n);
  let o = 4;
  for (let i = 0; i < n; i++) {
    const kl = b[o];
    const key = b.subarray(o + 1, o + 1 + kl);
    o += 1 + kl;
    const sig = b.subarray(o, o + SIGNATURE_LENGTH);
    o += SIGNATURE_LENGTH;
    const digest = b.subarray(o, o + DIGEST_LENGTH);
    o += DIGEST_LENGTH;
    try {
      out[i] = secp.ecdsaVerify(sig, digest, key) ? 1 : 0;
    } catch {
      out[i] = 0;
    }
  }
  return out;
}
