// Blocks and consensus state by height: block, block_by_hash, header, header_by_hash, block_results,
// blockchain, commit, validators, consensus_params (CometBFT rpc/core/blocks.go, consensus.go).
import type { ValidatorUpdate } from 'cosmjs-types/tendermint/abci/types';
import type { ConsensusParams } from 'cosmjs-types/tendermint/types/params';
import { emptyBlockId } from '../../hash.ts';
import { userBlock, userTxsOf } from '../../user-txs.ts';
import {
  b64,
  blockIdJSON,
  blockJSON,
  blockMetaJSON,
  commitJSON,
  consensusParamsJSON,
  consensusParamUpdatesJSON,
  eventJSON,
  execTxResultJSON,
  headerJSON,
  int,
  validatorJSON,
  validatorUpdateJSON,
} from '../encode.ts';
import {
  checkSearchRange,
  latestHeight,
  method,
  page,
  perPage,
  resolveHeight,
  SEARCH_HEIGHTS_PER_TURN,
  searchResultsExceeded,
  yieldTurn,
  type RpcEnv,
  type RpcMethod,
} from '../env.ts';
import { internalError } from '../errors.ts';
import { heightBounds, matchEvents, matchValue, QueryError, searchConditions, type Condition } from '../query.ts';

/** `BlockchainInfo`'s limit: at most 20 metas per call. */
export const BLOCKCHAIN_LIMIT = 20n;

function blockAt(env: RpcEnv, h: bigint): unknown {
  const block = env.blockStore.block(h);
  const id = env.blockStore.blockId(h);
  // CometBFT answers a missing block with an empty result, not an error
  if (block === undefined || id === undefined) return { block_id: blockIdJSON(emptyBlockId()), block: null };
  // the user txs only; the header's data_hash and the block id stay those of the block as made (user-txs.ts)
  return { block_id: blockIdJSON(id), block: blockJSON(userBlock(block)) };
}

/** The height of a block hash, if that block is visible (not above the committed height). */
function heightOfHash(env: RpcEnv, hash: Uint8Array | undefined): bigint | undefined {
  const h = hash === undefined ? undefined : env.blockStore.heightByHash(hash);
  return h !== undefined && h <= latestHeight(env) ? h : undefined;
}

function headerAt(env: RpcEnv, h: bigint | undefined): unknown {
  const meta = h === undefined ? undefined : env.blockStore.blockMeta(h);
  return { header: meta === undefined ? null : headerJSON(meta.header) };
}

function blockResults(env: RpcEnv, requested: bigint | undefined): unknown {
  const h = resolveHeight(env, requested);
  const r = h > 0n ? env.blockStore.results(h) : undefined;
  const txs = h > 0n ? env.blockStore.block(h)?.data.txs : undefined;
  if (r === undefined || txs === undefined) throw internalError(`could not find results for height #${h}`);
  // Go's nil slices (what empty repeated fields decode to) are null
  const list = <T>(xs: readonly T[], f: (x: T) => unknown): unknown[] | null => (xs.length === 0 ? null : xs.map(f));
  return {
    height: int(h),
    // the user txs' results, as `block` lists their txs; app_hash and last_results_hash cover them all
    txs_results: list(userTxsOf(txs, r.txResults), execTxResultJSON),
    finalize_block_events: list(r.events, eventJSON),
    validator_updates: list(r.validatorUpdates, validatorUpdateJSON),
    consensus_param_updates: r.consensusParamUpdates === undefined ? null : consensusParamUpdatesJSON(r.consensusParamUpdates),
    app_hash: b64(r.appHash),
  };
}

/** `filterMinMax`: 0 means the default; the range is clamped to the store and to `limit` blocks below max. */
function blockchain(env: RpcEnv, minArg: bigint | undefined, maxArg: bigint | undefined): unknown {
  const latest = latestHeight(env);
  let min = minArg ?? 0n;
  let max = maxArg ?? 0n;
  if (min < 0n || max < 0n) throw internalError('heights must be non-negative');
  if (min === 0n) min = 1n;
  if (max === 0n) max = latest;
  if (max > latest) max = latest;
  if (min < env.blockStore.base) min = env.blockStore.base;
  if (min < max - BLOCKCHAIN_LIMIT + 1n) min = max - BLOCKCHAIN_LIMIT + 1n;
  if (min > max) throw internalError(`min height ${min} can't be greater than max height ${max}`);
  const metas: unknown[] = [];
  for (let h = max; h >= min; h--) {
    const m = env.blockStore.blockMeta(h);
    if (m !== undefined) metas.push(blockMetaJSON(m));
  }
  return { last_height: int(latest), block_metas: metas };
}

function commit(env: RpcEnv, requested: bigint | undefined): unknown {
  const latest = latestHeight(env);
  const h = resolveHeight(env, requested, latest);
  const meta = h > 0n ? env.blockStore.blockMeta(h) : undefined;
  const c = h > 0n ? env.blockStore.seenCommit(h) : undefined;
  if (meta === undefined || c === undefined) return null;
  // the latest block's commit is the node's own "seen" one; below it, the one block h+1 carries (the same record here)
  return { signed_header: { header: headerJSON(meta.header), commit: commitJSON(c) }, canonical: h !== latest };
}

