// The node's pool of pending txs, in front of the app's CheckTx (CometBFT's CListMempool, in process).
// Deterministic in what it keeps and returns, but a node-local structure: never part of consensus state.
import { Buffer } from 'node:buffer';
import { CheckTxType, type RequestCheckTx, type ResponseCheckTx } from 'cosmjs-types/tendermint/abci/types';
import type { MsgRouter } from '../app/router.ts';
import type { DecodedTx } from '../tx/decode.ts';
import { ArrivalOrder, type ArrivalLimits, type Preverify } from './arrival.ts';
import { errors, ROOT_CODESPACE } from '../app/errors.ts';
import { txHash, txOrderKey } from './order.ts';
import { mempoolIsFull, txInCache, txTooLarge, type MempoolRefusal } from './refusals.ts';

/** What the mempool needs of the app: CheckTx, and the message router to read a tx's sender (a BaseApp is one). */
export interface MempoolApp {
  checkTx(req: RequestCheckTx): ResponseCheckTx;
  /** The app's decoder: the tx CheckTx just decoded is read again for its sender (the app may keep it). */
  decodeTx(bytes: Uint8Array): DecodedTx;
  readonly modules: { readonly msgRouter: MsgRouter };
}

export interface MempoolOptions {
  readonly app: MempoolApp;
  /** Most txs kept; default 5000 (CometBFT's mempool.size). */
  readonly maxTxs?: number;
  /** Most bytes kept, all txs together; default 64 MiB (mempool.max_txs_bytes). */
  readonly maxTxsBytes?: number;
  /** Largest single tx; default 1 MiB (mempool.max_tx_bytes). */
  readonly maxTxBytes?: number;
  /**
   * Starts verifying a tx's signatures off the main thread (the app's `preverify`); CheckTx then finds
   * them verified; undefined when there is nothing to wait for. Its outcome never decides admission, CheckTx does.
   */
  readonly preverify?: Preverify;
  /** A tx `preverify` was given (the same bytes object) was refused, by CheckTx or by the pool: what it kept for the tx goes. */
  readonly refused?: (tx: Uint8Array) => void;
  /**
   * Bounds of the txs waiting for CheckTx, and of those pre-verified ahead (default 1024 txs, about 60 ms
   * of one worker's verifying, and 8 MiB).
   */
  readonly arrivals?: ArrivalLimits;
  /** CheckTx refusals remembered until the next block, so a resend costs a hash (default 10,000; 0: none; mempool.cache_size). */
  readonly cacheSize?: number;
}

export const DEFAULT_MAX_TXS = 5000;
export const DEFAULT_MAX_TXS_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_TX_BYTES = 1024 * 1024;
export const DEFAULT_CACHE_SIZE = 10_000;

/**
 * CheckTx refusals that txs admitted before the next block can undo, so never remembered: a sequence
 * ahead of the account's, and a key the account gets from its first tx.
 */
const CURABLE_IN_BLOCK = new Set([errors.wrongSequence.code, errors.invalidPubKey.code]);

export interface MempoolUpdate {
  /** Txs of the block that were in the pool. */
  readonly committed: number;
  /** Txs that failed their recheck against the new state and were dropped. */
  readonly dropped: number;
  /** The dropped txs, each with its recheck's refusal: what the node logs, so no accepted tx vanishes unexplained. */
  readonly evicted: readonly MempoolEviction[];
}

/** A tx dropped by the recheck after a block: its hash (upper-case hex) and the recheck's answer. */
export interface MempoolEviction {
  readonly hash: string;
  readonly code: number;
  readonly codespace: string;
  readonly log: string;
}

interface Entry {
  readonly tx: Uint8Array;
  /** `hashKey` of the tx's hash. */
  readonly hash: string;
  readonly sender: string;
  readonly sequence: bigint;
  /** Order of admission: CheckTx state was built in this order, so rechecks replay it. */
  readonly arrival: number;
  gasWanted: bigint;
}

