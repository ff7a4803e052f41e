// Byte helpers shared by the store. Keys are compared as unsigned bytes (LMDB's order).
import { Buffer } from 'node:buffer';

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
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
