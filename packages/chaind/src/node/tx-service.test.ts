// The shared tx service over a real node and real mempools with small limits: the mempool's own
// refusals and CheckTx's are broadcast answers with the SDK's codes (as its CheckCometError), while
// JSON-RPC reports the same refusals as CometBFT errors — one admission, two presentations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BroadcastMode } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { Mempool } from '@chaind/sdk/admission';
import { ALICE, BOB, removeTmpDirs, TestNode } from '@chaind/chaind/testing';
import { sha256 } from './hash.ts';
import { broadcastTx, getTx, type TxNode } from './tx-service.ts';

let node: TestNode;

before(
  async () => {
    node = await TestNode.start({ manual: true });
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

const HEX = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const SYNC = BroadcastMode.BROADCAST_MODE_SYNC;

function withMempool(mempool: Mempool): TxNode {
  return { driver: node.driver, admission: mempool, app: node.chain.app, logger: node.logger };
}

describe('tx service', { timeout: 60_000 }, () => {
  test("the mempool refusals are answers: tx too large (21), mempool full (20), in cache (19), with CometBFT's text", async () => {
    const tx = node.send(ALICE, BOB.address, '1');
    const tiny = withMempool(new Mempool({ app: node.chain.app, maxTxBytes: 100 }));
    assert.deepEqual((await broadcastTx(tiny, { txBytes: tx, mode: SYNC })).txResponse, {
      height: 0n,
      txhash: HEX(sha256(tx)),
      codespace: 'sdk',
      code: 21,
      data: '',
      rawLog: `tx too large. Max size is 100, but got ${tx.length}`,
      logs: [],
      info: '',
      gasWanted: 0n,
      gasUsed: 0n,
      tx: undefined,
      timestamp: '',
      events: [],
    });
    // the async mode refuses it at once too: no CheckTx is needed to know
    assert.equal((await broadcastTx(tiny, { txBytes: tx, mode: BroadcastMode.BROADCAST_MODE_ASYNC })).txResponse?.code, 21);

    const pool = new Mempool({ app: node.chain.app, maxTxs: 1 });
    const one = withMempool(pool);
    assert.equal((await broadcastTx(one, { txBytes: tx, mode: SYNC })).txResponse?.code, 0);
    const again = (await broadcastTx(one, { txBytes: tx, mode: SYNC })).txResponse;
    assert.deepEqual(
      [again?.code, again?.codespace, again?.rawLog],
      [20, 'sdk', `mempool is full: number of txs 1 (max: 1), total txs bytes ${tx.length} (max: ${pool.maxTxsBytes})`],
    );
    const next = node.send(ALICE, BOB.address, '1', 1n);
    assert.equal((await broadcastTx(one, { txBytes: next, mode: SYNC })).txResponse?.code, 20);

    // `next` (never checked: the full mempool refused it first) follows `tx` in the app's check state
    const roomy = withMempool(new Mempool({ app: node.chain.app }));
    assert.equal((await broadcastTx(roomy, { txBytes: next, mode: SYNC })).txResponse?.code, 0);
    const dup = (await broadcastTx(roomy, { txBytes: next, mode: SYNC })).txResponse;
    assert.deepEqual([dup?.code, dup?.codespace, dup?.rawLog], [19, 'sdk', 'tx already exists in cache']);
  });

  test("CheckTx's refusal is the answer's code, codespace and log: a wrong sequence is code 32", async () => {
    const ahead = node.send(ALICE, BOB.address, '1', 5n);
    const r = (await broadcastTx(withMempool(new Mempool({ app: node.chain.app })), { txBytes: ahead, mode: SYNC })).txResponse;
    assert.deepEqual([r?.code, r?.codespace], [32, 'sdk']);
    assert.match(r?.rawLog ?? '', /^account sequence mismatch, expected [0-9]+, got [0-9]+: incorrect account sequence$/);
  });

  test('a tx is found only once its block is committed; GetTx and the block store agree', async () => {
    // BOB: the mempools above advanced ALICE's sequence in the app's check state
    const tx = node.send(BOB, ALICE.address, '6');
    const n = withMempool(node.mempool);
    assert.equal((await broadcastTx(n, { txBytes: tx, mode: SYNC })).txResponse?.code, 0);
    assert.equal(await n.driver.txs.committedTx(sha256(tx)), undefined);
    const e = node.driver.produceBlock();
    const rec = await n.driver.txs.committedTx(sha256(tx));
    assert.equal(rec?.height, e.block.header.height);
    const got = await getTx(n, { hash: HEX(sha256(tx)) });
    assert.equal(got.txResponse?.height, rec?.height);
    assert.equal(got.txResponse?.gasUsed, rec?.result.gasUsed);
    assert.deepEqual(got.txResponse?.events, rec?.result.events);
  });
});
