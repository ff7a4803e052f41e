// Transactions: broadcast_tx_sync/async/commit through the mempool's CheckTx (the admission REST and
// gRPC share: tx-service.ts), tx and tx_search over the block store's index, and the mempool's
// contents (CometBFT rpc/core/mempool.go, tx.go). Committed txs are the user txs (user-txs.ts), indexed
// among themselves, as `block` and `block_results` list them.
import { Buffer } from 'node:buffer';
import type { ResponseCheckTx } from 'cosmjs-types/tendermint/abci/types';
import { MempoolRefusal } from '@chaind/sdk/admission';
import { txHash } from '../../hash.ts';
import { committedTxIn } from '../../driver.ts';
import { userTxRecords, type UserTx } from '../../user-txs.ts';
import { checkTx, checkTxLater } from '../../tx-service.ts';
import { checkTxJSON, EMPTY_TX_RESULT, execTxResultJSON, hex, int, type JsonObject } from '../encode.ts';
import {
  checkSearchRange,
  latestHeight,
  method,
  page,
  perPage,
  SEARCH_HEIGHTS_PER_TURN,
  searchResultsExceeded,
  yieldTurn,
  type RpcEnv,
  type RpcMethod,
} from '../env.ts';
import { internalError } from '../errors.ts';
import { heightBounds, matchEvents, matchValue, QueryError, searchConditions, type Condition } from '../query.ts';
import { errorMessage } from '@chaind/errors';

/** `max_subscription_clients`: broadcast_tx_commit calls waiting at once. */
export const MAX_COMMIT_WAITERS = 100;

const TX_HASH = 'tx.hash';
const TX_HEIGHT = 'tx.height';

/** The shared admission (tx-service.ts); the mempool's own refusals are RPC errors with CometBFT's texts. */
async function admit(env: RpcEnv, tx: Uint8Array): Promise<ResponseCheckTx> {
  try {
    return await checkTx(env, tx);
  } catch (e) {
    if (e instanceof MempoolRefusal) throw internalError(e.message);
    throw e;
  }
}

function broadcastResult(r: ResponseCheckTx | undefined, hash: Uint8Array): JsonObject {
  // ResultBroadcastTx: data is HexBytes here, unlike in the jsonpb ABCI responses
  return { code: r?.code ?? 0, data: hex(r?.data ?? new Uint8Array(0)), log: r?.log ?? '', codespace: r?.codespace ?? '', hash: hex(hash) };
}

function broadcastAsync(env: RpcEnv, tx: Uint8Array): JsonObject {
  // the synchronous refusals still answer the call; CheckTx itself runs after the reply
  try {
    checkTxLater(env, tx);
  } catch (e) {
    if (e instanceof MempoolRefusal) throw internalError(e.message);
    throw e;
  }
  return broadcastResult(undefined, txHash(tx));
}

/** CheckTx, then the block that includes the tx (or the timeout, or the node or server stopping). */
function broadcastCommit(env: RpcEnv, tx: Uint8Array): Promise<JsonObject> {
  if (env.waiting.count >= MAX_COMMIT_WAITERS) throw internalError(`max_subscription_clients ${MAX_COMMIT_WAITERS} reached`);
  if (env.cancel.aborted) throw internalError(String(env.cancel.reason));
  const hash = txHash(tx);
  const key = Buffer.from(hash);
  return new Promise<JsonObject>((resolve, reject) => {
    env.waiting.count++;
    let checkTx: JsonObject = {};
    // CheckTx answers after a wait of its own: the timeout or the server's closing may have ended the call first
    let finished = false;
    const done = (): void => {
      finished = true;
      env.waiting.count--;
      off();
      clearTimeout(timer);
      env.cancel.removeEventListener('abort', onCancel);
    };
    // subscribed before CheckTx, as CometBFT does, so the including block cannot be missed
    const off = env.driver.onBlock((e) => {
      const t = e.txs.find((x) => key.equals(x.hash));
      if (t === undefined) return;
      done();
      resolve({ check_tx: checkTx, tx_result: execTxResultJSON(t.result), hash: hex(hash), height: int(e.height) });
    });
    const timer = setTimeout(() => {
      done();
      reject(internalError('timed out waiting for tx to be included in a block'));
    }, env.broadcastTxCommitTimeoutMs);
    const onCancel = (): void => {
      done();
      reject(internalError(String(env.cancel.reason)));
    };
    env.cancel.addEventListener('abort', onCancel, { once: true });
    admit(env, tx).then(
      (r) => {
        checkTx = checkTxJSON(r);
        if (r.code !== 0 && !finished) {
          done();
          resolve({ check_tx: checkTx, tx_result: execTxResultJSON(EMPTY_TX_RESULT), hash: hex(hash), height: '0' });
        }
      },
      (e: unknown) => {
        if (finished) return;
        done();
        reject(internalError(`error on broadcastTxCommit: ${errorMessage(e)}`));
      },
    );
  });
}

