// What the RPC methods read and call: the node's parts, narrowed to what they use, and the helpers
// every method shares (CometBFT's rpc/core Environment: heights, pagination).
import type { BaseApp, Logger, Tx } from '@chaind/sdk/app';
import type { AnswerApp } from '../query/simulate.ts';
import type { GenesisDoc } from '@chaind/sdk/genesis';
import type { Mempool } from '@chaind/sdk/admission';
import type { BlockProducer, BlockSource, TxAdmission } from '../driver.ts';
import { internalError } from './errors.ts';
import type { Args, ParamSpec } from './params.ts';

export type RpcBlockStore = BlockSource;

/** Info, Query and Simulate; the query router tells whether the app serves a path itself. */
export type RpcApp = AnswerApp & Pick<BaseApp<Tx>, 'info'>;

export type RpcMempool = Pick<Mempool, 'submit' | 'submitLater' | 'size' | 'bytes' | 'reap' | 'maxTxBytes'>;

/** What `status` and `net_info` report about this node. */
export interface RpcNodeInfo {
  /** The p2p node id: 40 lower-case hex characters (`nodeIdOf` of the node key). */
  readonly id: string;
  readonly moniker: string;
  /** This node's consensus key (ed25519, 32 bytes): status' validator_info. */
  readonly validatorPubKey: Uint8Array;
  /** The p2p listen address to report; a solo node does not listen for peers (default "tcp://0.0.0.0:26656"). */
  readonly listenAddr?: string;
}

export interface RpcEnv {
  /** JSON-RPC is CometBFT's own interface: served where this node makes the blocks (solo mode). */
  readonly driver: BlockProducer;
  readonly blockStore: RpcBlockStore;
  readonly app: RpcApp;
  readonly mempool: RpcMempool;
  /** Where broadcast_tx_* go (the mempool above: JSON-RPC is served in solo mode only). */
  readonly admission: TxAdmission;
  readonly genesis: GenesisDoc;
  readonly nodeInfo: RpcNodeInfo;
  readonly logger: Logger;
  /** The server's own address, for status' other.rpc_address. */
  readonly rpcAddress: () => string;
  /** timeout_broadcast_tx_commit. */
  readonly broadcastTxCommitTimeoutMs: number;
  readonly search: SearchLimits;
  /** Aborted, with the reason as text, when the server closes or the node stops: pending waits end at once. */
  readonly cancel: AbortSignal;
  /** broadcast_tx_commit calls now waiting for their block. */
  readonly waiting: { count: number };
}

/** How much one tx_search / block_search may do: each scans the block store height by height. */
export interface SearchLimits {
  /** Most heights one request scans; a wider range is refused (narrow it with tx.height / block.height). */
  readonly maxHeights: number;
  /** Most matches one request collects (all are counted for total_count before a page is cut). */
  readonly maxResults: number;
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = { maxHeights: 100_000, maxResults: 10_000 };

/** Heights scanned between two turns of the event loop: block production runs in between. */
export const SEARCH_HEIGHTS_PER_TURN = 256;

/** Lets timers and I/O (the driver's next block, other requests) run. */
export const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Refuses a search over more than `maxHeights` heights. */
export function checkSearchRange(env: RpcEnv, lo: bigint, hi: bigint, tag: string): void {
  const n = hi - lo + 1n;
  if (n > BigInt(env.search.maxHeights)) {
    throw internalError(
      `the query spans ${n} heights, more than the ${env.search.maxHeights} one search may scan: narrow it with ${tag} conditions (config.toml [rpc] max_search_heights)`,
    );
  }
}

/** Refuses a search that found more than `maxResults` matches. */
export function searchResultsExceeded(env: RpcEnv): never {
  throw internalError(
    `the query matches more than ${env.search.maxResults} results, the most one search may collect: narrow it (config.toml [rpc] max_search_results)`,
  );
}

/** One JSON-RPC method: its parameters and its implementation (sync or async; throws RpcErrors). */
export interface RpcMethod<P extends ParamSpec = ParamSpec> {
  readonly params: P;
  // method syntax: a table of methods with different parameter specs stays assignable
  call(args: Args<P>, env: RpcEnv): unknown;
}

export function method<P extends ParamSpec>(params: P, call: (args: Args<P>, env: RpcEnv) => unknown): RpcMethod<P> {
  return { params, call };
}

/**
 * The last height the RPC shows: the driver's committed height. The block store may hold one block
 * more (saved before the app's Commit; or left by a crash, until replayed), which no read may reveal.
 */
export const latestHeight = (env: RpcEnv): bigint => env.driver.height;

/** `env.getHeight`: the requested height, checked against the store's range; the latest when absent. */
export function resolveHeight(env: RpcEnv, requested: bigint | undefined, latest: bigint = latestHeight(env)): bigint {
  if (requested === undefined) return latest;
  if (requested <= 0n) throw internalError(`height must be greater than 0, but got ${requested}`);
  if (requested > latest) throw internalError(`height ${requested} must be less than or equal to the current blockchain height ${latest}`);
  const base = env.blockStore.base;
  if (requested < base) throw internalError(`height ${requested} is not available, lowest height is ${base}`);
  return requested;
}

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

/** `validatePerPage`: 30 when absent or below 1, at most 100. */
export function perPage(requested: bigint | undefined): number {
  if (requested === undefined || requested < 1n) return DEFAULT_PER_PAGE;
  return requested > BigInt(MAX_PER_PAGE) ? MAX_PER_PAGE : Number(requested);
}

/** `validatePage`: 1 when absent; otherwise within [1, pages] (one page even when there is nothing). */
export function page(requested: bigint | undefined, per: number, total: number): number {
  if (requested === undefined) return 1;
  const pages = Math.max(1, Math.floor((total - 1) / per) + 1);
  if (requested < 1n || requested > BigInt(pages)) throw internalError(`page should be within [1, ${pages}] range, given ${requested}`);
  return Number(requested);
}
