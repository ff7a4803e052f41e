import { ChaindError } from '@chaind/errors';
/** A key and its value, as iterators yield them. */
export interface Entry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/** Read access to one store. Iteration is in unsigned byte order over [start, end). */
export interface ReadKVStore {
  get(key: Uint8Array): Uint8Array | undefined;
  has(key: Uint8Array): boolean;
  /** Ascending over [start, end); either bound may be omitted. */
  iterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry>;
  /** Descending over [start, end); either bound may be omitted. */
  reverseIterator(start?: Uint8Array, end?: Uint8Array): IterableIterator<Entry>;
}

/** A store that can be written. Writes are not durable until the multistore commits. */
export interface KVStore extends ReadKVStore {
  set(key: Uint8Array, value: Uint8Array): void;
  delete(key: Uint8Array): void;
}

/** Keys may not be empty (LMDB refuses them) nor longer than this, once the store prefix is added. */
export const MAX_KEY_BYTES = 1900;
/** Values up to 64 MiB; larger values belong in several keys. */
export const MAX_VALUE_BYTES = 64 * 1024 * 1024;

export function assertValidKey(key: Uint8Array): void {
  if (key.byteLength === 0) throw new StoreError('key must not be empty');
  if (key.byteLength > MAX_KEY_BYTES) throw new StoreError(`key of ${key.byteLength} bytes exceeds the limit of ${MAX_KEY_BYTES}`);
}

export function assertValidValue(value: Uint8Array): void {
  if (!(value instanceof Uint8Array)) throw new StoreError('value must be bytes');
  if (value.byteLength > MAX_VALUE_BYTES) throw new StoreError(`value of ${value.byteLength} bytes exceeds the limit of ${MAX_VALUE_BYTES}`);
}

export class StoreError extends ChaindError<'store'> {
  override readonly name = 'StoreError';
  constructor(message: string, options?: ErrorOptions) {
    super('store', message, options);
  }
}
