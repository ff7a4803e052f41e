// Signature verification off the main thread. The node verifies the signatures of an incoming tx on
// worker threads while the main thread runs CheckTx of the txs before it; the ante handler then finds
// the tx's signatures in `VerifiedSignatures` and skips the curve arithmetic. Only results that verified
// are remembered, and a hit needs the exact (public key, sign bytes, signature): a cache miss, a worker
// that died or a pool that was never started only means the ante handler verifies inline. Whether a tx
// is accepted never depends on the pool, so the state machine stays deterministic.
import { Worker } from 'node:worker_threads';
import { isWellFormedSignature, secp256k1ModulePath, verifyDigestSignature, type SignatureTriple, type VerifiedSignatures } from '../crypto/index.ts';
import { packBatch, type VerifyWorkerData } from './verify-batch.ts';

/**
 * A worker running verify-worker.ts. From the sources it registers tsx's loader itself (a worker does
 * not inherit its parent's loader hooks); a release runs verify-worker.mjs, which scripts/release.mjs
 * builds beside the node's bundle.
 */
function startWorker(workerData: VerifyWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./verify-worker.mjs', import.meta.url), { workerData });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./verify-worker.ts', import.meta.url).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`, { eval: true, workerData });
}

/** One `verify` call: its results, filled as answers come, and how many are still awaited. */
interface Call {
  readonly results: boolean[];
  pending: number;
  readonly resolve: (results: boolean[]) => void;
}

/** One triple of a call, at `index` in its results. */
interface Job {
  readonly triple: SignatureTriple;
  readonly call: Call;
  readonly index: number;
}

function settle(job: Job, ok: boolean): void {
  const c = job.call;
  c.results[job.index] = ok;
  if (--c.pending === 0) c.resolve(c.results);
}

interface Thread {
  readonly worker: Worker;
  /** The batches posted to it and not yet answered, oldest first (it answers in order). */
  readonly batches: Job[][];
  /** Triples in those batches. */
  posted: number;
  alive: boolean;
}

/**
 * Triples a worker may have posted and unanswered: two full batches, about 30 ms of work, so a worker
 * stays busy while the main thread, busy with a burst of arrivals, cannot read its answers; the rest
 * wait in the queue, where the main thread takes them when it has nothing else to do (bench/README.md).
 */
const MAX_POSTED = 512;

/** Triples the main thread verifies per event-loop turn when it helps (the workers' answers are read between turns). */
const HELP_PER_TURN = 8;

export interface SignatureVerifyPoolOptions {
  /** Verified triples go here; the ante handler reads them. */
  readonly cache: VerifiedSignatures;
  /** Worker threads (default 1: the node's main thread keeps the other core busy). */
  readonly threads?: number;
  /** Triples per message at most; a busy pool batches what arrived meanwhile (default 256). */
  readonly maxBatch?: number;
  /** Told when a worker fails; the pool goes on with the others (or none: then nothing is pre-verified). */
  readonly onWorkerError?: (error: Error) => void;
  /** The module the workers verify with (its `ecdsaVerify`); default: the backend this thread uses. */
  readonly secp256k1Module?: string;
  /**
   * The calling thread verifies queued triples itself when it has nothing else to do (in `setImmediate`
   * turns, which run only once its pending work and callbacks are done), so a slow or busy worker never
   * leaves it waiting idle. Default true.
   */
  readonly helpInline?: boolean;
}

/** Worker threads verifying secp256k1 signatures exactly as `verifySignature`, filling a `VerifiedSignatures`. */
export class SignatureVerifyPool {
  private readonly threads: Thread[];
  private readonly queue: Job[] = [];
  private readonly cache: VerifiedSignatures;
  private readonly maxBatch: number;
  private readonly helpInline: boolean;
  private helpScheduled = false;
  private closed = false;

  constructor(o: SignatureVerifyPoolOptions) {
    this.cache = o.cache;
    this.maxBatch = o.maxBatch ?? 256;
    this.helpInline = o.helpInline ?? true;
    const n = o.threads ?? 1;
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`threads must be a positive integer, got ${n}`);
    this.threads = Array.from({ length: n }, () => {
      const worker = startWorker({ secp256k1: o.secp256k1Module ?? secp256k1ModulePath() });
      // an idle pool must not keep the process alive
      worker.unref();
      const t: Thread = { worker, batches: [], posted: 0, alive: true };
      worker.on('message', (answer: Uint8Array) => this.finish(t, answer));
      const fail = (e: Error): void => {
        if (!t.alive) return;
        t.alive = false;
        if (!this.closed) o.onWorkerError?.(e);
        this.finish(t, null);
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`signature worker exited with code ${code}`)));
      return t;
    });
  }

  /**
   * Verifies the triples on the workers; each one that verifies is added to the cache. Resolves with one
   * result per triple; false also when it could not be checked (pool closed, workers gone).
   */
  verify(triples: readonly SignatureTriple[]): Promise<boolean[]> {
    const results = new Array<boolean>(triples.length);
    return this.submit(triples, results) ?? Promise.resolve(results);
  }

  /**
   * As `verify`, for a caller that only waits for the cache to be filled: undefined when no triple needs
   * a thread (each already known, or one that cannot verify), so it need not wait at all.
   */
  verifyAhead(triples: readonly SignatureTriple[]): Promise<boolean[]> | undefined {
    return this.submit(triples, new Array<boolean>(triples.length));
  }

  /** Answers the triples it can at once; queues the rest under one promise (undefined: none queued). */
  private submit(triples: readonly SignatureTriple[], results: boolean[]): Promise<boolean[]> | undefined {
    const waiting: number[] = [];
    for (let i = 0; i < triples.length; i++) {
      const triple = triples[i];
      if (this.cache.has(triple)) results[i] = true;
      else if (this.closed || !this.threads.some((t) => t.alive) || !isWellFormedSignature(triple.pubkey, triple.signature)) results[i] = false;
      else waiting.push(i);
    }
    if (waiting.length === 0) return undefined;
    // one promise per call, not per triple: a burst of arrivals keeps thousands of calls waiting
    return new Promise<boolean[]>((resolve) => {
      const call: Call = { results, pending: waiting.length, resolve };
      for (const index of waiting) this.queue.push({ triple: triples[index], call, index });
      this.dispatch();
    });
  }

  /**
   * A full batch goes to the live thread with the fewest triples posted, while it has room: the workers
   * verify while the main thread is still busy (pre-verifying a burst of arrivals, or admitting what they
   * verified) and cannot read their answers. A partial batch goes only to an idle thread.
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let t: Thread | undefined;
      for (const x of this.threads) if (x.alive && (t === undefined || x.posted < t.posted)) t = x;
      if (t === undefined) return;
      const n = Math.min(this.queue.length, this.maxBatch);
      if (t.posted > 0 && (n < this.maxBatch || t.posted + n > MAX_POSTED)) break;
      const batch = this.queue.splice(0, n);
      t.batches.push(batch);
      t.posted += n;
      t.worker.ref();
      const msg = packBatch(batch);
      t.worker.postMessage(msg, [msg]);
    }
    if (this.helpInline && this.queue.length > 0 && !this.helpScheduled) {
      this.helpScheduled = true;
      setImmediate(() => this.help());
    }
  }

  /** The main thread's turn: the oldest queued triples, verified here as `verifyDigestSignature` does. */
  private help(): void {
    this.helpScheduled = false;
    if (this.closed) return;
    for (const job of this.queue.splice(0, HELP_PER_TURN)) {
      const { pubkey, digest, signature } = job.triple;
      const ok = verifyDigestSignature(pubkey, digest, signature);
      if (ok) this.cache.add(job.triple);
      settle(job, ok);
    }
    this.dispatch();
  }

  /** The answer to `t`'s oldest batch; null when the worker died: all its batches go unverified. */
  private finish(t: Thread, answer: Uint8Array | null): void {
    const done = answer === null ? t.batches.splice(0) : t.batches.splice(0, 1);
    for (const batch of done) t.posted -= batch.length;
    if (t.alive && t.batches.length === 0) t.worker.unref();
    for (const batch of done) {
      for (let i = 0; i < batch.length; i++) {
        const ok = answer !== null && answer[i] === 1;
        if (ok) this.cache.add(batch[i].triple);
        settle(batch[i], ok);
      }
    }
    if (!this.threads.some((x) => x.alive)) for (const job of this.queue.splice(0)) settle(job, false);
    else this.dispatch();
  }

  /** Stops the workers; what was queued resolves as not verified. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) settle(job, false);
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
