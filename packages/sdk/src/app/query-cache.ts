// Answers of ABCI Query for the latest committed height. A committed height is immutable, so an answer
// stays right until the next commit; clients poll the same few queries (CurrentPlan, balances) far more
// often than blocks are made. Bounded in entries and bytes, since request bytes come from clients.
import type { ResponseQuery } from 'cosmjs-types/tendermint/abci/types';

/** Paths not cached: the tx service answers from more than committed state (e.g. simulation). */
export const UNCACHED_QUERY_PREFIX = '/cosmos.tx.v1beta1.Service/';

export interface QueryCacheLimits {
  readonly maxEntries: number;
  /** Sum of keys' and answers' byte lengths. */
  readonly maxBytes: number;
}

export const DEFAULT_QUERY_CACHE_LIMITS: QueryCacheLimits = { maxEntries: 4096, maxBytes: 16 << 20 };

export class QueryCache {
  private readonly entries = new Map<string, ResponseQuery>();
  private bytes = 0;
  /** The commit the entries belong to (compared by identity: each commit makes a new object). */
  commit: object | undefined;

  constructor(private readonly limits: QueryCacheLimits = DEFAULT_QUERY_CACHE_LIMITS) {}

  reset(commit: object): void {
    this.entries.clear();
    this.bytes = 0;
    this.commit = commit;
  }

  get(key: string): ResponseQuery | undefined {
    return this.entries.get(key);
  }

  set(key: string, res: ResponseQuery): void {
    const size = key.length + res.value.length + res.log.length;
    if (size > this.limits.maxBytes) return;
    // full: start over rather than track recency; the hot queries come back within a request or two
    if (this.entries.size >= this.limits.maxEntries || this.bytes + size > this.limits.maxBytes) {
      this.entries.clear();
      this.bytes = 0;
    }
    this.entries.set(key, res);
    this.bytes += size;
  }

  get size(): number {
    return this.entries.size;
  }
}
