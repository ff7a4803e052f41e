// The mempool's own refusals, before the app's CheckTx sees a tx: CometBFT's `CListMempool.CheckTx`
// errors, with its texts (what JSON-RPC, REST and gRPC callers read) and the SDK's registered error for
// each (codes 19, 20, 21 of the sdk codespace). `Mempool` decides when; these say what.
import { ChaindError } from '@chaind/errors';
import { errors, type RegisteredError } from '../app/errors.ts';

/** A refusal of the mempool itself, with CometBFT's text and the SDK's error for it. */
export class MempoolRefusal extends ChaindError<number> {
  override readonly name = 'MempoolRefusal';
  constructor(
    readonly error: RegisteredError,
    message: string,
  ) {
    super(error.code, message);
  }
}

/** `ErrMempoolIsFull`: `txs` txs of `bytes` bytes held, and no room for the tx. */
export function mempoolIsFull(txs: number, maxTxs: number, bytes: number, maxTxsBytes: number): MempoolRefusal {
  return new MempoolRefusal(errors.mempoolIsFull, `mempool is full: number of txs ${txs} (max: ${maxTxs}), total txs bytes ${bytes} (max: ${maxTxsBytes})`);
}

/**
 * `ErrMempoolIsFull` for the txs that arrived and wait for their CheckTx (chaind's own queue, in front of
 * CometBFT's pool in solo mode): the same code, so clients treat it as a full mempool and retry later.
 */
export function pendingIsFull(txs: number, maxTxs: number, bytes: number, maxBytes: number): MempoolRefusal {
  return new MempoolRefusal(errors.mempoolIsFull, `mempool is full: ${txs} txs of ${bytes} bytes waiting for CheckTx (max: ${maxTxs} txs, ${maxBytes} bytes)`);
}

/** `ErrTxTooLarge`. */
export function txTooLarge(maxTxBytes: number, size: number): MempoolRefusal {
  return new MempoolRefusal(errors.txTooLarge, `tx too large. Max size is ${maxTxBytes}, but got ${size}`);
}

/** `ErrTxInCache`: the same tx is in the pool. */
export function txInCache(): MempoolRefusal {
  return new MempoolRefusal(errors.txInMempoolCache, 'tx already exists in cache');
}

/**
 * The refusal a CometBFT error text reports (its RPC wraps them, e.g. "error on broadcastTxSync: tx
 * already exists in cache"), matched as the SDK's CheckCometError does; undefined for any other error.
 */
export function refusalFromText(text: string): MempoolRefusal | undefined {
  const t = text.toLowerCase();
  const cause = text.replace(/^error on broadcastTx(?:Sync|Async): /, '');
  if (t.includes('tx already exists in cache')) return new MempoolRefusal(errors.txInMempoolCache, cause);
  if (t.includes('mempool is full')) return new MempoolRefusal(errors.mempoolIsFull, cause);
  if (t.includes('tx too large')) return new MempoolRefusal(errors.txTooLarge, cause);
  return undefined;
}
