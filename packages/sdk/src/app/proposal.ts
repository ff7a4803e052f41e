// The block-size arithmetic a proposal is bounded by (CometBFT `types/tx.go`): what the proposer's
// PrepareProposal may return and what the solo driver reaps.

function uvarintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** `ComputeProtoSizeForTxs` of one tx: its bytes inside Data (tag, length, bytes). */
export function txProtoSize(tx: Uint8Array): bigint {
  return BigInt(1 + uvarintLength(tx.length) + tx.length);
}

/** `ComputeProtoSizeForTxs`: the size of Data{txs}, what `Txs.Validate(maxDataBytes)` bounds. */
export function txsProtoSize(txs: readonly Uint8Array[]): bigint {
  let n = 0n;
  for (const tx of txs) n += txProtoSize(tx);
  return n;
}
