// Signature pre-verification: a tx's signatures verified on worker threads before its CheckTx, so the
// ante handler finds them verified; and the TxRaw and AuthInfo decoded for that handed to CheckTx's decode
// of the same bytes. Never decides admission: whatever it misses, the ante handler verifies inline.
import { Buffer } from 'node:buffer';
import { availableParallelism } from 'node:os';
import type { Logger } from '../app/logger.ts';
import { VerifiedSignatures, type SignatureTriple } from '../crypto/index.ts';
import { copyBytes } from '../bytes/index.ts';
import { decodeSignedParts, decodeTx, decodeTxWithParts, type DecodedTx, type SignedTxParts } from '../tx/decode.ts';
import { SignatureVerifyPool } from './verify-pool.ts';

export interface SignaturePreverifierOptions {
  /**
   * The (public key, sign bytes, signature) triples the ante handler will verify for a tx, as far as
   * committed state tells (x/auth's `signaturesToPreverify` in a query context). Throwing: nothing to pre-verify.
   */
  readonly signaturesOf: (tx: SignedTxParts) => readonly SignatureTriple[];
  /** Worker threads, started on first use; default one per core beyond the first, at most 4; 0: none. */
  readonly threads?: number;
  readonly logger: Logger;
}

/**
 * TxRaw and AuthInfo decoded by pre-verification, handed to CheckTx's decode of the same bytes object,
 * once. An entry holds a copy of the bytes it was decoded from: bytes changed in between (a caller
 * reusing its buffer) are decoded afresh. Bounded, the oldest dropped first: a tx refused before its
 * CheckTx leaves its entry behind.
 */
class PreDecoded {
  private readonly entries = new Map<Uint8Array, { readonly copy: Uint8Array; readonly parts: SignedTxParts }>();

  constructor(private readonly capacity = 4096) {}

  put(bytes: Uint8Array, parts: SignedTxParts): void {
    this.entries.set(bytes, { copy: copyBytes(bytes), parts });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as Uint8Array);
  }

  take(bytes: Uint8Array): SignedTxParts | undefined {
    const e = this.entries.get(bytes);
    if (e === undefined) return undefined;
    this.entries.delete(bytes);
    return Buffer.compare(e.copy, bytes) === 0 ? e.parts : undefined;
  }
}

/** The node's signature pre-verification: the mempool's `preverify`, the app's tx decoder, the ante handler's verified signatures. */
export class SignaturePreverifier {
  /** The triples that verified: the ante handler's `verifiedSignatures`. */
  readonly verified = new VerifiedSignatures();
  private readonly threads: number;
  private readonly signaturesOf: (tx: SignedTxParts) => readonly SignatureTriple[];
  private readonly logger: Logger;
  private readonly preDecoded = new PreDecoded();
  private pool: SignatureVerifyPool | undefined;
  private closed = false;

  constructor(o: SignaturePreverifierOptions) {
    this.threads = o.threads ?? Math.min(4, availableParallelism() - 1);
    this.signaturesOf = o.signaturesOf;
    this.logger = o.logger;
  }

  /** The app's tx decoder: bytes this pre-verified are decoded from the parts it decoded (only the body is left). */
  readonly decodeTx = (bytes: Uint8Array): DecodedTx => {
    const parts = this.preDecoded.take(bytes);
    return parts === undefined ? decodeTx(bytes) : decodeTxWithParts(bytes, parts);
  };

  /**
   * Verifies the signatures of a tx about to be checked on the worker threads, so the ante handler finds
   * them verified; resolves when done, and is undefined when there is nothing to wait for (no thread,
   * not a tx, or every signature already known). Never fails and never decides admission.
   */
  preverify(tx: Uint8Array): Promise<unknown> | undefined {
    if (this.threads < 1 || this.closed) return undefined;
    let triples: readonly SignatureTriple[];
    try {
      // not the body; CheckTx of these same bytes decodes only the body
      const parts = decodeSignedParts(tx);
      this.preDecoded.put(tx, parts);
      triples = this.signaturesOf(parts);
    } catch {
      return undefined; // not a tx: CheckTx gives the error
    }
    if (triples.length === 0) return undefined;
    this.pool ??= new SignatureVerifyPool({
      cache: this.verified,
      threads: this.threads,
      onWorkerError: (e) => this.logger.error('signature verification worker failed; the ante handler verifies inline', { err: e.message }),
    });
    return this.pool.verifyAhead(triples);
  }

  /** Stops the workers; nothing is pre-verified after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
  }
}
