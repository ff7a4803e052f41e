import { Buffer } from 'node:buffer';
import { copyBytes, equalBytes } from '../bytes/index.ts';
import { bytesToKey, compareBytes } from './bytes.ts';
import type { SortedChanges } from './hash.ts';
import { assertValidKey, assertValidValue, StoreError, type Entry, type KVStore, type ReadKVStore } from './types.ts';

/** One pending change: a value, or null for a delete. */
export interface Change {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

function isWritable(s: ReadKVStore): s is KVStore {
  return typeof (s as Partial<KVStore>).set === 'function';
}

/** What `forEachChange` reports: the key is `keys[kStart, kEnd)`, the value `values[vStart, vEnd)`, or a delete when vStart < 0. */
export type ChangeVisitor = (keys: Buffer, kStart: number, kEnd: number, values: Buffer, vStart: number, vEnd: number) => void;

const EMPTY = Buffer.alloc(0);

/**
 * A write set over a parent store: reads fall through to the parent, writes stay here until
 * `write()` pushes them into the parent or the object is dropped. Used for a block's write set
 * (over committed state) and for each transaction's branch (over the block's write set).
 *
 * Pending keys and values are bytes appended to two arenas, found through offsets in number arrays:
 * no object per write, so a million-key write set (a migration) leaves the garbage collector nothing
 * to trace or move. A write set filled in key order is never sorted and needs no lookup table; once a
 * key arrives out of order, latin1 strings of the keys (one char per byte: they sort in byte order)
 * index the slots.
 */
export class CacheKVStore implements KVStore {
  private kb: Buffer = EMPTY;
  private kn = 0;
  private vb: Buffer = EMPTY;
  private vn = 0;
  /** Per slot, in arrival order: key start and end in `kb`; value start (-1: a delete) and end in `vb`. */
  private ks: number[] = [];
  private ke: number[] = [];
  private vs: number[] = [];
  private ve: number[] = [];
  /**
   * latin1 key string → slot, with the strings per slot; built only once a key arrives out of order.
   * While keys arrive ascending, the slots are in key order and a binary search finds one.
   */
  private index: Map<string, number> | null = null;
  private strs: string[] | null = null;
  private ascending = true;
  /** A value was replaced: the value arena holds bytes no longer pending. */
  private overwritten = false;
  /** Otherwise: the slots in byte order of key; rebuilt lazily when a new key arrives. */
  private order: number[] | null = null;
  private changeList: Change[] | null = null;
  /** Bumped on every write, so callers can cache what they derive from the write set. */
  writes = 0;
  /**
   * The last few reads that fell through to a parent write set, valid until it or a write set under it
   * is written: a tx reads the same keys more than once (the fee payer's account and balance) through
   * a branch that never holds them, and each fall-through costs a lookup in the block's large write set.
   */
  private readonly memo: ParentReads | null;

  constructor(readonly parent: ReadKVStore) {
    this.memo = parent instanceof CacheKVStore ? new ParentReads(parent) : null;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const i = this.slotOf(key);
    if (i !== undefined) return this.vs[i] < 0 ? undefined : this.vb.subarray(this.vs[i], this.ve[i]);
    return this.memo === null ? this.parent.get(key) : this.memo.get(key);
  }

  has(key: Uint8Array): boolean {
    const i = this.slotOf(key);
    if (i !== undefined) return this.vs[i] >= 0;
    return this.memo === null ? this.parent.has(key) : this.memo.get(key) !== undefined;
  }

  /** key vs the key of slot j, in byte order (<0, 0, >0). */
  private cmp(key: Uint8Array, j: number): number {
    // a loop, not Buffer#compare: keys are short and mostly differ early, and the native call costs more
    const kb = this.kb;
    const s = this.ks[j];
    const len = this.ke[j] - s;
    const n = key.length < len ? key.length : len;
    for (let i = 0; i < n; i++) {
      const d = key[i] - kb[s + i];
      if (d !== 0) return d;
    }
    return key.length - len;
  }

