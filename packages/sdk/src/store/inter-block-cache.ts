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

/** What commit hands the cache: a store's changes, as a write set reports them. */
export interface ChangeSet {
  /** Keys changed. */
  readonly size: number;
  forEachChange(fn: ChangeVisitor): void;
}

/** Point reads of the latest committed state, per store id (absent keys too). Iteration is not cached. */
export class InterBlockCache {
  /** Bumped by every commit: a view made before it reads its own (older) state, no longer the cache. */
  private generation = 0;
  private readonly stores = new Map<number, Map<string, Uint8Array | null>>();

  constructor(private readonly maxEntries: number = INTER_BLOCK_CACHE_ENTRIES) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }

  /**
   * `parent`, store `id`'s committed state at the latest committed height, with its point reads
   * cached until the next commit; from then on it reads `parent` alone.
   */
  view(id: number, parent: ReadKVStore): ReadKVStore {
    let values = this.stores.get(id);
    if (values === undefined) this.stores.set(id, (values = new Map()));
    return new CachedStore(this, this.generation, values, parent, this.maxEntries);
  }

  isCurrent(generation: number): boolean {
    return generation === this.generation;
  }

  /**
   * After the block's changes are durable: each cached key of store `id` that `changes` sets or deletes
   * takes its new value (a copy: the write set's memory is not kept). Keys not cached stay uncached.
   * A block that changed more keys than the cache holds (a migration) empties it instead.
   */
  committed(id: number, changes: ChangeSet): void {
    const values = this.stores.get(id);
    if (values === undefined || values.size === 0) return;
    if (changes.size > this.maxEntries) {
      values.clear();
      return;
    }
    changes.forEachChange((keys, ks, ke, vals, vs, ve) => {
      const k = keys.toString('latin1', ks, ke);
      if (values.has(k)) values.set(k, vs < 0 ? null : Uint8Array.prototype.slice.call(vals, vs, ve));
    });
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
    private readonly values: Map<string, Uint8Array | null>,
    private readonly parent: ReadKVStore,
    private readonly maxEntries: number,
  ) {}

  /** The value is shared by every reader: like a write set's, it must not be changed in place. */
  get(key: Uint8Array): Uint8Array | undefined {
    if (!this.cache.isCurrent(this.generation)) return this.parent.get(key);
    const k = bytesToKey(key);
    const hit = this.values.get(k);
    if (hit !== undefined) return hit ?? undefined;
    const v = this.parent.get(key);
    if (this.values.size >= this.maxEntries) this.values.clear();
    this.values.set(k, v ?? null);
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
