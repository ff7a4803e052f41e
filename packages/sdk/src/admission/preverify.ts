// Signature pre-verification: a tx's signatures verified on worker threads before its CheckTx, so the
// ante handler finds them verified; and the tx decoded for that handed to CheckTx's decode of the same
// bytes. Never decides admission: whatever it misses, the ante handler verifies inline.
import { Buffer } from 'node:buffer';
import { availableParallelism } from 'node:os';
import type { Logger } from '../app/logger.ts';
import { VerifiedSignatures, type SignatureTriple, type VerifiedSignaturesOptions } from '../crypto/index.ts';
import { copyBytes } from '../bytes/index.ts';
import { decodeTx, type DecodedTx } from '../tx/decode.ts';
import { SignatureVerifyPool } from './verify-pool.ts';

export interface SignaturePreverifierOptions {
  /**
   * The (public key, sign bytes, signature) triples the ante handler will verify for a tx, as far as
   * committed state tells (x/auth's `signaturesToPreverify` in a query context). Throwing: nothing to pre-verify.
   */
  readonly signaturesOf: (tx: DecodedTx) => readonly SignatureTriple[];
  /** Worker threads, started on first use; default one per core beyond the first, at most 4; 0: none. */
  readonly threads?: number;
  /** Bounds of the verified-signature cache (entries and bytes). */
  readonly cache?: VerifiedSignaturesOptions;
  readonly logger: Logger;
}

/**
 * Txs decoded by pre-verification, handed to CheckTx's decode of the same bytes object, once. An entry
 * holds a copy of the bytes it was decoded from: bytes changed in between (a caller reusing its buffer)
 * are decoded afresh. A tx the mempool refuses without CheckTx has its entry dropped (`refused`); in
 * case one is missed, the entries are bounded in count and bytes, the oldest dropped first.
 */
class PreDecoded {
  private readonly entries = new Map<Uint8Array, { readonly copy: Uint8Array; readonly tx: DecodedTx }>();
  private bytes = 0;

  /** At most `capacity` entries and about `maxBytes` of tx bytes (an entry counts its bytes twice: the copy and the decoded tx). */
  constructor(
    private readonly capacity = 4096,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  put(bytes: Uint8Array, tx: DecodedTx): void {
    this.drop(bytes);
    this.entries.set(bytes, { copy: copyBytes(bytes), tx });
    this.bytes += 2 * bytes.length;
    while (this.entries.size > this.capacity || (this.bytes > this.maxBytes && this.entries.size > 1))
      this.drop(this.entries.keys().next().value as Uint8Array);
  }

  take(bytes: Uint8Array): DecodedTx | undefined {
    const e = this.entries.get(bytes);
    if (e === undefined) return undefined;
    this.drop(bytes);
    return Buffer.compare(e.copy, bytes) === 0 ? e.tx : undefined;
  }

  drop(bytes: Uint8Array): void {
    const e = this.entries.get(bytes);
    if (e === undefined) return;
    this.entries.delete(bytes);
    this.bytes -= 2 * e.copy.length;
  }
}

/** The node's signature pre-verification: the mempool's `preverify`, the app's tx decoder, the ante handler's verified signatures. */
export class SignaturePreverifier {
  /** The triples that verified: the ante handler's `verifiedSignatures`. */
  readonly verified: VerifiedSignatures;
  private readonly threads: number;
  private readonly signaturesOf: (tx: DecodedTx) => readonly SignatureTriple[];
  private readonly logger: Logger;
  private readonly preDecoded = new PreDecoded();
  /** The triples submitted for a tx (by its bytes object), so a tx CheckTx refuses can take them back out. */
  private readonly submitted = new WeakMap<Uint8Array, readonly SignatureTriple[]>();
  private pool: SignatureVerifyPool | undefined;
  private closed = false;

  constructor(o: SignaturePreverifierOptions) {
    this.threads = o.threads ?? Math.min(4, availableParallelism() - 1);
    this.verified = new VerifiedSignatures(o.cache);
    this.signaturesOf = o.signaturesOf;
    this.logger = o.logger;
  }

  /** The app's tx decoder: bytes this pre-verified come decoded already. */
  readonly decodeTx = (bytes: Uint8Array): DecodedTx => this.preDecoded.take(bytes) ?? decodeTx(bytes);

  /**
   * Verifies the signatures of a tx about to be checked on the worker threads, so the ante handler finds
   * them verified; resolves when done, and is undefined when there is nothing to wait for (no thread,
   * not a tx, or every signature already known). Never fails and never decides admission.
   */
  preverify(tx: Uint8Array): Promise<unknown> | undefined {
    if (this.threads < 1 || this.closed) return undefined;
    let triples: readonly SignatureTriple[];
    try {
      // CheckTx of these same bytes takes this decode
      const decoded = decodeTx(tx);
      this.preDecoded.put(tx, decoded);
      triples = this.signaturesOf(decoded);
    } catch {
      return undefined; // not a tx: CheckTx gives the error
    }
    if (triples.length === 0) return undefined;
    this.submitted.set(tx, triples);
    this.pool ??= new SignatureVerifyPool({
      cache: this.verified,
      threads: this.threads,
      onWorkerError: (e) => this.logger.error('signature verification worker failed; the ante handler verifies inline', { err: e.message }),
    });
    return this.pool.verifyAhead(triples);
  }

  /**
   * `tx` (the same bytes object pre-verified) was refused, by CheckTx or by the mempool before it: its
   * decode and its verified signatures are forgotten, so a refused tx leaves nothing behind.
   */
  refused(tx: Uint8Array): void {
    this.preDecoded.drop(tx);
    const triples = this.submitted.get(tx);
    if (triples === undefined) return;
    this.submitted.delete(tx);
    for (const t of triples) this.verified.delete(t);
  }

  /** Stops the workers; nothing is pre-verified after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
  }
}
