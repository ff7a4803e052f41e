// Arrival order: each tx is admitted after every tx that arrived before it, once its signatures are
// pre-verified, while the signatures of the txs behind it are verified on worker threads.
import { pendingIsFull } from './refusals.ts';

/** Starts verifying a tx's signatures off the main thread; undefined when there is nothing to wait for. */
export type Preverify = (tx: Uint8Array) => Promise<unknown> | undefined;

export const DEFAULT_PREVERIFY_AHEAD = 1024;
export const DEFAULT_PREVERIFY_AHEAD_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_PENDING_TXS = 20_000;
export const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;

/** Bounds of the txs waiting for their turn. */
export interface ArrivalLimits {
  /** Txs pre-verified ahead of the one admitted next (default 1024). */
  readonly preverifyAhead?: number;
  /** Their bytes together (default 8 MiB; one tx is always let in). */
  readonly preverifyAheadBytes?: number;
  /** Txs waiting for their turn at most (default 20,000); more are refused at once. */
  readonly maxPendingTxs?: number;
  /** Their bytes together (default 64 MiB). */
  readonly maxPendingBytes?: number;
}

/** A tx waiting for its turn. */
interface Arrival {
  readonly tx: Uint8Array;
  readonly admit: (arg: unknown) => unknown;
  readonly arg: unknown;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  /** Pre-verification finished (or failed, or there is none). */
  ready: boolean;
}

/**
 * Admissions in arrival order, at most `preverifyAhead` txs (and `preverifyAheadBytes`) pre-verified
 * ahead of the one admitted next: enough to keep the workers busy, few enough that a burst of arrivals
 * does not hold thousands of half-admitted txs in memory. The txs waiting at all are bounded too (count
 * and bytes): past the bound `run` refuses at once. A pre-verification's outcome never decides admission.
 */
export class ArrivalOrder {
  private readonly preverify: Preverify | undefined;
  private readonly preverifyAhead: number;
  private readonly preverifyAheadBytes: number;
  readonly maxPendingTxs: number;
  readonly maxPendingBytes: number;
  /** Txs not yet admitted, and their bytes; of those, the bytes whose pre-verification started. */
  private pendingTxs = 0;
  private pendingBytes = 0;
  private aheadBytes = 0;
  /**
   * Txs not yet admitted, in arrival order from `next` (the slots before it are emptied as they are
   * admitted, so an admitted tx's bytes are not kept); pre-verification started for those before `started`.
   */
  private waiting: (Arrival | undefined)[] = [];
  private next = 0;
  private started = 0;
  private pumping = false;

  constructor(preverify: Preverify | undefined, limits: ArrivalLimits = {}) {
    this.preverify = preverify;
    this.preverifyAhead = positive('preverifyAhead', limits.preverifyAhead ?? DEFAULT_PREVERIFY_AHEAD);
    this.preverifyAheadBytes = positive('preverifyAheadBytes', limits.preverifyAheadBytes ?? DEFAULT_PREVERIFY_AHEAD_BYTES);
    this.maxPendingTxs = positive('maxPendingTxs', limits.maxPendingTxs ?? DEFAULT_MAX_PENDING_TXS);
    this.maxPendingBytes = positive('maxPendingBytes', limits.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES);
  }

  /** Txs waiting for their turn, and their bytes. */
  get pending(): { readonly txs: number; readonly bytes: number } {
    return { txs: this.pendingTxs, bytes: this.pendingBytes };
  }

  /**
   * Runs `admit(arg)` for `tx` after every earlier call's, once the tx's signatures are pre-verified.
   * A hot caller passes one long-lived function and its per-tx data, not a closure per tx (see `settled`).
   */
  run<T, A>(tx: Uint8Array, admit: (arg: A) => T, arg: A): Promise<T> {
    if (this.pendingTxs >= this.maxPendingTxs || this.pendingBytes + tx.length > this.maxPendingBytes) {
      return Promise.reject(pendingIsFull(this.pendingTxs, this.maxPendingTxs, this.pendingBytes, this.maxPendingBytes));
    }
    this.pendingTxs++;
    this.pendingBytes += tx.length;
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        tx,
        admit: admit as (arg: unknown) => unknown,
        arg,
        resolve: resolve as (v: unknown) => void,
        reject,
        ready: this.preverify === undefined,
      });
      this.pump();
    });
  }

  /**
   * `a`'s pre-verification settled (bound per arrival). One long-lived function rather than a closure per
   * arrival: V8 keeps a closure's optimised code only while an instance of it lives, so a closure per
   * arrival ran the admission path unoptimised after every quiet spell (bench/README.md).
   */
  private static settled(this: void, order: ArrivalOrder, a: Arrival): void {
    a.ready = true;
    order.pump();
  }

  /** Starts the pre-verifications the window allows, then admits every arrival at the head that is ready. */
  private pump(): void {
    // an admission that queues another arrival (nothing does today) is picked up by the running loop
    if (this.pumping) return;
    this.pumping = true;
    try {
      this.pumpLoop();
    } finally {
      this.pumping = false;
    }
  }

  private pumpLoop(): void {
    const q = this.waiting;
    for (;;) {
      while (
        this.started < q.length &&
        this.started - this.next < this.preverifyAhead &&
        (this.aheadBytes === 0 || this.aheadBytes + (q[this.started] as Arrival).tx.length <= this.preverifyAheadBytes)
      ) {
        const a = q[this.started++] as Arrival;
        this.aheadBytes += a.tx.length;
        const preverify = this.preverify;
        if (preverify === undefined) continue;
        // a failed pre-verification only means CheckTx verifies inline
        let p: Promise<unknown> | undefined;
        try {
          p = preverify(a.tx);
        } catch {
          p = undefined;
        }
        if (p === undefined) a.ready = true;
        else {
          const done = ArrivalOrder.settled.bind(undefined, this, a);
          p.then(done, done);
        }
      }
      const a = q[this.next];
      if (a === undefined || !a.ready) break;
      q[this.next++] = undefined;
      this.pendingTxs--;
      this.pendingBytes -= a.tx.length;
      this.aheadBytes -= a.tx.length;
      try {
        a.resolve(a.admit(a.arg));
      } catch (e) {
        a.reject(e);
      }
    }
    // drop the admitted prefix now and then, not on every admission
    if (this.next > 1024 && this.next * 2 > q.length) {
      this.waiting = q.slice(this.next);
      this.started -= this.next;
      this.next = 0;
    }
  }
}

function positive(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
  return n;
}
