// Signatures known to verify. The node verifies the signatures of an incoming tx ahead of CheckTx
// (admission's worker pool) and remembers here the triples that verified; the ante handler finds them
// and skips the curve arithmetic. A hit needs the exact (public key, sign bytes, signature), so a miss
// only means the ante handler verifies inline: whether a tx is accepted never depends on this cache.
import { Buffer } from 'node:buffer';
import { bytesNumber53 } from '../bytes/index.ts';
import { SIGNATURE_LENGTH } from './secp256k1.ts';

export interface SignatureTriple {
  readonly pubkey: Uint8Array;
  readonly signDoc: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * Triples known to verify, found by a number drawn from the signature's first bytes (a lookup makes
 * no string); bounded, the oldest forgotten first. Each entry is one buffer holding copies of the
 * triple, so a cached triple never pins a whole tx buffer. Two signatures sharing a number only cost
 * a cache miss: the older entry is replaced, and a hit needs all three parts equal.
 */
export class VerifiedSignatures {
  /** Key length (u8) ‖ signature ‖ public key ‖ sign bytes. */
  private readonly entries = new Map<number, Buffer>();

  constructor(readonly capacity = 65_536) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** True when exactly this triple verified before. */
  has(t: SignatureTriple): boolean {
    if (t.signature.length !== SIGNATURE_LENGTH) return false;
    const e = this.entries.get(signatureNumber(t.signature));
    if (e === undefined) return false;
    const kl = t.pubkey.length;
    const at = 1 + SIGNATURE_LENGTH + kl;
    return (
      e.length === at + t.signDoc.length &&
      e[0] === kl &&
      e.compare(t.signature, 0, SIGNATURE_LENGTH, 1, 1 + SIGNATURE_LENGTH) === 0 &&
      e.compare(t.pubkey, 0, kl, 1 + SIGNATURE_LENGTH, at) === 0 &&
      e.compare(t.signDoc, 0, t.signDoc.length, at, e.length) === 0
    );
  }

  /** Remembers a triple that verified (callers add nothing else: a well-formed 64-byte signature). */
  add(t: SignatureTriple): void {
    const k = signatureNumber(t.signature);
    const kl = t.pubkey.length;
    const e = Buffer.allocUnsafe(1 + SIGNATURE_LENGTH + kl + t.signDoc.length);
    e[0] = kl;
    e.set(t.signature, 1);
    e.set(t.pubkey, 1 + SIGNATURE_LENGTH);
    e.set(t.signDoc, 1 + SIGNATURE_LENGTH + kl);
    this.entries.delete(k);
    this.entries.set(k, e);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as number);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** 53 bits of r's first 7 bytes: spread uniformly by any signer who did not choose them. */
function signatureNumber(sig: Uint8Array): number {
  return bytesNumber53(sig, 0);
}
