// Broadcasting and visibility against a node whose blocks this test produces itself (no block loop),
// so every step is deterministic: the mempool refusals, broadcast_tx_async's later CheckTx,
// broadcast_tx_commit waiting for its block (and timing out, and ending when the server closes or the
// node stops), and nothing read past the committed height while the block store is one block ahead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALICE, BOB, removeTmpDirs, TestNode, until } from '@chaind/chaind/testing';
import { sha256 } from '../hash.ts';
import { startRpcServer, type RpcServer } from './server.ts';

let node: TestNode;
const extra: RpcServer[] = [];

before(
  async () => {
    node = await TestNode.start({ manual: true });
  },
  { timeout: 30_000 },
);

after(
  async () => {
    for (const s of extra) await s.close();
    await node?.stop();
    removeTmpDirs();
  },
  { timeout: 30_000 },
);

interface RpcReply {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: string };
}

async function call(method: string, params: unknown = {}, url = node.url): Promise<RpcReply> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(15_000),
  });
  assert.equal(r.status, 200);
  return (await r.json()) as RpcReply;
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

/** Another server over the same node, e.g. with another commit timeout. */
async function server(broadcastTxCommitTimeoutMs: number): Promise<RpcServer> {
  const s = await startRpcServer({
    host: '127.0.0.1',
    port: 0,
    driver: node.driver,
    app: node.chain.app,
    mempool: node.mempool,
    genesis: node.genesis,
    nodeInfo: { id: 'cd'.repeat(20), moniker: 'second', validatorPubKey: new Uint8Array(32) },
    broadcastTxCommitTimeoutMs,
  });
  extra.push(s);
  return s;
}

describe('broadcasting through the mempool', { timeout: 60_000 }, () => {
  test('broadcast_tx_sync: CheckTx result and hash; a duplicate is refused; the mempool lists it until a block takes it', async () => {
    const tx = node.send(ALICE, BOB.address, '5');
    const r = await call('broadcast_tx_sync', { tx: b64(tx) });
    assert.deepEqual(r.result, { code: 0, data: '', log: '', codespace: '', hash: HEX(sha256(tx)) });
    const dup = await call('broadcast_tx_sync', { tx: b64(tx) });
    assert.equal(dup.error?.code, -32603);
    assert.equal(dup.error?.data, 'tx already exists in cache');
    assert.deepEqual((await call('num_unconfirmed_txs')).result, { n_txs: '0', total: '1', total_bytes: String(tx.length), txs: null });
    assert.deepEqual((await call('unconfirmed_txs', { limit: '5' })).result?.txs, [b64(tx)]);

    const e = node.driver.produceBlock();
    assert.equal(e.block.data.txs.length, 1);
    const found = await call('tx', { hash: b64(sha256(tx)) });
    assert.equal(found.result?.height, e.block.header.height.toString());
    assert.equal(found.result?.index, 0);
    assert.equal((found.result?.tx_result as { code: number }).code, 0);
    // the GET form takes the hash as 0x-hex
    const byGet = (await (await fetch(`${node.url}/tx?hash=0x${HEX(sha256(tx))}`)).json()) as RpcReply;
    assert.equal(byGet.id, -1);
    assert.equal(byGet.result?.hash, HEX(sha256(tx)));
    assert.equal((await call('num_unconfirmed_txs')).result?.total, '0');
  });

  test('broadcast_tx_async answers with the hash at once; CheckTx runs after the reply', async () => {
    const tx = node.send(ALICE, BOB.address, '6');
    const r = await call('broadcast_tx_async', { tx: b64(tx) });
    assert.deepEqual(r.result, { code: 0, data: '', log: '', codespace: '', hash: HEX(sha256(tx)) });
    await until(() => node.mempool.has(sha256(tx)), 'the async tx is in the mempool');
    // garbage is answered the same way, and then refused by CheckTx: nothing admitted
    const size = node.mempool.size();
    const garbage = await call('broadcast_tx_async', { tx: b64(Buffer.from('garbage')) });
    assert.equal(garbage.result?.code, 0);
    await new Promise((res) => setImmediate(res));
    await new Promise((res) => setTimeout(res, 20));
    assert.equal(node.mempool.size(), size);
    node.driver.produceBlock();
    assert.equal(node.mempool.size(), 0);
  });

  test('broadcast_tx_commit waits for the block that includes the tx', async () => {
    const tx = node.send(ALICE, BOB.address, '7');
    const pending = call('broadcast_tx_commit', { tx: b64(tx) });
    await until(() => node.mempool.has(sha256(tx)), 'CheckTx admitted the tx');
    const e = node.driver.produceBlock();
    const r = await pending;
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const res = r.result as {
      check_tx: { code: number; gas_wanted: string };
      tx_result: { code: number; gas_used: string; events: unknown[] };
      hash: string;
      height: string;
    };
    assert.equal(res.check_tx.code, 0);
    assert.equal(res.check_tx.gas_wanted, '500000');
    assert.equal(res.tx_result.code, 0);
    assert.notEqual(res.tx_result.gas_used, '0');
    assert.ok(res.tx_result.events.length > 0);
    assert.equal(res.hash, HEX(sha256(tx)));
    assert.equal(res.height, e.block.header.height.toString());
  });

  test('broadcast_tx_commit with a failing CheckTx answers at once: default tx_result, height 0', async () => {
    const r = await call('broadcast_tx_commit', { tx: b64(Buffer.from('garbage')) });
    const res = r.result as { check_tx: { code: number; codespace: string }; tx_result: Record<string, unknown>; height: string };
    assert.equal(res.check_tx.code, 2);
    assert.equal(res.check_tx.codespace, 'sdk');
    assert.deepEqual(res.tx_result, { code: 0, data: null, log: '', info: '', gas_wanted: '0', gas_used: '0', events: [], codespace: '' });
    assert.equal(res.height, '0');
  });

  test('broadcast_tx_commit times out when no block comes (the tx stays in the mempool)', async () => {
    const s = await server(300);
    const tx = node.send(ALICE, BOB.address, '8');
    const started = Date.now();
    const r = await call('broadcast_tx_commit', { tx: b64(tx) }, s.url);
    assert.ok(Date.now() - started >= 290);
    assert.equal(r.error?.code, -32603);
    assert.equal(r.error?.data, 'timed out waiting for tx to be included in a block');
    assert.ok(node.mempool.has(sha256(tx)));
    node.driver.produceBlock();
    assert.equal((await call('tx', { hash: b64(sha256(tx)) })).error, undefined);
  });

  test('closing the server ends a pending broadcast_tx_commit with an error, promptly', async () => {
    const s = await server(60_000);
    const tx = node.send(ALICE, BOB.address, '9');
    const pending = call('broadcast_tx_commit', { tx: b64(tx) }, s.url);
    await until(() => node.mempool.has(sha256(tx)), 'CheckTx admitted the tx');
    const started = Date.now();
    await s.close();
    const r = await pending;
    assert.ok(Date.now() - started < 2_000);
    assert.equal(r.error?.code, -32603);
    assert.equal(r.error?.data, 'the RPC server is closing');
    await assert.rejects(fetch(s.url, { method: 'POST', body: '{}' }), 'the closed server refuses connections');
    assert.equal((await call('health')).error, undefined, 'the other server is unaffected');
    node.driver.produceBlock();
  });
});

