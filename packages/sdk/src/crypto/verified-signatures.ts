// Signatures known to verify. The node verifies the signatures of an incoming tx ahead of CheckTx
// (admission's worker pool) and remembers here the triples that verified; the ante handler finds them
// and skips the curve arithmetic. A hit needs the exact (public key, sign-bytes digest, signature), so a
// miss only means the ante handler verifies inline: whether a tx is accepted never depends on this cache.
import { Buffer } from 'node:buffer';
import { bytesNumber53 } from '../bytes/index.ts';
import { DIGEST_LENGTH, SIGNATURE_LENGTH } from './secp256k1.ts';

/** A signature, its key and what it signs: the sha256 of the sign bytes (`signBytesDigest`), never the bytes. */
export interface SignatureTriple {
  readonly pubkey: Uint8Array;
  readonly digest: Uint8Array;
  readonly signature: Uint8Array;
}

export interface VerifiedSignaturesOptions {
  /** Most triples remembered (default DEFAULT_VERIFIED_SIGNATURES_CAPACITY). */
  readonly capacity?: number;
  /** Most bytes the remembered triples take together (default DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES). */
  readonly maxBytes?: number;
}

export const DEFAULT_VERIFIED_SIGNATURES_CAPACITY = 65_536;
export const DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES = 16 * 1024 * 1024;

/** Bytes one entry takes besides its key: the Map slot, its number, the Buffer and ArrayBuffer objects and the backing store's header. */
const ENTRY_OVERHEAD = 320;

/**
 * Triples known to verify, found by a number drawn from the signature's first bytes (a lookup makes
 * no string); bounded in count and bytes, the oldest forgotten first. Each entry is one small buffer
 * (key length, signature, key, digest): whatever the size of the tx, an entry is under 200 bytes. Two
 * signatures sharing a number only cost a cache miss: the older entry is replaced, and a hit needs all three parts equal.
 */
export class VerifiedSignatures {
  readonly capacity: number;
  readonly maxBytes: number;
  /** Key length (u8) ‖ signature ‖ public key ‖ digest. */
  private readonly entries = new Map<number, Buffer>();
  private totalBytes = 0;

  constructor(o: VerifiedSignaturesOptions = {}) {
    this.capacity = o.capacity ?? DEFAULT_VERIFIED_SIGNATURES_CAPACITY;
    this.maxBytes = o.maxBytes ?? DEFAULT_VERIFIED_SIGNATURES_MAX_BYTES;
    if (!Number.isSafeInteger(this.capacity) || this.capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${this.capacity}`);
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 1) throw new RangeError(`maxBytes must be a positive integer, got ${this.maxBytes}`);
  }

  /** True when exactly this triple verified before. */
  has(t: SignatureTriple): boolean {
    return this.entryOf(t) !== undefined;
  }

  /** Remembers a triple that verified (callers add nothing else: a well-formed 64-byte signature). */
  add(t: SignatureTriple): void {
    if (t.signature.length !== SIGNATURE_LENGTH || t.digest.length !== DIGEST_LENGTH || t.pubkey.length > 255) return;
    const k = signatureNumber(t.signature);
    const kl = t.pubkey.length;
    // its own memory, not a slice of Node's shared 8 KiB pool: a kept slice would keep the whole slab,
    // and the other short-lived buffers in it, alive for as long as the entry is remembered
    const e = Buffer.allocUnsafeSlow(1 + SIGNATURE_LENGTH + kl + DIGEST_LENGTH);
    e[0] = kl;
    e.set(t.signature, 1);
    e.set(t.pubkey, 1 + SIGNATURE_LENGTH);
    e.set(t.digest, 1 + SIGNATURE_LENGTH + kl);
    this.drop(k);
    this.entries.set(k, e);
    this.totalBytes += e.length + ENTRY_OVERHEAD;
    while (this.entries.size > this.capacity || this.totalBytes > this.maxBytes) this.drop(this.entries.keys().next().value as number);
  }

  /**
   * True when exactly this triple verified before, and forgets it: for a tx's execution in a block,
   * after which the same signature cannot be of use again (its sequence is spent).
   */
  take(t: SignatureTriple): boolean {
    if (this.entryOf(t) === undefined) return false;
    this.drop(signatureNumber(t.signature));
    return true;
  }

  /** Forgets this triple if it is remembered (a tx refused by CheckTx leaves nothing behind). */
  delete(t: SignatureTriple): void {
    if (this.entryOf(t) !== undefined) this.drop(signatureNumber(t.signature));
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes the remembered triples take, as counted against `maxBytes`. */
  get bytes(): number {
    return this.totalBytes;
  }

  private entryOf(t: SignatureTriple): Buffer | undefined {
    if (t.signature.length !== SIGNATURE_LENGTH || t.digest.length !== DIGEST_LENGTH) return undefined;
    const e = this.entries.get(signatureNumber(t.signature));
    if (e === undefined) return undefined;
    const kl = t.pubkey.length;
    const at = 1 + SIGNATURE_LENGTH + kl;
    const same =
      e.length === at + DIGEST_LENGTH &&
      e[0] === kl &&
      e.compare(t.signature, 0, SIGNATURE_LENGTH, 1, 1 + SIGNATURE_LENGTH) === 0 &&
      e.compare(t.pubkey, 0, kl, 1 + SIGNATURE_LENGTH, at) === 0 &&
      e.compare(t.digest, 0, DIGEST_LENGTH, at, e.length) === 0;
    return same ? e : undefined;
  }

  private drop(k: number): void {
    const e = this.entries.get(k);
    if (e === undefined) return;
    this.entries.delete(k);
    this.totalBytes -= e.length + ENTRY_OVERHEAD;
  }
}

/** 53 bits of r's first 7 bytes: spread uniformly by any signer who did not choose them. */
function signatureNumber(sig: Uint8Array): number {
  return bytesNumber53(sig, 0);
}
