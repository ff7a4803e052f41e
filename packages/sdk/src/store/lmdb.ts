import { Buffer } from 'node:buffer';
import type { Database, Transaction } from 'lmdb';
import { prefixEnd } from './bytes.ts';
import type { Entry, ReadKVStore } from './types.ts';

export type BinaryDB = Database<Buffer, Buffer>;

/** Committed state of one store: the LMDB keys under the store's id prefix, optionally pinned to a read transaction. */
export class LmdbStoreView implements ReadKVStore {
  private readonly end: Buffer;
  private readonly opts: { transaction?: Transaction };

  constructor(
    private readonly db: BinaryDB,
    private readonly prefix: Buffer,
    txn?: Transaction,
  ) {
    this.end = Buffer.from(prefixEnd(prefix) ?? Buffer.alloc(0));
    this.opts = txn === undefined ? {} : { transaction: txn };
  }

  private full(key: Uint8Array): Buffer {
    const b = Buffer.allocUnsafe(this.prefix.length + key.byteLength);
    this.prefix.copy(b, 0);
    b.set(key, this.prefix.length);
    return b;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    if (key.byteLength === 0) return undefined;
    return this.db.get(this.full(key), this.opts) ?? undefined;
  }

  has(key: Uint8Array): boolean {
    return this.get(key) !== undefined;
  }

  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    return this.strip(
      this.db.getRange({
        ...this.opts,
        start: start === undefined ? this.prefix : this.full(start),
        end: end === undefined ? this.end : this.full(end),
      }),
    );
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    // LMDB's reverse range runs from `start` (high) down to `end` (low, exclusive unless inclusiveEnd).
    return this.strip(
      this.db.getRange({
        ...this.opts,
        reverse: true,
        start: end === undefined ? this.end : this.full(end),
        exclusiveStart: true,
        end: start === undefined ? this.prefix : this.full(start),
        inclusiveEnd: start !== undefined,
      }),
    );
  }

  private strip(range: Iterable<{ key: Buffer; value: Buffer }>): IterableIterator<Entry> {
    const n = this.prefix.length;
    const it = range[Symbol.iterator]();
    // a plain iterator rather than a generator: a migration pulls a million entries through it
    const stripped: IterableIterator<Entry> = {
      next(): IteratorResult<Entry> {
        const r = it.next();
        if (r.done === true) return { done: true, value: undefined };
        // a copying slice: lmdb-js keys are Buffers whose backing memory V8 must first move to make a
        // view (subarray), which costs more than copying a few bytes
        return { done: false, value: { key: Uint8Array.prototype.slice.call(r.value.key, n), value: r.value.value } };
      },
      return(): IteratorResult<Entry> {
        it.return?.();
        return { done: true, value: undefined };
      },
      [Symbol.iterator]() {
        return stripped;
      },
    };
    return stripped;
  }

}
