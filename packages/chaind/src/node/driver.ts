// What the node's servers and the tx service need from whatever produces blocks: the solo driver
// (solo.ts: this node proposes and commits every block itself) or, behind CometBFT, an ABCI server
// that only receives blocks. Nothing here says how blocks come about, so a server written against it
// runs unchanged over either: a tx goes to the driver's admission (this node's pipeline, or CometBFT's
// mempool for a node behind it), and committed blocks are read from its block source.
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import type { Mempool } from '@chaind/sdk/admission';
import { HALT_EXIT_CODES, UpgradeHaltError, type HaltKind } from '@chaind/sdk/x/upgrade';
import type { BlockStore } from './blockstore.ts';
import type { ChainState } from './state.ts';
import { userTxAt, type UserTx } from './user-txs.ts';

/** Committed blocks, their results and the tx index, read-only: what the servers look up. No height of its own: it may hold one block above the driver's committed `height`, which no read may show. */
export type BlockSource = Pick<
  BlockStore,
  'base' | 'block' | 'blockId' | 'blockMeta' | 'seenCommit' | 'results' | 'state' | 'txLocation' | 'txsByHeight' | 'heightByHash'
>;

/**
 * Where a broadcast tx goes: `submit` is broadcast_tx_sync's (CheckTx's response; the mempool's own
 * refusals reject with MempoolRefusal), `submitLater` broadcast_tx_async's.
 */
export type TxAdmission = Pick<Mempool, 'submit' | 'submitLater' | 'maxTxBytes'>;

/** A block the app has committed, as every driver can announce it (FinalizeBlock's request and response). */
export interface CommittedBlock {
  readonly height: bigint;
  /** FinalizeBlock's response as it is: one tx result for every tx of the block, the extended commit's too. */
  readonly results: ResponseFinalizeBlock;
  /** The user txs with their hashes and results, in block order (user-txs.ts: the extended commit a block may lead with is none). */
  readonly txs: readonly UserTx[];
  /** The block's header time (FinalizeBlock's `time`): what the chain agreed on, not when this node saw it. */
  readonly time: Timestamp;
}

/** Why a driver stopped; `height` is the last committed height. */
export type DriverStopResult =
  | { readonly reason: 'halt'; readonly kind: HaltKind; readonly exitCode: number; readonly message: string; readonly height: bigint }
  | { readonly reason: 'halt-height'; readonly height: bigint }
  | { readonly reason: 'stopped'; readonly height: bigint }
  | { readonly reason: 'error'; readonly error: Error; readonly height: bigint };

/** What a failed block or start-up means for the process: a halt (with its exit code) or an error. */
export function stopResultFromError(e: unknown, height: bigint): DriverStopResult {
  if (e instanceof UpgradeHaltError) return { reason: 'halt', kind: e.kind, exitCode: HALT_EXIT_CODES[e.kind], message: e.message, height };
  return { reason: 'error', error: e instanceof Error ? e : new Error(String(e)), height };
}

/** A committed user tx and the time of its block (behind CometBFT, `index` is CometBFT's: the place in its block). */
export interface CommittedTx extends UserTx {
  readonly time: Timestamp | undefined;
}

/** Committed txs by hash (GetTx): this node's block store in solo mode, CometBFT's `tx` endpoint behind CometBFT. */
export interface TxLookup {
  committedTx(hash: Uint8Array): Promise<CommittedTx | undefined>;
}

/**
 * The user tx with this hash, if its block is committed (`height`: the store may be one block ahead), with
 * its index among the block's user txs (user-txs.ts).
 */
export function committedTxIn(blocks: BlockSource, height: bigint, hash: Uint8Array): UserTx | undefined {
  const loc = blocks.txLocation(hash);
  if (loc === undefined || loc.height > height) return undefined;
  const block = blocks.block(loc.height);
  const results = blocks.results(loc.height);
  if (block === undefined || results === undefined) return undefined;
  return userTxAt(loc.height, block, results.txResults, loc.index, hash);
}

/** The consensus side of a running node, as the REST and gRPC servers and the tx service see it. */
export interface ConsensusDriver {
  readonly chainId: string;
  /** The last committed height (initial height - 1 before the first block): nothing above it may be shown. */
  readonly height: bigint;
  /** Subscribes to committed blocks; returns the unsubscribe function. */
  onBlock(listener: (block: CommittedBlock) => void): () => void;
  /**
   * The header time of committed block `height` (undefined above `height`, or when no longer kept): the solo
   * driver's block store, or behind CometBFT the blocks this process committed and else CometBFT's RPC,
   * which rejects when it cannot be asked.
   */
  blockTime(height: bigint): Promise<Timestamp | undefined>;
  /** Submits txs (broadcast_tx_*). */
  readonly admission: TxAdmission;
  /** Finds committed txs. */
  readonly txs: TxLookup;
  /** Resolves once, when the driver has stopped for good: pending waits end then. */
  readonly done: Promise<DriverStopResult>;
}

/**
 * A driver that makes and keeps the blocks itself (solo): what CometBFT's own interface, JSON-RPC,
 * needs besides. Behind CometBFT, CometBFT serves that interface from its own stores.
 */
export interface BlockProducer extends ConsensusDriver {
  /** The consensus state the next block is built on: validator sets, consensus params, app version. */
  readonly state: ChainState;
  /** Looks up committed blocks, results and txs (bounded by `height`). */
  readonly blocks: BlockSource;
}
