// A block's user txs: what every view of "transactions" shows (the node log, the metrics, JSON-RPC
// block, blockchain, block_results, tx, tx_search and broadcast_tx_commit, the tx service). With vote
// extensions on, the proposer puts the extended commit of the block before as the block's first tx
// (@chaind/sdk/app vote-extensions.ts): consensus's own record, which no user sent (CheckTx refuses it)
// and which costs no gas. The block as stored and hashed keeps it (data_hash, the app hash, block_size,
// last_results_hash cover it); the views leave it out and number the user txs from 0 among themselves.
import type { ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import type { Block } from 'cosmjs-types/tendermint/types/block';
import { isInjectedTx } from '@chaind/sdk/app';
import { txHash } from './hash.ts';

/** A committed user tx as the views show it: `index` counts the block's user txs from 0 (the stored block's place may be one more). */
export interface UserTx {
  readonly height: bigint;
  readonly index: number;
  readonly hash: Uint8Array;
  readonly tx: Uint8Array;
  readonly result: ExecTxResult;
}

/**
 * Whether the tx at `blockIndex` of its block is the extended commit, consensus's own: the injected marker in
 * the first place (ProcessProposal refuses it anywhere else). For a tx looked up alone, without its block.
 */
export function isInjectedTxAt(blockIndex: number, tx: Uint8Array): boolean {
  return blockIndex === 0 && isInjectedTx(tx);
}

/** How many txs lead the block as consensus's own, not a user's: 1 or 0. */
export function injectedTxCount(txs: readonly Uint8Array[]): 0 | 1 {
  return txs.length > 0 && isInjectedTxAt(0, txs[0]) ? 1 : 0;
}

/** The number of user txs in a block's txs. */
export function userTxCount(txs: readonly Uint8Array[]): number {
  return txs.length - injectedTxCount(txs);
}

/** What belongs to the user txs among `alongside`, which follows the block's `txs` one for one (the txs, their results, their hashes). */
export function userTxsOf<T>(txs: readonly Uint8Array[], alongside: readonly T[]): T[] {
  return alongside.slice(injectedTxCount(txs));
}

/** The block as the views show it: its header, commit and evidence, and only the user txs (the stored block is not touched). */
export function userBlock(block: Block): Block {
  const skip = injectedTxCount(block.data.txs);
  return skip === 0 ? block : { ...block, data: { ...block.data, txs: block.data.txs.slice(skip) } };
}

/** The user txs of a committed block with their results, hashes and indexes among the user txs. */
export function userTxRecords(height: bigint, txs: readonly Uint8Array[], results: readonly ExecTxResult[]): UserTx[] {
  const skip = injectedTxCount(txs);
  return txs.slice(skip).map((tx, index) => ({ height, index, hash: txHash(tx), tx, result: results[index + skip] }));
}

/**
 * The user tx at position `blockIndex` of a committed block (the tx index's location), with its index among the
 * user txs; undefined for the extended commit (a block store written before the index left it out still has it).
 */
export function userTxAt(height: bigint, block: Block, results: readonly ExecTxResult[], blockIndex: number, hash: Uint8Array): UserTx | undefined {
  const skip = injectedTxCount(block.data.txs);
  const tx = block.data.txs[blockIndex];
  const result = results[blockIndex];
  if (blockIndex < skip || tx === undefined || result === undefined) return undefined;
  return { height, index: blockIndex - skip, hash: Uint8Array.from(hash), tx, result };
}
