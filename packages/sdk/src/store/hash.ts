// The store and app hashes: a consensus format. Every node must compute the same bytes, and changing
// them changes every app hash (x/auth/pin.test.ts pins one). A store's hash starts empty (zero bytes)
// when the store is created, changes only in a block that writes to it (nextStoreHash), and the app
// hash covers every store's hash (appHashOf).
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { copyRange } from '../bytes/index.ts';

/**
 * A write set's pending changes as offsets into its arenas (a CacheKVStore is a ChangeSource). Change j
 * in byte order of key is slot i = order === null ? j : order[j]: its key is keys[keyStart[i], keyEnd[i]),
 * its value values[valueStart[i], valueEnd[i]), and valueStart[i] < 0 makes it a delete. `packed`: the
 * arenas hold nothing else than the keys, and the values of the sets, each concatenated in that order.
 */
export interface SortedChanges {
  readonly keys: Uint8Array;
  readonly values: Uint8Array;
  readonly keyStart: readonly number[];
  readonly keyEnd: readonly number[];
  readonly valueStart: readonly number[];
  readonly valueEnd: readonly number[];
  readonly order: readonly number[] | null;
  readonly packed: boolean;
}

export interface ChangeSource {
  sortedChanges(): SortedChanges;
}

/**
 * A store's hash after a block that changed it, from its hash before (`prev`):
 *
 *   sha256(prev ‖ sha256(u32(n) ‖ record_1 ‖ … ‖ record_n ‖ key_1 ‖ … ‖ key_n ‖ value_1 ‖ … ‖ value_m))
 *
 * over the block's n changes in byte order of key, each key once with its final change. record_j is
 * 9 bytes, u32(length of key_j) ‖ u8(1 for a set, 0 for a delete) ‖ u32(length of its value, 0 for a
 * delete); the values are those of the sets only, in the same order. u32 is 4 bytes big-endian.
 */
export function nextStoreHash(prev: Uint8Array, changes: ChangeSource): Uint8Array {
  const { keys, values, keyStart, keyEnd, valueStart, valueEnd, order, packed } = changes.sortedChanges();
  const n = keyStart.length;
  const head = Buffer.allocUnsafe(4 + 9 * n);
  head.writeUInt32BE(n, 0);
  let keyBytes = 0;
  let valueBytes = 0;
  for (let j = 0, o = 4; j < n; j++, o += 9) {
    const i = order === null ? j : order[j];
    const kl = keyEnd[i] - keyStart[i];
    const vl = valueStart[i] < 0 ? 0 : valueEnd[i] - valueStart[i];
    head.writeUInt32BE(kl, o);
    head[o + 4] = valueStart[i] < 0 ? 0 : 1;
    head.writeUInt32BE(vl, o + 5);
    keyBytes += kl;
    valueBytes += vl;
  }
  const inner = createHash('sha256').update(head);
  if (packed) {
    // a write set filled in key order without replacing a value (a migration): its arenas, as they are
    inner.update(keys).update(values);
  } else {
    const k = Buffer.allocUnsafe(keyBytes);
    const v = Buffer.allocUnsafe(valueBytes);
    let ko = 0;
    let vo = 0;
    for (let j = 0; j < n; j++) {
      const i = order === null ? j : order[j];
      ko += copyRange(keys, keyStart[i], keyEnd[i], k, ko);
      if (valueStart[i] >= 0) vo += copyRange(values, valueStart[i], valueEnd[i], v, vo);
    }
    inner.update(k).update(v);
  }
  return createHash('sha256').update(prev).update(inner.digest()).digest();
}

/**
 * The app hash, over every store in byte order of its UTF-8 name:
 *
 *   sha256(u32(length of name_1) ‖ name_1 ‖ u32(length of hash_1) ‖ hash_1 ‖ … for each store)
 *
 * where hash is the store's hash (empty for a store no block has written to). u32 is 4 bytes big-endian.
 */
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