const hex = (h: Uint8Array): string => Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString('hex').toUpperCase();
/** A tx hash as the pool's Map key: its bytes as a latin1 string (half a hex string, no case to fold). */
const hashKey = (h: Uint8Array): string => Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString('latin1');
const HEX_HASH = /^[0-9a-fA-F]{64}$/;

/** A tx's turn in `submit`: one long-lived function, not a closure per tx (see `ArrivalOrder.run`). */
function addInTurn(t: { readonly pool: Mempool; readonly tx: Uint8Array; readonly hash: Uint8Array }): ResponseCheckTx {
  return t.pool.add(t.tx, t.hash);
}

/**
 * Pending txs, admitted through the app's CheckTx and kept until a block commits them or a recheck
 * after a block refuses them. Reaping orders by sender: each sender's txs by increasing sequence
 * (a block must carry sequence n before n+1), senders round-robin in the order their oldest pending
 * tx arrived, so one busy sender cannot crowd the others out of a block.
 */
export class Mempool {
  readonly maxTxs: number;
  readonly maxTxsBytes: number;
  readonly maxTxBytes: number;
  private readonly app: MempoolApp;
  private readonly arrivalOrder: ArrivalOrder;
  private readonly byHash = new Map<string, Entry>();
  /** CheckTx refusals since the last block, by hash key, oldest first; at most `cacheSize`. */
  private readonly rejected = new Map<string, ResponseCheckTx>();
  readonly cacheSize: number;
  private readonly onRefused: ((tx: Uint8Array) => void) | undefined;
  /** Sender → its entries sorted by (sequence, arrival). */
  private readonly bySender = new Map<string, Entry[]>();
  private totalBytes = 0;
  private arrivals = 0;
  private height = 0n;

  constructor(o: MempoolOptions) {
    this.app = o.app;
    this.arrivalOrder = new ArrivalOrder(o.preverify, o.arrivals);
    this.onRefused = o.refused;
    this.cacheSize = o.cacheSize ?? DEFAULT_CACHE_SIZE;
    if (!Number.isSafeInteger(this.cacheSize) || this.cacheSize < 0) throw new RangeError(`cacheSize must be a non-negative integer, got ${this.cacheSize}`);
    this.maxTxs = o.maxTxs ?? DEFAULT_MAX_TXS;
    this.maxTxsBytes = o.maxTxsBytes ?? DEFAULT_MAX_TXS_BYTES;
    this.maxTxBytes = o.maxTxBytes ?? DEFAULT_MAX_TX_BYTES;
  }

  /**
   * CometBFT's `CListMempool.CheckTx`: the mempool's own refusals (a rejection with a MempoolRefusal),
   * then, in arrival order once the tx's signatures are pre-verified, `add`. CheckTx's failures are results.
   * Arrival order keeps a sender's sequence n checked before its n+1 that arrived after it, while the
   * workers verify later txs as CheckTx runs on earlier ones.
   */
  submit(tx: Uint8Array): Promise<ResponseCheckTx> {
    return this.submitHashed(tx, txHash(tx));
  }

  /**
   * broadcast_tx_async's admission: the refusals that need no CheckTx (too large, already in the pool)
   * are thrown at once, to answer the call; the rest of `submit` runs after, its outcome the promise.
   */
  submitLater(tx: Uint8Array): Promise<ResponseCheckTx> {
    const hash = txHash(tx);
    const refused = this.refusal(tx.length, hashKey(hash), true);
    if (refused !== undefined) throw refused;
    return this.submitHashed(tx, hash);
  }

  private submitHashed(tx: Uint8Array, hash: Uint8Array): Promise<ResponseCheckTx> {
    const key = hashKey(hash);
    const known = this.rejected.get(key);
    if (known !== undefined) return Promise.resolve(known);
    // refused at once when it already must be; checked again in its turn, when txs ahead may have filled the pool
    const refused = this.refusal(tx.length, key, false);
    // not an async function: it would wrap the admission's promise in one more, and a burst holds thousands
    if (refused !== undefined) return Promise.reject(refused);
    return this.arrivalOrder.run(tx, addInTurn, { pool: this, tx, hash });
  }