  private slotOf(key: Uint8Array): number | undefined {
    if (this.index !== null) return this.index.get(bytesToKey(key));
    const n = this.ks.length;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cmp(key, mid) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < n && this.cmp(key, lo) === 0 ? lo : undefined;
  }

  set(key: Uint8Array, value: Uint8Array): void {
    assertValidKey(key);
    assertValidValue(value);
    this.put(key, value);
  }

  delete(key: Uint8Array): void {
    assertValidKey(key);
    this.put(key, null);
  }

  /** Copies `value` (null: a delete) into the arena: callers may reuse their buffers. */
  private put(key: Uint8Array, value: Uint8Array | null): void {
    const n = this.ks.length;
    // above the last key (the common case of an ascending run): new, and the run stays sorted
    const i = this.ascending && (n === 0 || this.cmp(key, n - 1) > 0) ? undefined : this.slotOf(key);
    const vStart = value === null ? -1 : this.append(value);
    if (i === undefined) {
      const kStart = this.appendKey(key);
      if (this.ascending && n > 0 && this.cmp(key, n - 1) <= 0) this.buildIndex();
      this.ks.push(kStart);
      this.ke.push(kStart + key.byteLength);
      this.vs.push(vStart);
      this.ve.push(value === null ? -1 : vStart + value.byteLength);
      if (this.index !== null) {
        const k = this.kb.toString('latin1', kStart, kStart + key.byteLength);
        (this.strs as string[]).push(k);
        this.index.set(k, n);
      }
      this.order = null;
    } else {
      if (this.vs[i] >= 0) this.overwritten = true;
      this.vs[i] = vStart;
      this.ve[i] = value === null ? -1 : vStart + value.byteLength;
    }
    this.changeList = null;
    this.writes++;
  }

  /** Leaves the ascending layout: strings of every key so far, and the index over them. */
  private buildIndex(): void {
    this.ascending = false;
    const strs = this.ks.map((s, j) => this.kb.toString('latin1', s, this.ke[j]));
    this.strs = strs;
    this.index = new Map(strs.map((k, slot) => [k, slot]));
  }

  private appendKey(key: Uint8Array): number {
    const at = this.kn;
    if (at + key.byteLength > this.kb.length) this.kb = grow(this.kb, at, at + key.byteLength);
    this.kb.set(key, at);
    this.kn = at + key.byteLength;
    return at;
  }

  private append(value: Uint8Array): number {
    const at = this.vn;
    if (at + value.byteLength > this.vb.length) this.vb = grow(this.vb, at, at + value.byteLength);
    this.vb.set(value, at);
    this.vn = at + value.byteLength;
    return at;
  }

  // Pending changes are taken when the iterator is made; with none in range the parent's iterator is
  // the answer as it is (a migration iterating a store it has not written yet pays no merge).
  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    const own = this.ks.length === 0 ? [] : this.range(start, end);
    const parent = this.parent.iterator(start, end);
    return own.length === 0 ? parent : merge(parent, own, 1);
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    const own = this.ks.length === 0 ? [] : this.range(start, end).reverse();
    const parent = this.parent.reverseIterator(start, end);
    return own.length === 0 ? parent : merge(parent, own, -1);
  }

  /** The slots in byte order of key, or null when arrival order already is byte order. */
  private sortedSlots(): number[] | null {
    if (this.ascending) return null;
    if (this.order === null) {
      const strs = this.strs as string[];
      this.order = Array.from(strs, (_, i) => i).sort((x, y) => (strs[x] < strs[y] ? -1 : 1));
    }
    return this.order;
  }

  /** Pending changes in [start, end), ascending; keys are copies, values views of the arena (never changed). */
  private range(start?: Uint8Array, end?: Uint8Array): Change[] {
    const slots = this.sortedSlots();
    const n = this.ks.length;
    const slotAt = slots === null ? (j: number): number => j : (j: number): number => slots[j];
    const bound = (b: Uint8Array): number => {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.cmp(b, slotAt(mid)) > 0) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const lo = start === undefined ? 0 : bound(start);
    const hi = end === undefined ? n : bound(end);
    const out: Change[] = new Array(hi - lo);
    for (let j = lo; j < hi; j++) {
      const slot = slotAt(j);
      const vs = this.vs[slot];
      out[j - lo] = {
        key: Uint8Array.prototype.slice.call(this.kb, this.ks[slot], this.ke[slot]),
        value: vs < 0 ? null : this.vb.subarray(vs, this.ve[slot]),
      };
    }
    return out;
  }

