import { bytesToKey, compareBytes, copyBytes, keyToBytes } from './bytes.ts';
import { assertValidKey, assertValidValue, StoreError, type Entry, type KVStore, type ReadKVStore } from './types.ts';

/** One pending change: a value, or null for a delete. */
export interface Change {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

function isWritable(s: ReadKVStore): s is KVStore {
  return typeof (s as Partial<KVStore>).set === 'function';
}

/**
 * A write set over a parent store: reads fall through to the parent, writes stay here until
 * `write()` pushes them into the parent or the object is dropped. Used for a block's write set
 * (over committed state) and for each transaction's branch (over the block's write set).
 *
 * Pending changes are kept as latin1 key string → value (null for a delete): the string is the Map
 * key and sorts in byte order, and key bytes are rebuilt from it only when iterated or committed —
 * no per-write key copy or change object, which dominated large write sets.
 */
export class CacheKVStore implements KVStore {
  private readonly pending = new Map<string, Uint8Array | null>();
  /** Pending keys in byte order; rebuilt lazily when a new key arrives. Never mutated once built. */
  private sorted: string[] | null = null;
  private changeList: Change[] | null = null;
  /** Bumped on every write, so callers can cache what they derive from the write set. */
  writes = 0;

  constructor(readonly parent: ReadKVStore) {}

  get(key: Uint8Array): Uint8Array | undefined {
    const v = this.pending.get(bytesToKey(key));
    if (v !== undefined) return v ?? undefined;
    return this.parent.get(key);
  }

  has(key: Uint8Array): boolean {
    const v = this.pending.get(bytesToKey(key));
    if (v !== undefined) return v !== null;
    return this.parent.has(key);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    assertValidKey(key);
    assertValidValue(value);
    // copied: callers may reuse their buffers (Buffer#slice would alias them)
    this.put(bytesToKey(key), copyBytes(value));
  }

  delete(key: Uint8Array): void {
    assertValidKey(key);
    this.put(bytesToKey(key), null);
  }

  /** Values stored here are private copies and never mutated, so layers may share them. */
  private put(k: string, value: Uint8Array | null): void {
    const before = this.pending.size;
    this.pending.set(k, value);
    if (this.pending.size !== before) this.sorted = null;
    this.changeList = null;
    this.writes++;
  }

  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return merge(this.parent.iterator(start, end), this.range(start, end), 1);
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return merge(this.parent.reverseIterator(start, end), this.range(start, end).reverse(), -1);
  }

  /** Pending changes in [start, end), ascending. */
  private range(start?: Uint8Array, end?: Uint8Array): Change[] {
    const keys = this.sortedKeys();
    const lo = start === undefined ? 0 : lowerBound(keys, bytesToKey(start));
    const hi = end === undefined ? keys.length : lowerBound(keys, bytesToKey(end));
    const out: Change[] = new Array(hi - lo);
    for (let i = lo; i < hi; i++) out[i - lo] = { key: keyToBytes(keys[i]), value: this.pending.get(keys[i]) as Uint8Array | null };
    return out;
  }

  private sortedKeys(): string[] {
    if (this.sorted === null) this.sorted = [...this.pending.keys()].sort();
    return this.sorted;
  }

  /** Every pending change in byte order of key (cached until the next write). */
  changes(): Change[] {
    if (this.changeList === null) this.changeList = this.range();
    return this.changeList;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Pushes every pending change into the parent store and empties this write set. */
  write(): void {
    const parent = this.parent;
    if (parent instanceof CacheKVStore) {
      // layer to layer: no key conversion, no copies
      for (const [k, v] of this.pending) parent.put(k, v);
    } else {
      if (!isWritable(parent)) throw new StoreError('cannot write a branch into a read-only parent');
      for (const c of this.changes()) {
        if (c.value === null) parent.delete(c.key);
        else parent.set(c.key, c.value);
      }
    }
    this.reset();
  }

  /** Drops every pending change. */
  reset(): void {
    this.pending.clear();
    this.sorted = null;
    this.changeList = null;
    this.writes++;
  }
}

function lowerBound(keys: string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Merges the parent's entries with pending changes (both in iteration order); pending wins, deletes hide. */
function* merge(parent: Iterator<Entry>, own: Change[], dir: 1 | -1): IterableIterator<Entry> {
  let p = parent.next();
  let i = 0;
  try {
    while (i < own.length || !p.done) {
      const o = i < own.length ? own[i] : undefined;
      const c = o === undefined ? 1 : p.done ? -1 : dir * compareBytes(o.key, p.value.key);
      if (c <= 0 && o !== undefined) {
        if (c === 0) p = parent.next();
        i++;
        if (o.value !== null) yield { key: o.key, value: o.value };
      } else if (!p.done) {
        yield p.value;
        p = parent.next();
      }
    }
  } finally {
    parent.return?.();
  }
}