  /**
   * Runs `admit` for `tx` after every earlier call's, once the tx's signatures are pre-verified (see
   * `submit`); at most `preverifyAhead` txs are pre-verified ahead of the one admitted next.
   */
  inArrivalOrder<T>(tx: Uint8Array, admit: () => T): Promise<T>;
  inArrivalOrder<T, A>(tx: Uint8Array, admit: (arg: A) => T, arg: A): Promise<T>;
  inArrivalOrder<T, A>(tx: Uint8Array, admit: (arg: A | undefined) => T, arg?: A): Promise<T> {
    return this.arrivalOrder.run(tx, admit, arg);
  }

  /** Number of txs in the pool. */
  size(): number {
    return this.byHash.size;
  }

  /** Total bytes of the txs in the pool. */
  bytes(): number {
    return this.totalBytes;
  }

  /** Height of the last `update`. */
  get lastHeight(): bigint {
    return this.height;
  }

  /** Whether a tx with this hash (sha256 of its bytes; raw or hex) is in the pool. */
  has(hash: Uint8Array | string): boolean {
    if (typeof hash !== 'string') return this.byHash.has(hashKey(hash));
    return HEX_HASH.test(hash) && this.byHash.has(hashKey(Buffer.from(hash, 'hex')));
  }

  /**
   * Admits a tx now: the mempool's own refusals (thrown as MempoolRefusal, without running CheckTx), then
   * the app's CheckTx; kept when it passes. `txHashBytes`: the tx's hash when the caller has it already.
   */
  add(txBytes: Uint8Array, txHashBytes?: Uint8Array): ResponseCheckTx {
    const hashBytes = txHashBytes ?? txHash(txBytes);
    const hash = hashKey(hashBytes);
    const known = this.rejected.get(hash);
    if (known !== undefined) {
      this.onRefused?.(txBytes);
      return known;
    }
    const refused = this.refusal(txBytes.length, hash, false);
    if (refused !== undefined) {
      this.onRefused?.(txBytes);
      throw refused;
    }
    const res = this.app.checkTx({ tx: txBytes, type: CheckTxType.NEW });
    if (res.code !== 0) {
      this.onRefused?.(txBytes);
      this.remember(hash, res);
      return res;
    }
    // CheckTx passed, so the app read the signers; a tx whose sender we still cannot read is kept, ordered alone
    const key = txOrderKey(() => this.app.decodeTx(txBytes), this.app.modules.msgRouter) ?? { sender: `tx:${hex(hashBytes)}`, sequence: 0n };
    const tx = Uint8Array.prototype.slice.call(txBytes);
    this.insert({ tx, hash, sender: key.sender, sequence: key.sequence, arrival: this.arrivals++, gasWanted: res.gasWanted });
    return res;
  }

  /** Remembers a CheckTx refusal until the next block, unless a tx admitted before then could undo it. */
  private remember(key: string, res: ResponseCheckTx): void {
    if (this.cacheSize === 0 || (res.codespace === ROOT_CODESPACE && CURABLE_IN_BLOCK.has(res.code))) return;
    this.rejected.set(key, res);
    if (this.rejected.size > this.cacheSize) this.rejected.delete(this.rejected.keys().next().value as string);
  }

  /** CheckTx refusals remembered now (until the next block). */
  rememberedRefusals(): number {
    return this.rejected.size;
  }

  /** Txs that arrived and wait for their CheckTx, and their bytes. */
  pending(): { readonly txs: number; readonly bytes: number } {
    return this.arrivalOrder.pending;
  }

  /**
   * The mempool's own refusal of a tx of `size` bytes with hash key `key`, in CometBFT's order: full, too
   * large, already in the pool; `early`: only the last two, which hold whatever the txs ahead of it do.
   */
  private refusal(size: number, key: string, early: boolean): MempoolRefusal | undefined {
    if (!early && (this.byHash.size >= this.maxTxs || this.totalBytes + size > this.maxTxsBytes)) {
      return mempoolIsFull(this.byHash.size, this.maxTxs, this.totalBytes, this.maxTxsBytes);
    }
    if (size > this.maxTxBytes) return txTooLarge(this.maxTxBytes, size);
    if (this.byHash.has(key)) return txInCache();
    return undefined;
  }

