// The REST tx routes over a real node whose blocks the test produces itself (so every step is
// deterministic): broadcast a signed bank send, find it after its block, simulate one, and the exact
// error each bad input gets — after which the node still takes txs and makes blocks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALICE, BOB, DENOM, removeTmpDirs, TestNode, until } from '@chaind/chaind/testing';
import { sha256 } from '../hash.ts';
import type { TxNode } from '../tx-service.ts';
import { startRestServer, type RestServer } from './server.ts';
import { errorMessage } from '@chaind/errors';

let node: TestNode;
let rest: RestServer;
let small: RestServer;

const txNode = (): TxNode => ({ driver: node.driver, admission: node.driver.admission, app: node.chain.app, logger: node.logger });

before(
  async () => {
    node = await TestNode.start({ manual: true });
    rest = await startRestServer({ port: 0, app: node.chain.app, txNode: txNode() });
    small = await startRestServer({ port: 0, app: node.chain.app, txNode: txNode(), maxBodyBytes: 1024 });
  },
  { timeout: 30_000 },
);

after(
  async () => {
    await small?.close();
    await rest?.close();
    await node?.stop();
    removeTmpDirs();
  },
  { timeout: 30_000 },
);

type Json = Record<string, unknown>;

interface Reply {
  readonly status: number;
  readonly body: Json;
}