/** `ResultTx` (proofs are not produced: `prove` is ignored). */
function resultTx(r: UserTx): JsonObject {
  return { hash: hex(r.hash), height: int(r.height), index: r.index, tx_result: execTxResultJSON(r.result), tx: Buffer.from(r.tx).toString('base64') };
}

function txByHash(env: RpcEnv, hash: Uint8Array | undefined): JsonObject {
  if (hash === undefined || hash.length === 0) throw internalError('transaction hash cannot be empty');
  const r = committedTxIn(env.blockStore, latestHeight(env), hash);
  if (r === undefined) throw internalError(`tx (${hex(hash)}) not found`);
  return resultTx(r);
}

/** The kv indexer's search: a tx.hash condition decides alone; otherwise every condition must hold. */
async function search(env: RpcEnv, conditions: readonly Condition[]): Promise<UserTx[]> {
  const byHash = conditions.find((c) => c.tag === TX_HASH);
  if (byHash !== undefined) {
    const text = byHash.operand?.kind === 'string' ? byHash.operand.value : byHash.operand?.kind === 'number' ? byHash.operand.text : '';
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw internalError(`error during searching for a hash in the query: invalid hex ${JSON.stringify(text)}`);
    const r = committedTxIn(env.blockStore, latestHeight(env), Buffer.from(text, 'hex'));
    return r !== undefined ? [r] : [];
  }
  const [lo, hi] = heightBounds(conditions, TX_HEIGHT, env.blockStore.base < 1n ? 1n : env.blockStore.base, latestHeight(env));
  checkSearchRange(env, lo, hi, TX_HEIGHT);
  const out: UserTx[] = [];
  // heights without user txs cost one index range read (the index holds user txs only); only blocks with some are decoded
  for (let h = lo; h <= hi; h++) {
    if ((h - lo) % BigInt(SEARCH_HEIGHTS_PER_TURN) === 0n && h !== lo) await yieldTurn();
    if (env.blockStore.txsByHeight(h).length === 0) continue;
    const block = env.blockStore.block(h);
    const results = env.blockStore.results(h);
    if (block === undefined || results === undefined) continue;
    for (const r of userTxRecords(h, block.data.txs, results.txResults)) {
      if (conditions.every((c) => (c.tag === TX_HEIGHT ? matchValue(c, h.toString()) : matchEvents(c, r.result.events)))) out.push(r);
    }
    if (out.length > env.search.maxResults) searchResultsExceeded(env);
  }
  return out;
}

async function txSearch(env: RpcEnv, query: string, pageArg: bigint | undefined, perPageArg: bigint | undefined, orderBy: string): Promise<JsonObject> {
  let conditions: Condition[];
  try {
    conditions = searchConditions(query, orderBy);
  } catch (e) {
    if (e instanceof QueryError) throw internalError(e.message);
    throw e;
  }
  const found = await search(env, conditions);
  // the scan is in ascending (height, index) order already
  if (orderBy === 'desc') found.reverse();
  const per = perPage(perPageArg);
  const skip = (page(pageArg, per, found.length) - 1) * per;
  return { txs: found.slice(skip, skip + per).map(resultTx), total_count: int(found.length) };
}

function unconfirmed(env: RpcEnv, limit: number | undefined): JsonObject {
  const all = limit === undefined ? [] : env.mempool.reap(-1).slice(0, limit);
  return {
    n_txs: int(all.length),
    total: int(env.mempool.size()),
    total_bytes: int(env.mempool.bytes()),
    txs: limit === undefined ? null : all.map((tx) => Buffer.from(tx).toString('base64')),
  };
}

export const txMethods: Readonly<Record<string, RpcMethod>> = {
  broadcast_tx_sync: method({ tx: 'bytes' }, async (a, env) => {
    const tx = a.tx ?? new Uint8Array(0);
    return broadcastResult(await admit(env, tx), txHash(tx));
  }),
  broadcast_tx_async: method({ tx: 'bytes' }, (a, env) => broadcastAsync(env, a.tx ?? new Uint8Array(0))),
  broadcast_tx_commit: method({ tx: 'bytes' }, (a, env) => broadcastCommit(env, a.tx ?? new Uint8Array(0))),
  tx: method({ hash: 'bytes', prove: 'bool' }, (a, env) => txByHash(env, a.hash)),
  tx_search: method({ query: 'string', prove: 'bool', page: 'int', per_page: 'int', order_by: 'string' }, (a, env) =>
    txSearch(env, a.query ?? '', a.page, a.per_page, a.order_by ?? ''),
  ),
  unconfirmed_txs: method({ limit: 'int' }, (a, env) => unconfirmed(env, perPage(a.limit))),
  num_unconfirmed_txs: method({}, (_a, env) => unconfirmed(env, undefined)),
};