/**
 * The validator set of height `h`: those who sign block h. Up to the committed height it is the
 * state after h's "last validators"; the next height's set is the current state's.
 */
function validatorSet(env: RpcEnv, h: bigint, latest: bigint): readonly ValidatorUpdate[] {
  if (h === latest + 1n) return env.driver.state.validators;
  const s = env.blockStore.state(h);
  if (s === undefined) throw internalError(`could not find validator set for height #${h}`);
  return s.lastValidators;
}

function validators(env: RpcEnv, requested: bigint | undefined, pageArg: bigint | undefined, perPageArg: bigint | undefined): unknown {
  const latest = latestHeight(env);
  // the default is the latest uncommitted height: the next block's set
  const h = resolveHeight(env, requested, latest + 1n);
  const set = validatorSet(env, h, latest);
  const per = perPage(perPageArg);
  const skip = (page(pageArg, per, set.length) - 1) * per;
  const shown = set.slice(skip, skip + per);
  return { block_height: int(h), validators: shown.map(validatorJSON), count: int(shown.length), total: int(set.length) };
}

/** The consensus params block `h` was built with: the state before it (genesis' for the first block). */
function consensusParams(env: RpcEnv, requested: bigint | undefined): unknown {
  const latest = latestHeight(env);
  const h = resolveHeight(env, requested, latest + 1n);
  let p: ConsensusParams | undefined;
  if (h === latest + 1n) p = env.driver.state.consensusParams;
  else p = h - 1n >= env.blockStore.base && h > 1n ? env.blockStore.state(h - 1n)?.consensusParams : env.genesis.consensusParams;
  if (p === undefined) throw internalError(`could not find consensus params for height #${h}`);
  return { block_height: int(h), consensus_params: consensusParamsJSON(p) };
}

const BLOCK_HEIGHT = 'block.height';

/** `BlockSearch`: blocks whose height and FinalizeBlock events satisfy the query; newest first by default. */
async function blockSearch(env: RpcEnv, query: string, pageArg: bigint | undefined, perPageArg: bigint | undefined, orderBy: string): Promise<unknown> {
  let conditions: Condition[];
  try {
    conditions = searchConditions(query, orderBy);
  } catch (e) {
    if (e instanceof QueryError) throw internalError(e.message);
    throw e;
  }
  const base = env.blockStore.base < 1n ? 1n : env.blockStore.base;
  const [lo, hi] = heightBounds(conditions, BLOCK_HEIGHT, base, latestHeight(env));
  const byEvents = conditions.filter((c) => c.tag !== BLOCK_HEIGHT);
  checkSearchRange(env, lo, hi, BLOCK_HEIGHT);
  const heights: bigint[] = [];
  for (let h = lo; h <= hi; h++) {
    if ((h - lo) % BigInt(SEARCH_HEIGHTS_PER_TURN) === 0n && h !== lo) await yieldTurn();
    if (!conditions.every((c) => c.tag !== BLOCK_HEIGHT || matchValue(c, h.toString()))) continue;
    // only a query on events pays for decoding each block's results
    const events = byEvents.length === 0 ? [] : (env.blockStore.results(h)?.events ?? []);
    if (byEvents.every((c) => matchEvents(c, events))) heights.push(h);
    if (heights.length > env.search.maxResults) searchResultsExceeded(env);
  }
  if (orderBy !== 'asc') heights.reverse();
  const per = perPage(perPageArg);
  const skip = (page(pageArg, per, heights.length) - 1) * per;
  return { blocks: heights.slice(skip, skip + per).map((h) => blockAt(env, h)), total_count: int(heights.length) };
}

export const blockMethods: Readonly<Record<string, RpcMethod>> = {
  block: method({ height: 'int' }, (a, env) => blockAt(env, resolveHeight(env, a.height))),
  block_by_hash: method({ hash: 'bytes' }, (a, env) => {
    const h = heightOfHash(env, a.hash);
    return h === undefined ? { block_id: blockIdJSON(emptyBlockId()), block: null } : blockAt(env, h);
  }),
  header: method({ height: 'int' }, (a, env) => headerAt(env, resolveHeight(env, a.height))),
  header_by_hash: method({ hash: 'bytes' }, (a, env) => headerAt(env, heightOfHash(env, a.hash))),
  block_results: method({ height: 'int' }, (a, env) => blockResults(env, a.height)),
  blockchain: method({ minHeight: 'int', maxHeight: 'int' }, (a, env) => blockchain(env, a.minHeight, a.maxHeight)),
  commit: method({ height: 'int' }, (a, env) => commit(env, a.height)),
  validators: method({ height: 'int', page: 'int', per_page: 'int' }, (a, env) => validators(env, a.height, a.page, a.per_page)),
  consensus_params: method({ height: 'int' }, (a, env) => consensusParams(env, a.height)),
  block_search: method({ query: 'string', page: 'int', per_page: 'int', order_by: 'string' }, (a, env) =>
    blockSearch(env, a.query ?? '', a.page, a.per_page, a.order_by ?? ''),
  ),
};
