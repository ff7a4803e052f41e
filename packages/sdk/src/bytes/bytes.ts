// Byte helpers of the hot paths, shared by the store, the codecs and the crypto: a slab allocator for
// small arrays, copies, equality and a number drawn from uniformly spread bytes.

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
 * Uint8Array above 64 bytes costs an allocator call, far more than a view (bench/README.md). The
 * arrays are plain Uint8Arrays; like pooled Buffers, their `.buffer` is shared.
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
