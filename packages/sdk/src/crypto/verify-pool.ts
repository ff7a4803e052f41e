// Signature verification off the main thread. The node verifies the signatures of an incoming tx on
// worker threads while the main thread runs CheckTx of the txs before it; the ante handler then finds
// the tx's signatures in `VerifiedSignatures` and skips the curve arithmetic. Only results that verified
// are remembered, and a hit needs the exact (public key, sign bytes, signature): a cache miss, a worker
// that died or a pool that was never started only means the ante handler verifies inline. Whether a tx
// is accepted never depends on the pool, so the state machine stays deterministic.
import { Buffer } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import { isWellFormedSignature, SIGNATURE_LENGTH, secp256k1ModulePath } from './secp256k1.ts';

export interface SignatureTriple {
  readonly pubkey: Uint8Array;
  readonly signDoc: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * Triples known to verify, keyed by signature; bounded, the oldest forgotten first. The entries are
 * copies, so a cached triple never pins a whole tx buffer.
 */
export class VerifiedSignatures {
  private readonly bySignature = new Map<string, { readonly pubkey: Buffer; readonly signDoc: Buffer }>();

  constructor(readonly capacity = 65_536) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** True when exactly this triple verified before. */
  has(t: SignatureTriple): boolean {
    const e = this.bySignature.get(latin1(t.signature));
    return e !== undefined && e.pubkey.equals(t.pubkey) && e.signDoc.equals(t.signDoc);
  }

  /** Remembers a triple that verified (callers add nothing else). */
  add(t: SignatureTriple): void {
    const k = latin1(t.signature);
    this.bySignature.delete(k);
    this.bySignature.set(k, { pubkey: Buffer.from(t.pubkey), signDoc: Buffer.from(t.signDoc) });
    if (this.bySignature.size > this.capacity) this.bySignature.delete(this.bySignature.keys().next().value as string);
  }

  get size(): number {
    return this.bySignature.size;
  }
}

function latin1(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

// The worker: CommonJS evaluated from this string, so it runs the same from the sources (tsx) and from
// the release bundle. A batch is one transferred buffer: per triple, key length (u8), key, signature
// (64 bytes), sign bytes length (u32 LE), sign bytes. The answer: one byte per triple, 1 = verified.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const secp = require(workerData.secp256k1);
parentPort.on('message', (ab) => {
  const b = Buffer.from(ab);
  const n = b.readUInt32LE(0);
  const out = new Uint8Array(n);
  let o = 4;
  for (let i = 0; i < n; i++) {
    const kl = b[o];
    const key = b.subarray(o + 1, o + 1 + kl);
    o += 1 + kl;
    const sig = b.subarray(o, o + ${SIGNATURE_LENGTH});
    o += ${SIGNATURE_LENGTH};
    const dl = b.readUInt32LE(o);
    const doc = b.subarray(o + 4, o + 4 + dl);
    o += 4 + dl;
    try {
      out[i] = secp.ecdsaVerify(sig, createHash('sha256').update(doc).digest(), key) ? 1 : 0;
    } catch {
      out[i] = 0;
    }
  }
  parentPort.postMessage(out, [out.buffer]);
});
`;

interface Job {
  readonly triple: SignatureTriple;
  readonly done: (ok: boolean) => void;
}

interface Thread {
  readonly worker: Worker;
  /** The batches posted to it and not yet answered, oldest first (it answers in order). */
  readonly batches: Job[][];
  alive: boolean;
}


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
}

/** Worker threads verifying secp256k1 signatures exactly as `verifySignature`, filling a `VerifiedSignatures`. */
export class SignatureVerifyPool {
  private readonly threads: Thread[];
  private readonly queue: Job[] = [];
  private readonly cache: VerifiedSignatures;
  private readonly maxBatch: number;
  private closed = false;

  constructor(o: SignatureVerifyPoolOptions) {
    this.cache = o.cache;
    this.maxBatch = o.maxBatch ?? 256;
    const n = o.threads ?? 1;
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`threads must be a positive integer, got ${n}`);
    this.threads = Array.from({ length: n }, () => {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { secp256k1: o.secp256k1Module ?? secp256k1ModulePath } });
      // an idle pool must not keep the process alive
      worker.unref();
      const t: Thread = { worker, batches: [], alive: true };
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
    return Promise.all(
      triples.map((triple) => {
        if (this.cache.has(triple)) return true;
        if (this.closed || !this.threads.some((t) => t.alive) || !isWellFormedSignature(triple.pubkey, triple.signature)) return false;
        return new Promise<boolean>((done) => {
          this.queue.push({ triple, done });
          this.dispatch();
        });
      }),
    );
  }

  /**
   * A full batch goes at once to the live thread with the fewest batches queued: the workers verify while
   * the main thread is still busy (pre-verifying a burst of arrivals, or admitting what they verified) and
   * cannot read their answers. What is left, a partial batch, goes only to an idle thread.
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let t: Thread | undefined;
      for (const x of this.threads) if (x.alive && (t === undefined || x.batches.length < t.batches.length)) t = x;
      if (t === undefined || (t.batches.length > 0 && this.queue.length < this.maxBatch)) return;
      const batch = this.queue.splice(0, this.maxBatch);
      t.batches.push(batch);
      t.worker.ref();
      const msg = pack(batch);
      t.worker.postMessage(msg, [msg]);
    }
  }

  /** The answer to `t`'s oldest batch; null when the worker died: all its batches go unverified. */
  private finish(t: Thread, answer: Uint8Array | null): void {
    const done = answer === null ? t.batches.splice(0) : t.batches.splice(0, 1);
    if (t.alive && t.batches.length === 0) t.worker.unref();
    for (const batch of done) {
      batch.forEach((job, i) => {
        const ok = answer !== null && answer[i] === 1;
        if (ok) this.cache.add(job.triple);
        job.done(ok);
      });
    }
    if (!this.threads.some((x) => x.alive)) for (const job of this.queue.splice(0)) job.done(false);
    else this.dispatch();
  }

  /** Stops the workers; what was queued resolves as not verified. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) job.done(false);
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

function pack(batch: readonly Job[]): ArrayBuffer {
  let size = 4;
  for (const { triple } of batch) size += 1 + triple.pubkey.length + SIGNATURE_LENGTH + 4 + triple.signDoc.length;
  const ab = new ArrayBuffer(size);
  const b = Buffer.from(ab);
  b.writeUInt32LE(batch.length, 0);
  let o = 4;
  for (const { triple } of batch) {
    b[o] = triple.pubkey.length;
    b.set(triple.pubkey, o + 1);
    o += 1 + triple.pubkey.length;
    b.set(triple.signature, o);
    o += SIGNATURE_LENGTH;
    b.writeUInt32LE(triple.signDoc.length, o);
    b.set(triple.signDoc, o + 4);
    o += 4 + triple.signDoc.length;
  }
  return ab;
}
