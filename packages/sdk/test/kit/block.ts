// Test support: the FinalizeBlock request of a solo validator's block, which the module tests make by the hundred.
import type { RequestFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';

/** FinalizeBlock of `txs` at `height`, block time `seconds`; no votes, misbehaviour or real hashes. */
export function blockRequest(height: bigint, seconds: bigint, txs: Uint8Array[] = []): RequestFinalizeBlock {
  return {
    txs,
    decidedLastCommit: { round: 0, votes: [] },
    misbehavior: [],
    hash: new Uint8Array(32),
    height,
    time: { seconds, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: new Uint8Array(20),
  };
}
