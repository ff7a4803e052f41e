// Byte helpers shared by the store. Keys are compared as unsigned bytes (LMDB's order).
import { Buffer } from 'node:buffer';

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Whether two short byte strings are equal: a loop (from the end, where store keys differ), no native call. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * 53 bits of `b[at, at + 7)` as a Number: a Map key for bytes that are uniformly spread (a signature,
 * a public key's x coordinate) with no string made per lookup. A hit must still compare the bytes.
 */
export function bytesNumber53(b: Uint8Array, at: number): number {
  return (((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0) * 0x200000 + ((b[at + 4] << 13) | (b[at + 5] << 5) | (b[at + 6] >>> 3));
}

/**
 * Small byte arrays as views of a shared slab, as Buffer's pool and cosmjs-types' writer do: a fresh
 * Uint8Array above 64 bytes costs an allocator call (~0.7 µs), a view of a slab ~20 ns. The arrays
 * are plain Uint8Arrays; like pooled Buffers, their `.buffer` is shared.
 */
const SLAB_SIZE = 16 * 1024;
let slab = new ArrayBuffer(SLAB_SIZE);
let slabOffset = 0;

export function allocBytes(n: number): Uint8Array {
  if (n > SLAB_SIZE >>> 2) return new Uint8Array(n);
  if (slabOffset + n > SLAB_SIZE) {
    slab = new ArrayBuffer(SLAB_SIZE);
    slabOffset = 0;
  }
  const out = new Uint8Array(slab, slabOffset, n);
  slabOffset = (slabOffset + n + 7) & ~7;
  return out;
}

/**
 * A copy of `b` (a slab view: see `allocBytes`). For copies kept about as long as what was allocated
 * around them: one kept alone keeps its whole slab.
 */
export function copyBytes(b: Uint8Array): Uint8Array {
  const c = allocBytes(b.byteLength);
  c.set(b);
  return c;
}

/**
 * Copies src[start, end) into dst at `at`; returns the length. Short ranges by a loop: Buffer#copy makes
 * a view per call, which costs more than copying a key.
 */
export function copyRange(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number): number {
  const n = end - start;
  if (n > 64) dst.set(src.subarray(start, end), at);
  else for (let i = 0; i < n; i++) dst[at + i] = src[start + i];
  return n;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** Latin-1 strings compare in the same order as the bytes they encode, so they serve as Map keys and sort keys. */
export function bytesToKey(b: Uint8Array): string {
  // most keys already are Buffers (LMDB's, the callers'): no view to make first
  return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('latin1');
}

export function u64be(n: bigint): Uint8Array {
  if (n < 0n || n > 0xffffffffffffffffn) throw new RangeError(`uint64 out of range: ${n}`);
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

export function readU64be(b: Uint8Array): bigint {
  if (b.byteLength !== 8) throw new RangeError(`expected 8 bytes for a uint64, got ${b.byteLength}`);
  return Buffer.from(b.buffer, b.byteOffset, 8).readBigUInt64BE(0);
}

/** The smallest key greater than every key with this prefix; undefined when there is none (all 0xff). */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] !== 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}

export function utf8(s: string): Uint8Array {
  return Buffer.from(s, 'utf8');
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}