  /**
   * Calls `fn` for every pending change in byte order of key, as arena offsets: hashing and commit copy
   * the bytes straight from the arenas, with no per-key buffer or object.
   */
  forEachChange(fn: ChangeVisitor): void {
    const slots = this.sortedSlots();
    const { kb, vb, ks, ke, vs, ve } = this;
    const n = ks.length;
    for (let j = 0; j < n; j++) {
      const i = slots === null ? j : slots[j];
      fn(kb, ks[i], ke[i], vb, vs[i], ve[i]);
    }
  }

  /** The pending changes as the store hash reads them: arena offsets in byte order of key (see SortedChanges). */
  sortedChanges(): SortedChanges {
    const order = this.sortedSlots();
    return {
      keys: this.kb.subarray(0, this.kn),
      values: this.vb.subarray(0, this.vn),
      keyStart: this.ks,
      keyEnd: this.ke,
      valueStart: this.vs,
      valueEnd: this.ve,
      order,
      packed: order === null && !this.overwritten,
    };
  }

  /** Every pending change in byte order of key (cached until the next write). */
  changes(): Change[] {
    if (this.changeList === null) this.changeList = this.range();
    return this.changeList;
  }

  get size(): number {
    return this.ks.length;
  }

  /** Pushes every pending change into the parent store and empties this write set. */
  write(): void {
    const parent = this.parent;
    if (parent instanceof CacheKVStore) {
      // layer to layer in arrival order (an ascending run stays one): bytes copied arena to arena
      const { kb, vb, ks, ke, vs, ve } = this;
      for (let i = 0; i < ks.length; i++) parent.put(kb.subarray(ks[i], ke[i]), vs[i] < 0 ? null : vb.subarray(vs[i], ve[i]));
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
    this.kb = EMPTY;
    this.kn = 0;
    this.vb = EMPTY;
    this.vn = 0;
    this.ks = [];
    this.ke = [];
    this.vs = [];
    this.ve = [];
    this.index = null;
    this.strs = null;
    this.ascending = true;
    this.overwritten = false;
    this.order = null;
    this.changeList = null;
    this.writes++;
  }
}

const PARENT_READS = 4;

/**
 * A few reads of a parent write set: key copies and the values read, dropped when the parent or a write
 * set under it is written (their `writes` only grow, so their sum changes with any write).
 */
class ParentReads {
  private readonly keys: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(PARENT_READS);
  private readonly values: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(PARENT_READS);
  private readonly chain: CacheKVStore[] = [];
  private next = 0;
  private writes: number;

  constructor(private readonly parent: CacheKVStore) {
    for (let s: ReadKVStore = parent; s instanceof CacheKVStore; s = s.parent) this.chain.push(s);
    this.writes = this.stamp();
  }

  private stamp(): number {
    let n = 0;
    for (const s of this.chain) n += s.writes;
    return n;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const w = this.stamp();
    if (w !== this.writes) {
      this.keys.fill(undefined);
      this.writes = w;
    } else {
      for (let j = 0; j < PARENT_READS; j++) {
        const k = this.keys[j];
        if (k !== undefined && equalBytes(k, key)) return this.values[j];
      }
    }
    const v = this.parent.get(key);
    this.keys[this.next] = copyBytes(key);
    this.values[this.next] = v;
    this.next = (this.next + 1) % PARENT_READS;
    return v;
  }
}

/**
 * A larger arena holding the first `used` bytes of `b`. Bytes handed out as views stay where they are
 * (the old arena is only dropped by its last view), so a view never changes.
 */
function grow(b: Buffer, used: number, need: number): Buffer {
  const next = Buffer.allocUnsafe(Math.max(need, b.length * 2, 256));
  b.copy(next, 0, 0, used);
  return next;
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
