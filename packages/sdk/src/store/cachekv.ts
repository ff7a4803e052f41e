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
 * Pending changes are kept as latin1 key strings (one char per byte: they sort in byte order) with
 * their values in parallel arrays, found through a Map of slots; key bytes are rebuilt only when
 * iterated. No per-write key copy or change object (which dominated large write sets), and a write set
 * filled in key order — a migration — is never sorted and is hashed and committed without a lookup.
 */
export class CacheKVStore implements KVStore {
  /**
   * latin1 key string → its slot in `keys`/`vals`; built only once a key arrives out of order. While
   * keys arrive ascending, `keys` is sorted and a binary search finds a slot: a 1M-entry Map costs
   * about as much as the rest of a migration's writes.
   */
  private index: Map<string, number> | null = null;
  /** Pending keys in arrival order, and their values (null for a delete) in the same slots. */
  private keys: string[] = [];
  private vals: (Uint8Array | null)[] = [];
  /**
   * Whether every new key arrived above the last (a migration iterating its store in order and
   * rewriting it): then arrival order is byte order and nothing needs sorting.
   */
  private ascending = true;
  /** Otherwise: the slots in byte order of key; rebuilt lazily when a new key arrives. */
  private order: number[] | null = null;
  private changeList: Change[] | null = null;
  /** Bumped on every write, so callers can cache what they derive from the write set. */
  writes = 0;

  constructor(readonly parent: ReadKVStore) {}

  get(key: Uint8Array): Uint8Array | undefined {
    const i = this.slotOf(bytesToKey(key));
    if (i !== undefined) return this.vals[i] ?? undefined;
    return this.parent.get(key);
  }

  has(key: Uint8Array): boolean {
    const i = this.slotOf(bytesToKey(key));
    if (i !== undefined) return this.vals[i] !== null;
    return this.parent.has(key);
  }

  private slotOf(k: string): number | undefined {
    if (this.index !== null) return this.index.get(k);
    const keys = this.keys;
    const i = lowerBound((j) => keys[j], keys.length, k);
    return i < keys.length && keys[i] === k ? i : undefined;
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
    const keys = this.keys;
    const n = keys.length;
    // latin1 strings compare as their bytes do: above the last key, it is new and the run stays sorted
    const i = this.ascending && (n === 0 || k > keys[n - 1]) ? undefined : this.slotOf(k);
    if (i === undefined) {
      if (this.ascending && n > 0 && !(k > keys[n - 1])) {
        this.ascending = false;
        this.index = new Map(keys.map((key, slot) => [key, slot]));
      }
      this.index?.set(k, n);
      keys.push(k);
      this.vals.push(value);
      this.order = null;
    } else {
      this.vals[i] = value;
    }
    this.changeList = null;
    this.writes++;
  }

  // Pending changes are taken when the iterator is made; with none in range the parent's iterator is
  // the answer as it is (a migration iterating a store it has not written yet pays no merge).
  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    const own = this.keys.length === 0 ? [] : this.range(start, end);
    const parent = this.parent.iterator(start, end);
    return own.length === 0 ? parent : merge(parent, own, 1);
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    const own = this.keys.length === 0 ? [] : this.range(start, end).reverse();
    const parent = this.parent.reverseIterator(start, end);
    return own.length === 0 ? parent : merge(parent, own, -1);
  }

  /** The slots in byte order of key, or null when arrival order already is byte order. */
  private sortedSlots(): number[] | null {
    if (this.ascending) return null;
    if (this.order === null) {
      const keys = this.keys;
      this.order = Array.from(keys, (_, i) => i).sort((x, y) => (keys[x] < keys[y] ? -1 : 1));
    }
    return this.order;
  }

  /** Pending changes in [start, end), ascending. */
  private range(start?: Uint8Array, end?: Uint8Array): Change[] {
    const slots = this.sortedSlots();
    const keys = this.keys;
    const keyAt = slots === null ? (j: number): string => keys[j] : (j: number): string => keys[slots[j]];
    const n = keys.length;
    const lo = start === undefined ? 0 : lowerBound(keyAt, n, bytesToKey(start));
    const hi = end === undefined ? n : lowerBound(keyAt, n, bytesToKey(end));
    const out: Change[] = new Array(hi - lo);
    for (let j = lo; j < hi; j++) {
      const slot = slots === null ? j : slots[j];
      out[j - lo] = { key: keyToBytes(keys[slot]), value: this.vals[slot] };
    }
    return out;
  }

  /**
   * Calls `fn` for every pending change in byte order of key, the key as its latin1 string (one char
   * per byte): hashing and commit write keys straight from it, with no per-key buffer or object.
   */
  forEachChange(fn: (key: string, value: Uint8Array | null) => void): void {
    const slots = this.sortedSlots();
    const { keys, vals } = this;
    if (slots === null) for (let i = 0; i < keys.length; i++) fn(keys[i], vals[i]);
    else for (const i of slots) fn(keys[i], vals[i]);
  }

  /** Every pending change in byte order of key (cached until the next write). */
  changes(): Change[] {
    if (this.changeList === null) this.changeList = this.range();
    return this.changeList;
  }

  get size(): number {
    return this.keys.length;
  }

  /** Pushes every pending change into the parent store and empties this write set. */
  write(): void {
    const parent = this.parent;
    if (parent instanceof CacheKVStore) {
      // layer to layer: no key conversion, no copies; arrival order kept (an ascending run stays one)
      const { keys, vals } = this;
      for (let i = 0; i < keys.length; i++) parent.put(keys[i], vals[i]);
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
    this.index = null;
    this.keys = [];
    this.vals = [];
    this.ascending = true;
    this.order = null;
    this.changeList = null;
    this.writes++;
  }
}

function lowerBound(keyAt: (j: number) => string, n: number, k: string): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < k) lo = mid + 1;
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
