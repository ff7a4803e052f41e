// The transport and bad input: the JSON-RPC envelope (ids, batches, notifications), the GET URI form,
// and every kind of malformed request getting its documented error — after each of which the server
// answers normally and the node keeps producing blocks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { BOB, DENOM, removeTmpDirs, TestNode } from '@chaind/chaind/testing';
import { DEFAULT_MAX_BODY_BYTES } from './server.ts';

let node: TestNode;

before(
  async () => {
    node = await TestNode.start({ blockIntervalMs: 100 });
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
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: string };
}

async function raw(body: string | Uint8Array, path = '/', method = 'POST'): Promise<{ status: number; text: string }> {
  const headers = method === 'POST' ? { 'content-type': 'application/json' } : undefined;
  const r = await fetch(node.url + path, { method, headers, body: method === 'GET' ? undefined : body, signal: AbortSignal.timeout(10_000) });
  return { status: r.status, text: await r.text() };
}

async function call(method: string, params?: unknown, id: unknown = 1): Promise<RpcReply> {
  const r = await raw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as RpcReply;
}

async function get(pathAndQuery: string): Promise<{ status: number; reply: RpcReply }> {
  const r = await raw('', pathAndQuery, 'GET');
  return { status: r.status, reply: JSON.parse(r.text) as RpcReply };
}

function assertError(r: RpcReply, code: number, data?: RegExp | string): void {
  assert.equal(r.result, undefined, JSON.stringify(r));
  assert.ok(r.error !== undefined, JSON.stringify(r));
  assert.equal(r.error.code, code, JSON.stringify(r.error));
  if (typeof data === 'string') assert.equal(r.error.data, data);
  else if (data !== undefined) assert.match(r.error.data ?? '', data);
}

/** The server still answers, and the node still commits blocks. */
async function assertAlive(): Promise<void> {
  const before = node.driver.height;
  const r = await call('status', undefined, 'alive');
  assert.equal(r.id, 'alive');
  assert.ok(r.result !== undefined);
  await node.waitForHeight(before + 1n, 5_000);
}

