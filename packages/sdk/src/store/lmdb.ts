import { Buffer } from 'node:buffer';
import type { Database, Transaction } from 'lmdb';
import { prefixEnd } from './bytes.ts';
import { MAX_KEY_BYTES, type Entry, type ReadKVStore } from './types.ts';

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

  /**
   * A key longer than MAX_KEY_BYTES was never written (writes refuse it), so it is absent: it must not reach
   * lmdb-js, which throws past its own key limit ("offset is out of bounds" from about 4 KiB) on what may be
   * a query's input (a plan name, a denom, a pagination key).
   */
  get(key: Uint8Array): Uint8Array | undefined {
    if (key.byteLength === 0 || key.byteLength > MAX_KEY_BYTES) return undefined;
    return this.db.get(this.full(key), this.opts) ?? undefined;
  }

  has(key: Uint8Array): boolean {
    return this.get(key) !== undefined;
  }

  /**
   * A bound longer than MAX_KEY_BYTES is cut to that length, which no stored key exceeds: every stored key
   * K compares to the long bound B as to its cut C, except that K = C sorts before B. So a lower bound C
   * becomes exclusive, an upper bound C inclusive.
   */
  private bound(key: Uint8Array): { key: Buffer; cut: boolean } {
    return key.byteLength > MAX_KEY_BYTES ? { key: this.full(key.subarray(0, MAX_KEY_BYTES)), cut: true } : { key: this.full(key), cut: false };
  }

  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    const s = start === undefined ? undefined : this.bound(start);
    const e = end === undefined ? undefined : this.bound(end);
    return this.strip(
      this.db.getRange({
        ...this.opts,
        start: s?.key ?? this.prefix,
        exclusiveStart: s?.cut === true,
        end: e?.key ?? this.end,
        inclusiveEnd: e?.cut === true,
      }),
    );
  }

  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry> {
    const s = start === undefined ? undefined : this.bound(start);
    const e = end === undefined ? undefined : this.bound(end);
    // LMDB's reverse range runs from `start` (high) down to `end` (low, exclusive unless inclusiveEnd).
    return this.strip(
      this.db.getRange({
        ...this.opts,
        reverse: true,
        start: e?.key ?? this.end,
        exclusiveStart: e === undefined || !e.cut,
        end: s?.key ?? this.prefix,
        inclusiveEnd: s !== undefined && !s.cut,
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
