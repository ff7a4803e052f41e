// cosmos.base.query.v1beta1 pagination over a store prefix, as the SDK's query.Paginate.
import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { concatBytes, prefixEnd, type Entry, type ReadKVStore } from '../../store/index.ts';
import { grpcError } from './grpc.ts';

export const DEFAULT_PAGE_LIMIT = 100n;

/**
 * One page of the entries under `prefix`. `nextKey` is the key (without the prefix) of the first
 * entry after the page, empty at the end; `total` is filled only for offset queries with `countTotal`.
 */
export function paginate<T>(store: ReadKVStore, prefix: Uint8Array, req: PageRequest | undefined, map: (e: Entry) => T): { items: T[]; page: PageResponse } {
  const key = req?.key ?? new Uint8Array(0);
  const offset = req?.offset ?? 0n;
  const limit = req === undefined || req.limit === 0n ? DEFAULT_PAGE_LIMIT : req.limit;
  const reverse = req?.reverse ?? false;
  if (offset > 0n && key.length > 0) throw grpcError('InvalidArgument', 'paginate: invalid request, either offset or key is expected, got both');
  const end = prefixEnd(prefix);
  const items: T[] = [];
  let nextKey: Uint8Array = new Uint8Array(0);
  if (key.length > 0) {
    const at = concatBytes(prefix, key);
    // reverse pages start at `key` inclusive, so the range ends just after it
    const it = reverse ? store.reverseIterator(prefix, concatBytes(at, Uint8Array.of(0))) : store.iterator(at, end);
    for (const e of it) {
      if (BigInt(items.length) === limit) {
        nextKey = e.key.subarray(prefix.length);
        break;
      }
      items.push(map(e));
    }
    return { items, page: { nextKey, total: 0n } };
  }
  const countTotal = req?.countTotal ?? false;
  let n = 0n;
  const it = reverse ? store.reverseIterator(prefix, end) : store.iterator(prefix, end);
  for (const e of it) {
    n++;
    if (n <= offset) continue;
    if (n <= offset + limit) {
      items.push(map(e));
      continue;
    }
    if (nextKey.length === 0) nextKey = e.key.subarray(prefix.length);
    if (!countTotal) break;
  }
  return { items, page: { nextKey, total: countTotal ? n : 0n } };
}
