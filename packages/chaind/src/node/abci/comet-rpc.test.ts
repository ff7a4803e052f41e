// Behind CometBFT, REST and gRPC broadcasts and GetTx go to CometBFT's JSON-RPC. Here the CometBFT
// RPC is a real one of the same protocol: a solo chaind node's (CometBFT v0.38's shapes, tested against
// CosmJS elsewhere). The refusals of its mempool come back with the SDK's codes, as they do in solo mode.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { BroadcastMode } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { AbciTestApp, ALICE, BOB, removeTmpDirs, TestNode } from '@chaind/chaind/testing';
import { encodeInjectedTx } from '@chaind/sdk/app';
import { formatRFC3339 } from '@chaind/sdk/types';
import { sha256 } from '../hash.ts';
import { broadcastTx, getTx, TxServiceError, type TxNode } from '../tx-service.ts';
import { CometRpc } from './comet-rpc.ts';

let comet: TestNode;
let app: AbciTestApp;
let offline: AbciTestApp;

before(
  async () => {
    comet = await TestNode.start({ manual: true });
    app = await AbciTestApp.start({ comet: new CometRpc({ url: comet.url, timeoutMs: 5_000, maxTxBytes: 1_048_576, maxResponseBytes: 1_048_576 }) });
    offline = await AbciTestApp.start();
  },
  { timeout: 30_000 },
);

after(
  async () => {
    await app?.stop();
    await offline?.stop();
    await comet?.stop();
    removeTmpDirs();
  },
  { timeout: 30_000 },
);

const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const SYNC = BroadcastMode.BROADCAST_MODE_SYNC;
const txNode = (a: AbciTestApp): TxNode => ({ driver: a.driver, admission: a.driver.admission, app: a.chain.app, logger: a.logger });

describe('broadcasts and GetTx forwarded to CometBFT', { timeout: 60_000 }, () => {
  test("sync: CheckTx's answer from CometBFT's node; a second broadcast is its mempool's refusal, code 19 with its text", async () => {
    const tx = comet.send(ALICE, BOB.address, '2');
    const r = (await broadcastTx(txNode(app), { txBytes: tx, mode: SYNC })).txResponse;
    assert.deepEqual([r?.code, r?.txhash], [0, HEX(sha256(tx))]);
    assert.equal(comet.mempool.size(), 1, "the tx is in the CometBFT node's mempool");
    const again = (await broadcastTx(txNode(app), { txBytes: tx, mode: SYNC })).txResponse;
    assert.deepEqual([again?.code, again?.codespace, again?.rawLog], [19, 'sdk', 'tx already exists in cache']);
    // a CheckTx failure is an answer too: a sequence from the future
    const ahead = comet.send(BOB, ALICE.address, '1', 7n);
    const bad = (await broadcastTx(txNode(app), { txBytes: ahead, mode: SYNC })).txResponse;
    assert.deepEqual([bad?.code, bad?.codespace], [32, 'sdk']);
  });

  test('async: the hash at once; GetTx finds the tx once CometBFT has committed it, with its block time', async () => {
    const tx = comet.send(BOB, ALICE.address, '3');
    const r = (await broadcastTx(txNode(app), { txBytes: tx, mode: BroadcastMode.BROADCAST_MODE_ASYNC })).txResponse;
    assert.equal(r?.txhash, HEX(sha256(tx)));
    await assert.rejects(getTx(txNode(app), { hash: HEX(sha256(tx)) }), (e: TxServiceError) => e.code === status.NOT_FOUND);
    // CheckTx of an async broadcast runs after the answer: blocks until one includes it
    let block = comet.driver.produceBlock();
    for (let i = 0; i < 20 && !block.block.data.txs.some((t) => HEX(t) === HEX(tx)); i++) {
      await new Promise((r) => setTimeout(r, 50));
      block = comet.driver.produceBlock();
    }
    const got = await getTx(txNode(app), { hash: HEX(sha256(tx)) });
    assert.equal(got.txResponse?.height, block.block.header.height);
    assert.equal(got.txResponse?.code, 0);
    assert.equal(got.txResponse?.timestamp, formatRFC3339(block.block.header.time!, 'none'));
    assert.ok((got.txResponse?.events.length ?? 0) > 0);
    assert.equal(got.tx?.body?.messages[0].typeUrl, '/cosmos.bank.v1beta1.MsgSend');
  });

  test("headerTime: the header's time to the nanosecond; undefined above the latest height; rejects when unreachable", async () => {
    const rpc = new CometRpc({ url: comet.url, timeoutMs: 5_000, maxTxBytes: 1_048_576, maxResponseBytes: 1_048_576 });
    const block = comet.driver.produceBlock();
    const h = block.block.header.height;
    assert.deepEqual(await rpc.headerTime(h), block.block.header.time);
    assert.equal(await rpc.headerTime(h + 100n), undefined);
    const down = new CometRpc({ url: 'http://127.0.0.1:9', timeoutMs: 1_000, maxTxBytes: 1_048_576, maxResponseBytes: 1_048_576 });
    await assert.rejects(down.headerTime(h), /is not reachable \(header\)/);
  });

  test("CometBFT's `tx` finds the extended commit a block leads with (its indexer takes every tx): GetTx answers NOT_FOUND", async () => {
    const extended = encodeInjectedTx({ round: 0, votes: [] });
    const user = comet.send(ALICE, BOB.address, '4');
    // CometBFT's answers for a block [extended commit, user tx] at height 7
    const at = new Map([
      [HEX(sha256(extended)), { index: 0, tx: extended, info: 'extended commit' }],
      [HEX(sha256(user)), { index: 1, tx: user, info: '' }],
    ]);
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string; params: { hash?: string } };
        const found = call.method === 'tx' ? at.get(HEX(Buffer.from(call.params.hash ?? '', 'base64'))) : undefined;
        const result =
          call.method === 'header'
            ? { header: { time: '2026-01-02T03:04:05.123456789Z' } }
            : found && {
                hash: call.params.hash,
                height: '7',
                index: found.index,
                tx_result: { code: 0, info: found.info, events: [] },
                tx: Buffer.from(found.tx).toString('base64'),
              };
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify(result ? { jsonrpc: '2.0', id: call.id, result } : { jsonrpc: '2.0', id: call.id, error: { code: -32603, data: 'tx not found' } }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const rpc = new CometRpc({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        timeoutMs: 5_000,
        maxTxBytes: 1_048_576,
        maxResponseBytes: 1_048_576,
      });
      assert.equal(await rpc.committedTx(sha256(extended)), undefined);
      const found = await rpc.committedTx(sha256(user));
      assert.deepEqual([found?.height, found?.index, HEX(found?.tx ?? new Uint8Array(0))], [7n, 1, HEX(user)]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test('CometBFT unreachable: UNAVAILABLE naming its address, for broadcasts and lookups alike', async () => {
    const tx = comet.send(ALICE, BOB.address, '1');
    await assert.rejects(broadcastTx(txNode(offline), { txBytes: tx, mode: SYNC }), (e: TxServiceError) => {
      assert.equal(e.code, status.UNAVAILABLE);
      assert.match(e.message, /CometBFT RPC at http:\/\/127\.0\.0\.1:9\/ is not reachable/);
      return true;
    });
    await assert.rejects(getTx(txNode(offline), { hash: HEX(sha256(tx)) }), (e: TxServiceError) => e.code === status.UNAVAILABLE);
  });
});
