// With vote extensions on, every block from the second leads with the extended commit (consensus's record,
// no user's tx). These tests hold each view of "transactions" to the user txs — the node log, the block
// event the metrics count, JSON-RPC block, blockchain, block_results, tx, tx_search, broadcast_tx_commit,
// and the tx service's GetTx — while the block as stored and hashed keeps the extended commit.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Block } from 'cosmjs-types/tendermint/types/block';
import type { ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import { encodeInjectedTx, isInjectedTx } from '@chaind/sdk/app';
import { ALICE, BOB, removeTmpDirs, TestNode, until } from '@chaind/chaind/testing';
import { dataHash, sha256 } from './hash.ts';
import { getTx, TxServiceError } from './tx-service.ts';
import { injectedTxCount, isInjectedTxAt, userBlock, userTxAt, userTxCount, userTxRecords, userTxsOf } from './user-txs.ts';
import { status } from './grpc-status.ts';

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

describe('user txs of a block: one rule', () => {
  const injected = encodeInjectedTx({ round: 0, votes: [] });
  const a = Uint8Array.of(10, 1, 1);
  const b = Uint8Array.of(10, 1, 2);
  const result = (code: number): ExecTxResult => ({ code, data: new Uint8Array(0), log: '', info: '', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '' });

  test('the extended commit counts only in the first place', () => {
    assert.equal(injectedTxCount([injected, a, b]), 1);
    assert.equal(injectedTxCount([a, b]), 0);
    assert.equal(injectedTxCount([]), 0);
    // out of place it is no extended commit of this block (ProcessProposal refuses such a block)
    assert.equal(injectedTxCount([a, injected]), 0);
    assert.equal(isInjectedTxAt(0, injected), true);
    assert.equal(isInjectedTxAt(1, injected), false);
    assert.equal(userTxCount([injected, a, b]), 2);
    assert.equal(userTxCount([injected]), 0);
    assert.deepEqual(userTxsOf([injected, a, b], [result(0), result(1), result(2)]), [result(1), result(2)]);
  });

  test('records are indexed among the user txs; the extended commit has none', () => {
    const recs = userTxRecords(7n, [injected, a, b], [result(0), result(1), result(2)]);
    assert.deepEqual(
      recs.map((r) => [r.height, r.index, HEX(r.hash), r.result.code]),
      [
        [7n, 0, HEX(sha256(a)), 1],
        [7n, 1, HEX(sha256(b)), 2],
      ],
    );
    const block = Block.fromPartial({ header: { height: 7n }, data: { txs: [injected, a, b] } });
    const results = [result(0), result(1), result(2)];
    assert.equal(userTxAt(7n, block, results, 0, sha256(injected)), undefined);
    assert.equal(userTxAt(7n, block, results, 2, sha256(b))?.index, 1);
    assert.equal(userTxAt(7n, block, results, 3, sha256(b)), undefined);
    const shown = userBlock(block);
    assert.deepEqual(shown.data.txs, [a, b]);
    assert.deepEqual(block.data.txs, [injected, a, b], 'the block itself is not touched');
    assert.equal(userBlock(Block.fromPartial({ data: { txs: [a] } })).data.txs.length, 1);
  });
});

describe('a solo node with vote extensions on: every view shows the user txs only', { timeout: 60_000 }, () => {
  let node: TestNode;

  before(
    async () => {
      node = await TestNode.start({ manual: true, voteExtensions: true });
    },
    { timeout: 30_000 },
  );

  after(
    async () => {
      await node?.stop();
      removeTmpDirs();
    },
    { timeout: 30_000 },
  );

  interface RpcReply {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: string };
  }

  async function call(method: string, params: unknown = {}): Promise<RpcReply> {
    const r = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(15_000),
    });
    return (await r.json()) as RpcReply;
  }

  test('one bank send: the block as stored leads with the extended commit, every view lists the send alone', async () => {
    const tx = node.send(ALICE, BOB.address, '3');
    assert.equal((await call('broadcast_tx_sync', { tx: b64(tx) })).result?.code, 0);
    const next = node.waitForBlock(() => true);
    node.driver.produceBlock();
    const e = await next;
    const h = e.block.header.height;

    // stored and hashed as consensus made it
    const stored = node.blockStore.block(h);
    assert.ok(stored !== undefined);
    assert.equal(stored.data.txs.length, 2);
    assert.ok(isInjectedTx(stored.data.txs[0]));
    assert.deepEqual(stored.data.txs[1], tx);
    assert.equal(HEX(stored.header.dataHash), HEX(dataHash(stored.data.txs)));
    assert.equal(node.blockStore.results(h)?.txResults.length, 2);

    // the block event (what the metrics count) and the log line
    assert.deepEqual(
      e.txs.map((t) => [HEX(t.hash), t.index]),
      [[HEX(sha256(tx)), 0]],
    );
    const line = node.logger.lines.find((l) => l.msg === 'committed block' && l.fields?.height === h.toString());
    assert.equal(line?.fields?.txs, 1);

    // JSON-RPC: block, blockchain, block_results
    const blk = (await call('block', { height: h.toString() })).result as { block: { header: { data_hash: string }; data: { txs: string[] } } };
    assert.deepEqual(blk.block.data.txs, [b64(tx)]);
    assert.equal(blk.block.header.data_hash, HEX(stored.header.dataHash), 'the header is the block as made');
    const chain = (await call('blockchain', { minHeight: h.toString(), maxHeight: h.toString() })).result as {
      block_metas: { num_txs: string; block_size: string }[];
    };
    assert.equal(chain.block_metas[0].num_txs, '1');
    assert.equal(chain.block_metas[0].block_size, String(node.blockStore.blockBytes(h)?.length));
    const res = (await call('block_results', { height: h.toString() })).result as { txs_results: { code: number; gas_used: string }[] };
    assert.equal(res.txs_results.length, 1);
    assert.equal(res.txs_results[0].code, 0);
    assert.notEqual(res.txs_results[0].gas_used, '0', "the send's result, not the extended commit's");

    // tx and tx_search
    const found = (await call('tx', { hash: b64(sha256(tx)) })).result;
    assert.equal(found?.height, h.toString());
    assert.equal(found?.index, 0);
    const byHeight = (await call('tx_search', { query: `tx.height=${h}` })).result as { total_count: string; txs: { hash: string; index: number }[] };
    assert.equal(byHeight.total_count, '1');
    assert.deepEqual(
      byHeight.txs.map((t) => [t.hash, t.index]),
      [[HEX(sha256(tx)), 0]],
    );
    const extended = sha256(stored.data.txs[0]);
    assert.match((await call('tx', { hash: b64(extended) })).error?.data ?? '', /not found/);
    assert.equal((await call('tx_search', { query: `tx.hash='${HEX(extended)}'` })).result?.total_count, '0');

    // the tx service (GetTx of REST and gRPC)
    const txNode = { driver: node.driver, admission: node.driver.admission, app: node.chain.app, logger: node.logger };
    assert.equal((await getTx(txNode, { hash: HEX(sha256(tx)) })).txResponse?.height, h);
    await assert.rejects(getTx(txNode, { hash: HEX(extended) }), (err: unknown) => err instanceof TxServiceError && err.code === status.NOT_FOUND);
  });

  test('a block with no user tx: the views show none, though it carries the extended commit', async () => {
    const next = node.waitForBlock(() => true);
    node.driver.produceBlock();
    const e = await next;
    const h = e.block.header.height;
    assert.equal(e.block.data.txs.length, 1);
    assert.deepEqual(e.txs, []);
    assert.deepEqual(node.blockStore.txsByHeight(h), [], 'the tx index holds user txs only');
    const blk = (await call('block', { height: h.toString() })).result as { block: { data: { txs: string[] } } };
    assert.deepEqual(blk.block.data.txs, []);
    const chain = (await call('blockchain', { minHeight: h.toString(), maxHeight: h.toString() })).result as { block_metas: { num_txs: string }[] };
    assert.equal(chain.block_metas[0].num_txs, '0');
    assert.equal(((await call('block_results', { height: h.toString() })).result as { txs_results: unknown }).txs_results, null);
    assert.equal((await call('tx_search', { query: `tx.height=${h}` })).result?.total_count, '0');
    const line = node.logger.lines.find((l) => l.msg === 'committed block' && l.fields?.height === h.toString());
    assert.equal(line?.fields?.txs, 0);
  });

  test("broadcast_tx_commit answers with the user tx's own result", async () => {
    const tx = node.send(ALICE, BOB.address, '4');
    const pending = call('broadcast_tx_commit', { tx: b64(tx) });
    await until(() => node.mempool.has(sha256(tx)), 'CheckTx admitted the tx');
    const e = node.driver.produceBlock();
    const r = (await pending).result as { tx_result: { code: number; gas_used: string; events: unknown[] }; height: string };
    assert.equal(r.height, e.block.header.height.toString());
    assert.equal(r.tx_result.code, 0);
    assert.notEqual(r.tx_result.gas_used, '0');
    assert.ok(r.tx_result.events.length > 0);
  });
});
