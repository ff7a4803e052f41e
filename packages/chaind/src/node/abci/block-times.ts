// Header times of committed blocks behind CometBFT, where chaind keeps no blocks: the times FinalizeBlock
// carried for the blocks this process committed, and for older heights (an applied upgrade's height after
// a restart, the far end of the dashboard's interval) CometBFT's own, asked once and kept. A committed
// block's time never changes, so whatever is kept stays right; only the number kept is bounded.
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';

/** Where the header time of a height this process did not commit comes from (CometBFT's RPC `header`). */
export interface HeaderTimes {
  /** undefined when there is no such block (yet, or any more); rejects when it cannot be asked. */
  headerTime(height: bigint): Promise<Timestamp | undefined>;
}

/** Heights kept by default: the dashboard's 20-block interval, the applied upgrades and room to spare. */
export const DEFAULT_BLOCK_TIMES_KEPT = 256;

/** A bounded map height → header time, the least recently used dropped first; lookups of one height share one call. */
export class BlockTimes {
  private readonly kept = new Map<bigint, Timestamp>();
  private readonly asking = new Map<bigint, Promise<Timestamp | undefined>>();

  constructor(
    private readonly source: HeaderTimes,
    private readonly capacity = DEFAULT_BLOCK_TIMES_KEPT,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`block times kept must be a positive integer, got ${capacity}`);
  }

  /** A committed block's time, as FinalizeBlock gave it. */
  record(height: bigint, time: Timestamp): void {
    this.kept.delete(height);
    this.kept.set(height, time);
    while (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value as bigint);
  }

  /** The time kept, else the source's (kept when it has one; an absence or a failure is asked again next time). */
  async get(height: bigint): Promise<Timestamp | undefined> {
    const t = this.kept.get(height);
    if (t !== undefined) {
      this.record(height, t);
      return t;
    }
    let p = this.asking.get(height);
    if (p === undefined) {
      p = this.source.headerTime(height).finally(() => this.asking.delete(height));
      this.asking.set(height, p);
      const got = await p;
      if (got !== undefined) this.record(height, got);
      return got;
    }
    return p;
  }

  /** How many heights are kept (for tests). */
  get size(): number {
    return this.kept.size;
  }
}
