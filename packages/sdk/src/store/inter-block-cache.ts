// Committed values kept from block to block, like the Cosmos SDK's inter-block cache: CheckTx, queries
// and pre-verification read the same keys again and again, block after block (a sender's account and
// balance, the fee collector's balance, module params), and each LMDB lookup copies the value out.
// Commit writes through: a cached key the block changed takes its new value, so what is cached is
// always the latest committed state, and a key stays cached while its owner keeps sending.
import { bytesToKey } from './bytes.ts';
import type { ChangeVisitor } from './cachekv.ts';
import type { Entry, ReadKVStore } from './types.ts';

/** Entries kept per store before that store's cache starts over: a bound on memory, not a working-set guess. */
export const INTER_BLOCK_CACHE_ENTRIES = 32_768;
/** Bytes of keys and values kept per store before it starts over (an account takes ~180, a balance ~40). */
export const INTER_BLOCK_CACHE_BYTES = 16 * 1024 * 1024;

export interface InterBlockCacheBounds {
  /** Entries per store; default INTER_BLOCK_CACHE_ENTRIES. */
  readonly maxEntries?: number;
  /** Key and value bytes per store; default INTER_BLOCK_CACHE_BYTES. A larger value is never kept. */
  readonly maxBytes?: number;
}

/** What commit hands the cache: a store's changes, as a write set reports them. */
export interface ChangeSet {
  /** Keys changed. */
  readonly size: number;
  forEachChange(fn: ChangeVisitor): void;
}

/** One store's cached values (null: absent), within the bounds. */
class StoreValues {
  private readonly values = new Map<string, Uint8Array | null>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get size(): number {
    return this.values.size;
  }

  get(k: string): Uint8Array | null | undefined {
    return this.values.get(k);
  }

  /** Keeps a value read from the store; a full cache starts over first. */
  add(k: string, v: Uint8Array | undefined): void {
    const n = k.length + (v?.byteLength ?? 0);
    if (n > this.maxBytes) return;
    if (this.values.size >= this.maxEntries || this.bytes + n > this.maxBytes) this.clear();
    this.values.set(k, v ?? null);
    this.bytes += n;
  }

  /** A key's new committed value, if the key is kept; a copy, so the write set's memory is not kept. */
  update(k: string, src: Uint8Array, start: number, end: number): void {
    const old = this.values.get(k);
    if (old === undefined) return;
    this.bytes -= old?.byteLength ?? 0;
    if (start < 0) {
      this.values.set(k, null);
    } else if (this.bytes + (end - start) > this.maxBytes) {
      this.values.delete(k);
      this.bytes -= k.length;
    } else {
      this.values.set(k, Uint8Array.prototype.slice.call(src, start, end));
      this.bytes += end - start;
    }
  }

  clear(): void {
    this.values.clear();
    this.bytes = 0;
  }
}

/** Point reads of the latest committed state, per store id (absent keys too). Iteration is not cached. */
export class InterBlockCache {
  /** Bumped by every commit: a view made before it reads its own (older) state, no longer the cache. */
  private generation = 0;
  private readonly stores = new Map<number, StoreValues>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(bounds: InterBlockCacheBounds = {}) {
    this.maxEntries = bounds.maxEntries ?? INTER_BLOCK_CACHE_ENTRIES;
    this.maxBytes = bounds.maxBytes ?? INTER_BLOCK_CACHE_BYTES;
    for (const [name, v] of [
      ['maxEntries', this.maxEntries],
      ['maxBytes', this.maxBytes],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
    }
  }

  /**
   * `parent`, store `id`'s committed state at the latest committed height, with its point reads
   * cached until the next commit; from then on it reads `parent` alone.
   */
  view(id: number, parent: ReadKVStore): ReadKVStore {
    let values = this.stores.get(id);
    if (values === undefined) this.stores.set(id, (values = new StoreValues(this.maxEntries, this.maxBytes)));
    return new CachedStore(this, this.generation, values, parent);
  }

  /** The commits seen so far: a snapshot notes it, to tell whether the cache still holds its state. */
  get currentGeneration(): number {
    return this.generation;
  }

  isCurrent(generation: number): boolean {
    return generation === this.generation;
  }

  /**
   * After the block's changes are durable: each cached key of store `id` that `changes` sets or deletes
   * takes its new value. Keys not cached stay uncached. A block that changed more keys than the cache
   * holds (a migration) empties it instead.
   */
  committed(id: number, changes: ChangeSet): void {
    const values = this.stores.get(id);
    if (values === undefined || values.size === 0) return;
    if (changes.size > this.maxEntries) {
      values.clear();
      return;
    }
    changes.forEachChange((keys, ks, ke, vals, vs, ve) => values.update(keys.toString('latin1', ks, ke), vals, vs, ve));
  }

  /** A store whose keys were all removed (a store upgrade's deletion): nothing of it is kept. */
  dropStore(id: number): void {
    this.stores.delete(id);
  }

  /** The commit is complete: views made before it stop reading the cache. */
  advance(): void {
    this.generation++;
  }
}

class CachedStore implements ReadKVStore {
  constructor(
    private readonly cache: InterBlockCache,
    private readonly generation: number,
    private readonly values: StoreValues,
    private readonly parent: ReadKVStore,
  ) {}

  /** The value is shared by every reader: like a write set's, it must not be changed in place. */
  get(key: Uint8Array): Uint8Array | undefined {
    if (!this.cache.isCurrent(this.generation)) return this.parent.get(key);
    const k = bytesToKey(key);
    const hit = this.values.get(k);
    if (hit !== undefined) return hit ?? undefined;
    const v = this.parent.get(key);
    this.values.add(k, v);
    return v;
  }

  has(key: Uint8Array): boolean {
    return this.get(key) !== undefined;
  }

  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return this.parent.iterator(start, end);
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return this.parent.reverseIterator(start, end);
  }
}