  private insert(e: Entry): void {
    this.byHash.set(e.hash, e);
    this.totalBytes += e.tx.length;
    let list = this.bySender.get(e.sender);
    if (list === undefined) this.bySender.set(e.sender, (list = []));
    let i = list.length;
    while (i > 0 && (list[i - 1].sequence > e.sequence || (list[i - 1].sequence === e.sequence && list[i - 1].arrival > e.arrival))) i--;
    list.splice(i, 0, e);
  }

  private remove(e: Entry): void {
    if (!this.byHash.delete(e.hash)) return;
    this.totalBytes -= e.tx.length;
    const list = this.bySender.get(e.sender) as Entry[];
    list.splice(list.indexOf(e), 1);
    if (list.length === 0) this.bySender.delete(e.sender);
  }

  /** Senders in the order their oldest pending tx arrived, each with its txs by sequence. */
  private queues(): Entry[][] {
    const oldest = (list: Entry[]): number => Math.min(...list.map((e) => e.arrival));
    return [...this.bySender.values()]
      .map((list) => ({ list, first: oldest(list) }))
      .sort((a, b) => a.first - b.first)
      .map((x) => x.list);
  }

  /**
   * Txs for a proposal, at most `maxBytes` bytes (sum of tx lengths, as PrepareProposal counts) and
   * `maxGas` gas wanted; -1 (or no `maxGas`) means no limit. Senders take turns, one tx each per round;
   * a sender whose next tx does not fit is done (its later sequences would fail without it). The txs stay in the pool.
   */
  reap(maxBytes: number | bigint, maxGas?: number | bigint): Uint8Array[] {
    const byteLimit = BigInt(maxBytes);
    const gasLimit = maxGas === undefined ? -1n : BigInt(maxGas);
    const out: Uint8Array[] = [];
    let bytes = 0n;
    let gas = 0n;
    let round = this.queues().map((list) => ({ list, next: 0 }));
    while (round.length > 0) {
      const again: typeof round = [];
      for (const q of round) {
        const e = q.list[q.next];
        const b = bytes + BigInt(e.tx.length);
        const g = gas + e.gasWanted;
        if ((byteLimit >= 0n && b > byteLimit) || (gasLimit >= 0n && g > gasLimit)) continue;
        out.push(e.tx);
        bytes = b;
        gas = g;
        if (++q.next < q.list.length) again.push(q);
      }
      round = again;
    }
    return out;
  }

  /**
   * After the block at `height` is committed (call it after the app's Commit): drops the block's txs,
   * then rechecks the rest (CheckTx RECHECK, in arrival order, over the app's fresh check state) and
   * drops those that now fail, such as a sequence the block used.
   */
  update(height: bigint, committedTxs: readonly Uint8Array[]): MempoolUpdate {
    this.height = height;
    // a new state: what was refused may pass now
    this.rejected.clear();
    let committed = 0;
    for (const tx of committedTxs) {
      const e = this.byHash.get(hashKey(txHash(tx)));
      if (e === undefined) continue;
      this.remove(e);
      committed++;
    }
    const evicted: MempoolEviction[] = [];
    for (const e of [...this.byHash.values()].sort((a, b) => a.arrival - b.arrival)) {
      const res = this.app.checkTx({ tx: e.tx, type: CheckTxType.RECHECK });
      if (res.code === 0) {
        e.gasWanted = res.gasWanted;
      } else {
        this.remove(e);
        evicted.push({ hash: Buffer.from(e.hash, 'latin1').toString('hex').toUpperCase(), code: res.code, codespace: res.codespace, log: res.log });
      }
    }
    return { committed, dropped: evicted.length, evicted };
  }

  /**
   * Empties the pool. The app's CheckTx state still holds the flushed txs' effects (advanced sequences)
   * until its next Commit, as with CometBFT's unsafe_flush_mempool.
   */
  flush(): void {
    this.byHash.clear();
    this.bySender.clear();
    this.totalBytes = 0;
  }
}