async function post(path: string, body: string | object, o: { url?: string; type?: string } = {}): Promise<Reply> {
  const r = await fetch(`${o.url ?? rest.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': o.type ?? 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: r.status, body: (await r.json()) as Json };
}

async function get(path: string): Promise<Reply> {
  const r = await fetch(`${rest.url}${path}`, { signal: AbortSignal.timeout(15_000) });
  return { status: r.status, body: (await r.json()) as Json };
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const error = (code: number, message: string): Json => ({ code, message, details: [] });

/** A sync broadcast's answer: CheckTx's code and texts, no height, no tx, no events (the SDK's NewResponseFormatBroadcastTx). */
const broadcastAnswer = (txhash: string, code = 0, codespace = '', rawLog = ''): Json => ({
  tx_response: {
    height: '0',
    txhash,
    codespace,
    code,
    data: '',
    raw_log: rawLog,
    logs: [],
    info: '',
    gas_wanted: '0',
    gas_used: '0',
    tx: null,
    timestamp: '',
    events: [],
  },
});

describe('REST tx routes', { timeout: 60_000 }, () => {
  test('BROADCAST_MODE_SYNC: code 0 and the hash; after its block GET /txs/{hash} shows the height and the body', async () => {
    const tx = node.send(ALICE, BOB.address, '7');
    const r = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: b64(tx), mode: 'BROADCAST_MODE_SYNC' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, broadcastAnswer(HEX(sha256(tx))));
    assert.ok(node.mempool.has(sha256(tx)));

    // not committed yet: not found
    const pending = await get(`/cosmos/tx/v1beta1/txs/${HEX(sha256(tx))}`);
    assert.equal(pending.status, 404);
    assert.deepEqual(pending.body, error(5, `tx not found: ${HEX(sha256(tx))}`));

    const e = node.driver.produceBlock();
    assert.equal(e.block.data.txs.length, 1);
    // lower-case hex works as well
    const found = await get(`/cosmos/tx/v1beta1/txs/${Buffer.from(sha256(tx)).toString('hex')}`);
    assert.equal(found.status, 200);
    const res = found.body.tx_response as Json;
    assert.equal(res.height, e.block.header.height.toString());
    assert.equal(res.txhash, HEX(sha256(tx)));
    assert.equal(res.code, 0);
    assert.match(res.gas_used as string, /^[1-9][0-9]*$/);
    assert.equal(res.gas_wanted, '500000');
    const t = e.block.header.time;
    assert.equal(res.timestamp, new Date(Number(t?.seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    assert.ok(
      (res.events as Json[]).some((ev) => ev.type === 'transfer'),
      JSON.stringify(res.events),
    );
    const body = (found.body.tx as Json).body as Json;
    assert.deepEqual(body.messages, [
      { '@type': '/cosmos.bank.v1beta1.MsgSend', from_address: ALICE.address, to_address: BOB.address, amount: [{ denom: DENOM, amount: '7' }] },
    ]);
    assert.equal((res.tx as Json)['@type'], '/cosmos.tx.v1beta1.Tx');
    assert.deepEqual((res.tx as Json).body, body);
    const signer = (((found.body.tx as Json).auth_info as Json).signer_infos as Json[])[0];
    assert.deepEqual(signer.mode_info, { single: { mode: 'SIGN_MODE_DIRECT' } });
    assert.equal((signer.public_key as Json)['@type'], '/cosmos.crypto.secp256k1.PubKey');
  });

  test('simulate: gas used, the message responses and events, and nothing committed', async () => {
    const tx = node.send(ALICE, BOB.address, '3');
    const r = await post('/cosmos/tx/v1beta1/simulate', { tx_bytes: b64(tx) });
    assert.equal(r.status, 200);
    const gas = r.body.gas_info as Json;
    assert.match(gas.gas_used as string, /^[1-9][0-9]*$/);
    const result = r.body.result as Json;
    assert.deepEqual(result.msg_responses, [{ '@type': '/cosmos.bank.v1beta1.MsgSendResponse' }]);
    assert.ok((result.events as Json[]).some((ev) => ev.type === 'transfer'));
    assert.equal(node.mempool.has(sha256(tx)), false);
  });

  test("BROADCAST_MODE_ASYNC: the hash at once, CheckTx after; the same tx again is code 19 with CometBFT's text", async () => {
    const tx = node.send(ALICE, BOB.address, '4');
    const r = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: b64(tx), mode: 'BROADCAST_MODE_ASYNC' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, broadcastAnswer(HEX(sha256(tx))));
    await until(() => node.mempool.has(sha256(tx)), 'CheckTx admitted the async tx');
    const dup = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: b64(tx), mode: 'BROADCAST_MODE_SYNC' });
    assert.equal(dup.status, 200);
    assert.deepEqual(dup.body, broadcastAnswer(HEX(sha256(tx)), 19, 'sdk', 'tx already exists in cache'));
    assert.equal(node.driver.produceBlock().block.data.txs.length, 1);
  });

  test('a body that is not declared JSON (a form, text/plain: what a web page can send without a preflight) is refused', async () => {
    const tx = node.send(ALICE, BOB.address, '1');
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const r = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: b64(tx), mode: 'BROADCAST_MODE_SYNC' }, { type });
      assert.equal(r.status, 415, type);
      assert.equal(r.body.code, 3);
      assert.match(r.body.message as string, /send application\/json/);
    }
    assert.equal(node.mempool.size(), 0, 'nothing was broadcast');
    const ok = await post('/cosmos/tx/v1beta1/simulate', { tx_bytes: b64(tx) }, { type: 'application/json; charset=utf-8' });
    assert.equal(ok.status, 200);
    assert.match((ok.body.gas_info as Json).gas_used as string, /^[1-9][0-9]*$/);
  });

  test('bad inputs: each its status and exact message; the node keeps taking txs and making blocks', async () => {
    const garbage = b64(Uint8Array.of(1, 2, 3));
    // garbage tx bytes are CheckTx's answer (code 2), as the SDK's broadcast returns it
    const g = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: garbage, mode: 'BROADCAST_MODE_SYNC' });
    assert.equal(g.status, 200);
    const gr = g.body.tx_response as Json;
    assert.equal(gr.code, 2);
    assert.equal(gr.codespace, 'sdk');
    assert.equal(gr.raw_log, 'cannot decode TxRaw: index out of range: 1 + 8 > 3: tx parse error');
    const sim = await post('/cosmos/tx/v1beta1/simulate', { tx_bytes: garbage });
    assert.equal(sim.status, 400);
    assert.deepEqual(sim.body, error(3, `${gr.raw_log as string} With gas wanted: '0' and gas used: '0' `));

    const cases: readonly (readonly [string, string | object, number, Json])[] = [
      [
        '/txs',
        { tx_bytes: '!!!!', mode: 'BROADCAST_MODE_SYNC' },
        400,
        error(3, 'invalid request body: cannot decode field cosmos.tx.v1beta1.BroadcastTxRequest.tx_bytes from JSON: invalid base64 string'),
      ],
      [
        '/txs',
        { tx_bytes: garbage, mode: 'BROADCAST_MODE_FAST' },
        400,
        error(3, 'invalid request body: cannot decode enum cosmos.tx.v1beta1.BroadcastMode from JSON: "BROADCAST_MODE_FAST"'),
      ],
      [
        '/txs',
        { tx_bytes: garbage, mode: 'BROADCAST_MODE_BLOCK' },
        400,
        error(3, 'unsupported broadcast mode BROADCAST_MODE_BLOCK: use BROADCAST_MODE_SYNC or BROADCAST_MODE_ASYNC'),
      ],
      ['/txs', { tx_bytes: garbage }, 400, error(3, 'unsupported broadcast mode BROADCAST_MODE_UNSPECIFIED: use BROADCAST_MODE_SYNC or BROADCAST_MODE_ASYNC')],
      ['/txs', { mode: 'BROADCAST_MODE_SYNC' }, 400, error(3, 'invalid empty tx')],
      ['/txs', '', 400, error(3, 'invalid empty tx')],
      [
        '/txs',
        { tx_bytes: garbage, mode: 'BROADCAST_MODE_SYNC', gas: 5 },
        400,
        error(3, 'invalid request body: cannot decode message cosmos.tx.v1beta1.BroadcastTxRequest from JSON: key "gas" is unknown'),
      ],
      ['/txs', '{"tx_bytes": ', 400, error(3, `invalid request body: malformed JSON: ${jsonError('{"tx_bytes": ')}`)],
      ['/txs', '[1]', 400, error(3, 'invalid request body: cannot decode message cosmos.tx.v1beta1.BroadcastTxRequest from JSON: Array(1)')],
      ['/simulate', {}, 400, error(3, 'empty txBytes is not allowed')],
      ['/simulate', 'tx_bytes=AQID', 400, error(3, `invalid request body: malformed JSON: ${jsonError('tx_bytes=AQID')}`)],
    ];
    for (const [path, body, statusCode, expected] of cases) {
      const r = await post(`/cosmos/tx/v1beta1${path}`, body);
      assert.deepEqual({ status: r.status, body: r.body }, { status: statusCode, body: expected }, `${path} ${JSON.stringify(body)}`);
    }

    const big = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: b64(new Uint8Array(2048)), mode: 'BROADCAST_MODE_SYNC' }, { url: small.url });
    assert.deepEqual(big, { status: 413, body: error(8, 'request body too large: the limit is 1024 bytes') });

    for (const [hash, statusCode, expected] of [
      ['nothex', 400, error(3, 'invalid tx hash "nothex": expected 64 hex characters')],
      ['AB'.repeat(31), 400, error(3, `invalid tx hash "${'AB'.repeat(31)}": expected 64 hex characters`)],
      ['0'.repeat(64), 404, error(5, `tx not found: ${'0'.repeat(64)}`)],
    ] as const) {
      const r = await get(`/cosmos/tx/v1beta1/txs/${hash}`);
      assert.deepEqual({ status: r.status, body: r.body }, { status: statusCode, body: expected }, hash);
    }
    const wrongMethod = await get('/cosmos/tx/v1beta1/simulate');
    assert.deepEqual(wrongMethod, { status: 404, body: error(5, 'Not Found: no route for GET /cosmos/tx/v1beta1/simulate') });

    // still serving, and blocks still come with the txs sent after all that
    const tx = node.send(ALICE, BOB.address, '2');
    const ok = await post('/cosmos/tx/v1beta1/txs', { tx_bytes: b64(tx), mode: 'BROADCAST_MODE_SYNC' });
    assert.deepEqual(ok.body, broadcastAnswer(HEX(sha256(tx))));
    const e = node.driver.produceBlock();
    assert.deepEqual(
      e.block.data.txs.map((x) => HEX(sha256(x))),
      [HEX(sha256(tx))],
    );
    assert.equal((await get(`/cosmos/tx/v1beta1/txs/${HEX(sha256(tx))}`)).status, 200);
  });

  test('simulate is metered up to the gas cap of the chain app (query-gas-limit)', async () => {
    const capped = await TestNode.start({ manual: true, chain: { simulationGasLimit: 5000n } });
    const r = await startRestServer({
      port: 0,
      app: capped.chain.app,
      txNode: { driver: capped.driver, admission: capped.driver.admission, app: capped.chain.app, logger: capped.logger },
    });
    try {
      const sim = await post('/cosmos/tx/v1beta1/simulate', { tx_bytes: b64(capped.send(ALICE, BOB.address, '1')) }, { url: r.url });
      assert.notEqual(sim.status, 200);
      assert.match(sim.body.message as string, /out of gas/);
    } finally {
      await r.close();
      await capped.stop();
    }
  });

  test('OpenAPI lists the three tx routes; a server without the node parts has none of them', async () => {
    const doc = (await get('/swagger/json')).body as { paths: Record<string, Record<string, unknown>> };
    assert.ok(doc.paths['/cosmos/tx/v1beta1/txs']?.post, 'POST /txs');
    assert.ok(doc.paths['/cosmos/tx/v1beta1/simulate']?.post, 'POST /simulate');
    assert.ok(doc.paths['/cosmos/tx/v1beta1/txs/{hash}']?.get, 'GET /txs/{hash}');
    const queriesOnly = await startRestServer({ port: 0, app: node.chain.app });
    try {
      const r = await fetch(`${queriesOnly.url}/cosmos/tx/v1beta1/simulate`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 404);
    } finally {
      await queriesOnly.close();
    }
  });
});

/** The text JSON.parse gives for `text`, which the server passes on. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return errorMessage(e);
  }
  throw new Error(`${text} is valid JSON`);
}
