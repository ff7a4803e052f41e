// What the mempool orders a tx by: its sender (the first signer) and that signer's sequence.
import { hash } from 'node:crypto';
import type { MsgRouter } from '../app/router.ts';
import type { DecodedTx } from '../tx/decode.ts';

export interface TxOrderKey {
  /** The first signer's address: the first message's first signer, as the ante handler orders signers. */
  readonly sender: string;
  /** The sequence in the first signer info (the first signer's). */
  readonly sequence: bigint;
}

/** A tx's hash as CometBFT computes it: sha256 of the tx bytes. */
export function txHash(tx: Uint8Array): Uint8Array {
  // OpenSSL's, in one call: faster than the pure-JS one, or a Hash object, on a tx's few hundred bytes
  return hash('sha256', tx, 'buffer');
}

/** Sender and sequence of a tx; undefined when they cannot be read (the caller then orders it alone). */
export function txOrderKey(decode: () => DecodedTx, router: MsgRouter): TxOrderKey | undefined {
  try {
    const decoded = decode();
    const first = decoded.msgs[0];
    if (first === undefined) return undefined;
    const { route, msg } = router.decode(first);
    const sender = route.signers?.(msg)[0];
    if (sender === undefined) return undefined;
    return { sender, sequence: decoded.authInfo.signerInfos[0]?.sequence ?? 0n };
  } catch {
    return undefined;
  }
}
