import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';

/**
 * store hash at H = sha256(hash at H-1 ‖ sha256(canonical encoding of the sorted changes at H)), where a
 * change encodes as u32(len key) ‖ key ‖ 0x00 for a delete, or ‖ 0x01 ‖ u32(len value) ‖ value for a set.
 */
export function nextStoreHash(prev: Uint8Array, changes: ChangeSource): Uint8Array {
  // sha256(u32 count ‖ per change: u32 key length, u8 1 (value) or 0 (delete), u32 value length ‖ the keys
  // concatenated ‖ the values concatenated), all in byte order of key: the lengths make it unambiguous, and
  // a migration's write set hashes its arenas as they are, with no per-key copy
  const { n, lengths, keys, values } = changes.hashParts();
  const count = Buffer.allocUnsafe(4);
  count.writeUInt32BE(n);
  const inner = createHash('sha256').update(count).update(lengths).update(keys).update(values).digest();
  return createHash('sha256').update(prev).update(inner).digest();
}

/** Pending changes in byte order of key (a CacheKVStore is one). */
export interface ChangeSource {
  hashParts(): { readonly n: number; readonly lengths: Uint8Array; readonly keys: Uint8Array; readonly values: Uint8Array };
}

/** app hash = sha256 over the (name, store hash) pairs in byte order of name */
export function appHashOf(registry: ReadonlyMap<string, { readonly hash: Uint8Array }>): Uint8Array {
  const h = createHash('sha256');
  const names = [...registry.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const len = Buffer.alloc(4);
  for (const name of names) {
    const n = Buffer.from(name, 'utf8');
    const hash = (registry.get(name) as { readonly hash: Uint8Array }).hash;
    len.writeUInt32BE(n.length);
    h.update(len).update(n);
    len.writeUInt32BE(hash.byteLength);
    h.update(len).update(hash);
  }
  return h.digest();
}