describe('nothing is read past the committed height', { timeout: 60_000 }, () => {
  test('a block saved but not yet committed by the app is invisible until committed', async () => {
    const tx = node.send(ALICE, BOB.address, '10');
    assert.equal((await call('broadcast_tx_sync', { tx: b64(tx) })).result?.code, 0);
    const committed = node.driver.height;
    const saved = node.driver.saveBlock(node.driver.executeBlock(node.driver.proposeBlock()));
    const next = committed + 1n;
    assert.equal(node.blockStore.height, next, 'the block store is one block ahead');
    try {
      const status = (await call('status')).result as { sync_info: { latest_block_height: string } };
      assert.equal(status.sync_info.latest_block_height, committed.toString());
      const blk = await call('block', { height: next.toString() });
      assert.equal(blk.error?.data, `height ${next} must be less than or equal to the current blockchain height ${committed}`);
      assert.equal(((await call('block')).result?.block as { header: { height: string } }).header.height, committed.toString());
      assert.equal((await call('blockchain')).result?.last_height, committed.toString());
      assert.equal((await call('block_by_hash', { hash: b64(saved.blockId.hash) })).result?.block, null);
      assert.match((await call('tx', { hash: b64(sha256(tx)) })).error?.data ?? '', /not found/);
      assert.equal((await call('tx_search', { query: `tx.height=${next}` })).result?.total_count, '0');
      assert.equal((await call('tx_search', { query: `tx.hash='${HEX(sha256(tx))}'` })).result?.total_count, '0');
      assert.equal((await call('validators')).result?.block_height, next.toString(), "the default is the next height's set");
    } finally {
      node.driver.commitBlock(saved);
    }
    assert.equal((await call('tx', { hash: b64(sha256(tx)) })).result?.height, next.toString());
    assert.equal(
      ((await call('block_by_hash', { hash: b64(saved.blockId.hash) })).result?.block as { header: { height: string } }).header.height,
      next.toString(),
    );
    assert.equal((await call('tx_search', { query: `tx.height=${next}` })).result?.total_count, '1');
  });

  test('a stopped node: broadcast_tx_commit fails at once, reads still work', async () => {
    await node.driver.stop();
    const tx = node.send(ALICE, BOB.address, '11');
    const r = await call('broadcast_tx_commit', { tx: b64(tx) });
    assert.equal(r.error?.data, 'the node stopped before the tx was included in a block');
    const status = (await call('status')).result as { sync_info: { latest_block_height: string } };
    assert.equal(status.sync_info.latest_block_height, node.driver.height.toString());
  });
});
