// The CometBFT version this node speaks as, and the block-size arithmetic of proposals (`types/block.go`).
import { MAX_BLOCK_SIZE_BYTES } from '@chaind/sdk/genesis';

/** The CometBFT release chaind's JSON-RPC and Info request present: CosmJS picks its client by the "0.38." prefix. */
export const COMETBFT_VERSION = '0.38.17';
/** `version.BlockProtocol`: every header's version.block. */
export const BLOCK_PROTOCOL = 11n;
/** `version.P2PProtocol`. */
export const P2P_PROTOCOL = 8n;
/** `version.ABCISemVer`. */
export const ABCI_VERSION = '2.0.0';

/** `MaxHeaderBytes`: the most a header encodes to. */
export const MAX_HEADER_BYTES = 626n;
/** `MaxOverheadForBlock`: a block's framing around its parts, data excluded. */
export const MAX_OVERHEAD_FOR_BLOCK = 11n;
/** `MaxCommitOverheadBytes`: a commit without signatures. */
export const MAX_COMMIT_OVERHEAD_BYTES = 94n;
/** `MaxCommitSigBytes` plus the 2 bytes of the repeated field's framing (`MaxCommitBytes`). */
export const MAX_COMMIT_SIG_BYTES = 109n + 2n;

export { MAX_BLOCK_SIZE_BYTES };

/** `MaxDataBytes(maxBytes, evidenceBytes=0, valsCount)`: what the txs of a block may take, proto framing included. */
export function maxDataBytes(maxBytes: bigint, validators: number): bigint {
  const n = maxBytes - MAX_OVERHEAD_FOR_BLOCK - MAX_HEADER_BYTES - (MAX_COMMIT_OVERHEAD_BYTES + MAX_COMMIT_SIG_BYTES * BigInt(validators));
  if (n < 0n) throw new Error(`block.max_bytes=${maxBytes} is too small to hold a header and a last commit of ${validators} validators`);
  return n;
}

export { txProtoSize, txsProtoSize } from '@chaind/sdk/app';
