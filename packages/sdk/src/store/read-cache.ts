// A snapshot never changes, so what was read from it can be kept. CheckTx reads the same few keys over
// and over through it (the signer's account: once to pre-verify, then in the ante handler; the balance
// paying the fee: to check it, then to debit it; the auth params: every tx), each an LMDB lookup that
// copies the value out.
import { bytesToKey } from './bytes.ts';
import type { Snapshot } from './multistore.ts';
import type { Entry, ReadKVStore } from './types.ts';

/** Entries kept per store before the cache starts over: a bound on memory, not a working-set guess. */
export const READ_CACHE_ENTRIES = 32_768;

/** Point reads of one snapshot store, kept (absent keys too). Iteration is not cached. */
class ReadCachedStore implements ReadKVStore {
  private readonly values = new Map<string, Uint8Array | null>();

  constructor(
    private readonly parent: ReadKVStore,
    private readonly maxEntries: number,
  ) {}

  /** The value is shared by every reader: like a write set's, it must not be changed in place. */
  get(key: Uint8Array): Uint8Array | undefined {
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

/** `snap` with its stores' point reads cached; releasing it releases `snap`. */
export function withReadCache(snap: Snapshot, maxEntries: number = READ_CACHE_ENTRIES): Snapshot {
  const stores = new Map<string, ReadCachedStore>();
  return {
    height: snap.height,
    appHash: snap.appHash,
    hasStore: (name) => snap.hasStore(name),
    storeNames: () => snap.storeNames(),
    getStore(name: string): ReadKVStore {
      let s = stores.get(name);
      if (s === undefined) stores.set(name, (s = new ReadCachedStore(snap.getStore(name), maxEntries)));
      return s;
    },
    release(): void {
      stores.clear();
      snap.release();
    },
  };
}