describe('JSON-RPC envelope', { timeout: 60_000 }, () => {
  test('ids are echoed: numbers, strings, null; positional params work', async () => {
    assert.equal((await call('health', undefined, 42)).id, 42);
    assert.equal((await call('health', undefined, 'abc')).id, 'abc');
    const n = await call('health', undefined, null);
    assert.equal(n.id, null);
    assert.deepEqual(n.result, {});
    const byPosition = await call('block', ['1']);
    assert.equal((byPosition.result?.block as { header: { height: string } }).header.height, '1');
    const bare = await call('block', { height: 1 });
    assert.ok(bare.result !== undefined, 'a bare JSON integer is accepted for an int64 parameter');
  });

  test('a batch answers each entry in order; notifications get no entry; a bad entry does not spoil the others', async () => {
    const r = await raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'health' },
        42,
        { jsonrpc: '2.0', id: 3, method: 'no_such_method' },
        { jsonrpc: '2.0', method: 'health' },
        { jsonrpc: '2.0', id: 'four', method: 'block', params: { height: 'x' } },
        { jsonrpc: '2.0', id: { bad: true }, method: 'health' },
        { jsonrpc: '2.0', id: 5, method: 'abci_info' },
      ]),
    );
    assert.equal(r.status, 200);
    const out = JSON.parse(r.text) as RpcReply[];
    assert.deepEqual(
      out.map((x) => [x.id, x.error?.code ?? 'ok']),
      [
        [1, 'ok'],
        [null, -32600],
        [3, -32601],
        ['four', -32602],
        [null, -32600],
        [5, 'ok'],
      ],
    );
    // a batch of notifications only: nothing to say
    const quiet = await raw(JSON.stringify([{ jsonrpc: '2.0', method: 'health' }]));
    assert.deepEqual(quiet, { status: 200, text: '' });
    assertError(JSON.parse((await raw('[]')).text) as RpcReply, -32600, 'empty batch');
    await assertAlive();
  });

  test("abci_query answers as CometBFT's Query connection does: prove=true refused (no proofs yet), /p2p/filter/addr and /p2p/filter/id code 0", async () => {
    const data = Buffer.from(QueryBalanceRequest.encode({ address: BOB.address, denom: DENOM }).finish()).toString('hex');
    const proved = await call('abci_query', { path: '/cosmos.bank.v1beta1.Query/Balance', data, prove: true });
    const refused = proved.result?.response as { code: number; log: string };
    assert.notEqual(refused.code, 0, JSON.stringify(proved));
    assert.match(refused.log, /proofs are not supported yet/);
    for (const path of ['/p2p/filter/addr/127.0.0.1:26656', '/p2p/filter/id/0123456789abcdef0123456789abcdef01234567']) {
      const r = await call('abci_query', { path });
      assert.equal((r.result?.response as { code: number }).code, 0, JSON.stringify(r));
    }
  });

  test('GET URI form: id -1, bare integers, quoted strings, 0x-hex; errors with HTTP 500; unknown paths 404', async () => {
    const s = await get('/status');
    assert.equal(s.status, 200);
    assert.equal(s.reply.id, -1);
    assert.ok(s.reply.result?.sync_info !== undefined);
    const b = await get('/block?height=1');
    assert.equal((b.reply.result?.block as { header: { height: string } }).header.height, '1');
    assert.equal(((await get('/block?height="1"')).reply.result?.block as { header: { height: string } }).header.height, '1', 'a quoted integer too');
    const data = Buffer.from(QueryBalanceRequest.encode({ address: BOB.address, denom: DENOM }).finish()).toString('hex');
    const q = await get(`/abci_query?path="/cosmos.bank.v1beta1.Query/Balance"&data=0x${data}&height=0`);
    assert.equal(q.status, 200);
    const resp = q.reply.result?.response as { code: number; value: string; height: string };
    assert.equal(resp.code, 0);
    assert.notEqual(resp.height, '0');
    assert.equal(QueryBalanceResponse.decode(Buffer.from(resp.value, 'base64')).balance?.denom, DENOM);

    const notInt = await get('/block?height=abc');
    assert.equal(notInt.status, 500);
    assertError(notInt.reply, -32602, /^error converting http params to arguments: height/);
    const hexInt = await get('/block?height=0x10');
    assertError(hexInt.reply, -32602, /hex string arg, but expected an integer/);
    const unquoted = await get('/abci_query?path=/x');
    assertError(unquoted.reply, -32602, /path/);
    const tooHigh = await get('/block?height=999999');
    assert.equal(tooHigh.status, 500);
    assertError(tooHigh.reply, -32603, /^height 999999 must be less than or equal to the current blockchain height \d+$/);

    const missing = await raw('', '/no_such_method', 'GET');
    assert.equal(missing.status, 404);
    assertError(JSON.parse(missing.text) as RpcReply, -32601);
    assert.equal((await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status' }), '/v2')).status, 404, 'POST to another path is not JSON-RPC');
    const index = await raw('', '/', 'GET');
    assert.equal(index.status, 200);
    assert.match(index.text, /Available endpoints/);
    assert.match(index.text, /abci_query\?path=_&amp;data=_&amp;height=_&amp;prove=_/);
  });
});

describe('bad input gets its documented error, then the server answers normally', { timeout: 60_000 }, () => {
  test('malformed JSON: parse error', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": "status"', 'not json at all', '\u0000\u0001']) {
      const r = await raw(body);
      assert.equal(r.status, 500, 'CometBFT answers an unreadable body with HTTP 500');
      const reply = JSON.parse(r.text) as RpcReply;
      assert.equal(reply.id, null);
      assertError(reply, -32700, /^error unmarshaling request: /);
    }
    await assertAlive();
  });

  test('invalid requests: not an object, no method, a bad id', async () => {
    assertError(JSON.parse((await raw('"status"')).text) as RpcReply, -32600, 'a request must be a JSON object');
    assertError(JSON.parse((await raw('{"jsonrpc":"2.0","id":1}')).text) as RpcReply, -32600, 'method must be a string');
    assertError(JSON.parse((await raw('{"jsonrpc":"2.0","id":[1],"method":"status"}')).text) as RpcReply, -32600, /id must be/);
    await assertAlive();
  });

  test('unknown method', async () => {
    const r = await call('eth_blockNumber', [], 7);
    assert.equal(r.id, 7);
    assertError(r, -32601, 'method "eth_blockNumber" not found');
    assert.equal(r.error?.message, 'Method not found');
    await assertAlive();
  });

  test('wrong parameter types', async () => {
    assertError(await call('block', { height: true }), -32602, /^error converting json params to arguments: height: invalid 64-bit integer encoding true/);
    assertError(await call('block', { height: '1.5' }), -32602, /height/);
    assertError(await call('block', { height: '99999999999999999999' }), -32602, /out of the int64 range/);
    assertError(await call('abci_query', { path: 1 }), -32602, /path: expected a string/);
    assertError(await call('abci_query', { path: '/x', prove: 'yes' }), -32602, /prove: expected a boolean/);
    assertError(await call('tx_search', { query: 'tx.height=1', page: {} }), -32602, /page/);
    assertError(await call('status', 'params as a string'), -32602, /unknown type for JSON params/);
    assertError(await call('block', ['1', '2']), -32602, /expected at most 1 parameters/);
    await assertAlive();
  });

  test('bad hex and bad base64', async () => {
    assertError(await call('abci_query', { path: '/x', data: 'zz' }), -32602, /data: invalid hex string/);
    assertError(await call('abci_query', { path: '/x', data: 'abc' }), -32602, /data: invalid hex string/);
    assertError(await call('broadcast_tx_sync', { tx: '!!!not base64' }), -32602, /tx: illegal base64 data/);
    assertError(await call('broadcast_tx_sync', { tx: 'YWJj' + 'Z' }), -32602, /tx: illegal base64 data/);
    assertError(await call('tx', { hash: 'ABCDEF0123' }), -32602, /hash: illegal base64/);
    await assertAlive();
  });

  test('negative and too-high heights: CometBFT texts', async () => {
    const latest = node.driver.height;
    assertError(await call('block', { height: '-1' }), -32603, 'height must be greater than 0, but got -1');
    assertError(await call('block', { height: '0' }), -32603, 'height must be greater than 0, but got 0');
    const high = latest + 1000n;
    const r = await call('block_results', { height: high.toString() });
    assertError(r, -32603, /^height \d+ must be less than or equal to the current blockchain height \d+$/);
    assert.match(r.error?.data ?? '', new RegExp(`^height ${high} `));
    assertError(await call('commit', { height: high.toString() }), -32603, /must be less than or equal to the current blockchain height/);
    assertError(await call('blockchain', { minHeight: '-5' }), -32603, 'heights must be non-negative');
    assertError(await call('blockchain', { minHeight: '10', maxHeight: '5' }), -32603, "min height 10 can't be greater than max height 5");
    assertError(await call('validators', { height: (latest + 100n).toString() }), -32603, /must be less than or equal/);
    assertError(await call('validators', { page: '2' }), -32603, 'page should be within [1, 1] range, given 2');
    assertError(await call('tx_search', { query: 'tx.height=1', order_by: 'sideways' }), -32603, /order_by/);
    assertError(await call('tx_search', { query: "tx.height = = 'x'" }), -32603, /failed to parse query/);
    assertError(await call('tx', { hash: Buffer.alloc(32, 7).toString('base64') }), -32603, `tx (${'07'.repeat(32).toUpperCase()}) not found`);
    // reads never go past the committed height
    const latestBlock = await call('block', {});
    assert.ok(BigInt((latestBlock.result?.block as { header: { height: string } }).header.height) <= node.driver.height);
    await assertAlive();
  });

  test('an oversized body: request body too large, the next request is served', async () => {
    const big = Buffer.alloc(DEFAULT_MAX_BODY_BYTES + 200_000, 0x20);
    const r = await raw(big);
    assert.equal(r.status, 400);
    assertError(JSON.parse(r.text) as RpcReply, -32600, 'error reading request body: http: request body too large');
    // streamed without a Content-Length too
    const stream = new ReadableStream<Uint8Array>({
      start(c): void {
        for (let i = 0; i < 12; i++) c.enqueue(new Uint8Array(100_000).fill(0x20));
        c.close();
      },
    });
    const s = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
      signal: AbortSignal.timeout(10_000),
    } as RequestInit);
    assert.equal(s.status, 400);
    await s.text();
    // just under the limit is read (and is then merely bad JSON)
    const under = await raw(Buffer.alloc(DEFAULT_MAX_BODY_BYTES, 0x20));
    assertError(JSON.parse(under.text) as RpcReply, -32700);
    await assertAlive();
  });

  test('garbage tx bytes: CheckTx code 2 as a result; the node keeps producing blocks', async () => {
    const garbage = Buffer.from('this is not a transaction');
    const r = await call('broadcast_tx_sync', { tx: garbage.toString('base64') });
    const res = r.result as { code: number; codespace: string; log: string; hash: string; data: string };
    assert.equal(res.code, 2, res.log);
    assert.equal(res.codespace, 'sdk');
    assert.match(res.log, /tx parse error/);
    assert.match(res.hash, /^[0-9A-F]{64}$/);
    assert.equal(res.data, '');
    const empty = await call('broadcast_tx_sync', { tx: '' });
    assert.notEqual((empty.result as { code: number }).code, 0);
    assert.equal(node.mempool.size(), 0, 'nothing was admitted');
    const h = node.driver.height;
    await node.waitForHeight(h + 3n, 5_000);
    await assertAlive();
  });
});
