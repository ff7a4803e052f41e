// The JSON shapes CosmJS decodes: @cosmjs/tendermint-rpc's Comet38Client (chosen by connectComet from
// status' "0.38." version) calls every method it has against a live node, and what it decodes must
// equal what the block store and the app hold.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Comet38Client, connectComet, isComet38Client } from '@cosmjs/tendermint-rpc';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { ALICE, BOB, CHAIN_ID, DENOM, GENESIS_SECONDS, MONIKER, NODE_ID, removeTmpDirs, TestNode, VALIDATOR_KEY } from '@chaind/chaind/testing';
import { sha256 } from '../hash.ts';
import { COMETBFT_VERSION } from '../protocol.ts';

let node: TestNode;
let tm: Comet38Client;
const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');
const ms = (t: { seconds: bigint; nanos: number }): number => Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6);

before(
  async () => {
    node = await TestNode.start();
    const c = await connectComet(node.url);
    assert.ok(isComet38Client(c), 'connectComet picked the 0.38 client');
    tm = c;
  },
  { timeout: 30_000 },
);

after(
  async () => {
    tm?.disconnect();
    await node?.stop();
    removeTmpDirs();
  },
  { timeout: 30_000 },
);

describe('Comet38Client against the RPC server', { timeout: 60_000 }, () => {
  let txHeight = 0;
  let tx: Uint8Array;

  test('status, health, abci_info, genesis', async () => {
    const s = await tm.status();
    assert.equal(s.nodeInfo.network, CHAIN_ID);
    assert.equal(s.nodeInfo.version, COMETBFT_VERSION);
    assert.equal(s.nodeInfo.moniker, MONIKER);
    assert.equal(hex(s.nodeInfo.id), NODE_ID);
    assert.equal(s.syncInfo.catchingUp, false);
    const h = BigInt(s.syncInfo.latestBlockHeight);
    assert.ok(h >= 2n && h <= node.driver.height);
    const meta = node.blockStore.blockMeta(h);
    assert.ok(meta !== undefined);
    assert.equal(hex(s.syncInfo.latestBlockHash), hex(meta.blockId.hash));
    assert.equal(hex(s.syncInfo.latestAppHash), hex(meta.header.appHash));
    assert.equal(s.syncInfo.latestBlockTime.getTime(), ms(meta.header.time));
    assert.equal(s.syncInfo.earliestBlockHeight, 1);
    assert.equal(hex(s.validatorInfo.address), hex(VALIDATOR_KEY.address));
    assert.equal(s.validatorInfo.pubkey?.algorithm, 'ed25519');
    assert.equal(hex(s.validatorInfo.pubkey?.data), hex(VALIDATOR_KEY.pubKey));
    assert.equal(s.validatorInfo.votingPower, 10n);

    assert.equal(await tm.health(), null);
    const info = await tm.abciInfo();
    assert.equal(info.data, 'chaind');
    assert.ok(info.lastBlockHeight !== undefined && info.lastBlockHeight >= Number(h));
    const g = await tm.genesis();
    assert.equal(g.chainId, CHAIN_ID);
    assert.equal(g.genesisTime.getTime(), Number(GENESIS_SECONDS) * 1000);
    assert.equal(g.consensusParams.block?.maxBytes, 22_020_096);
    assert.equal(g.consensusParams.block?.maxGas, -1);
    assert.deepEqual(g.validators, [], 'the validator set lives in app_state');
    assert.equal(typeof g.appState, 'object');
  });

  test('broadcastTxCommit, then the block, its results and the tx by hash and by search', { timeout: 30_000 }, async () => {
    tx = node.send(ALICE, BOB.address, '777');
    const r = await tm.broadcastTxCommit({ tx });
    assert.equal(r.checkTx.code, 0, r.checkTx.log);
    assert.equal(r.txResult?.code, 0, r.txResult?.log);
    assert.equal(hex(r.hash), hex(sha256(tx)));
    assert.ok(r.height > 0 && BigInt(r.height) <= node.driver.height);
    txHeight = r.height;
    const h = BigInt(txHeight);

    const b = await tm.block(txHeight);
    const stored = node.blockStore.block(h);
    const id = node.blockStore.blockId(h);
    assert.ok(stored !== undefined && id !== undefined);
    assert.equal(hex(b.blockId.hash), hex(id.hash));
    assert.equal(b.blockId.parts.total, id.partSetHeader.total);
    assert.equal(hex(b.blockId.parts.hash), hex(id.partSetHeader.hash));
    assert.deepEqual(b.block.txs.map(hex), [hex(tx)]);
    const hd = b.block.header;
    const sh = stored.header;
    assert.equal(hd.height, txHeight);
    assert.equal(hd.chainId, CHAIN_ID);
    assert.equal(hd.version.block, 11);
    assert.equal(hd.time.getTime(), ms(sh.time));
    assert.equal(hex(hd.lastBlockId?.hash), hex(sh.lastBlockId.hash));
    for (const [k, v] of [
      ['lastCommitHash', sh.lastCommitHash],
      ['dataHash', sh.dataHash],
      ['validatorsHash', sh.validatorsHash],
      ['nextValidatorsHash', sh.nextValidatorsHash],
      ['consensusHash', sh.consensusHash],
      ['appHash', sh.appHash],
      ['lastResultsHash', sh.lastResultsHash],
      ['evidenceHash', sh.evidenceHash],
      ['proposerAddress', sh.proposerAddress],
    ] as const) {
      assert.equal(hex(hd[k]), hex(v), k);
    }
    const lc = b.block.lastCommit;
    assert.ok(lc !== null);
    const seen = node.blockStore.seenCommit(h - 1n);
    assert.equal(lc.height, txHeight - 1);
    assert.equal(hex(lc.signatures[0].signature), hex(seen?.signatures[0].signature));

    const br = await tm.blockResults(txHeight);
    const results = node.blockStore.results(h);
    assert.equal(br.height, txHeight);
    assert.equal(br.results.length, 1);
    const [res] = br.results;
    const sr = results?.txResults[0];
    assert.ok(sr !== undefined);
    assert.equal(res.code, 0);
    assert.equal(res.gasUsed, sr.gasUsed);
    assert.equal(res.gasWanted, sr.gasWanted);
    assert.equal(hex(res.data), hex(sr.data));
    assert.deepEqual(
      res.events.map((e) => ({ type: e.type, attributes: e.attributes.map((a) => ({ key: a.key, value: a.value })) })),
      sr.events.map((e) => ({ type: e.type, attributes: e.attributes.map((a) => ({ key: a.key, value: a.value })) })),
    );
    assert.ok(res.events.some((e) => e.type === 'transfer' && e.attributes.some((a) => a.key === 'amount' && a.value === `777${DENOM}`)));
    assert.deepEqual(br.validatorUpdates, []);

    const byHash = await tm.tx({ hash: sha256(tx) });
    assert.equal(byHash.height, txHeight);
    assert.equal(byHash.index, 0);
    assert.equal(hex(byHash.tx), hex(tx));
    assert.equal(byHash.result.code, 0);

    const found = await tm.txSearchAll({ query: `tx.hash='${hex(sha256(tx)).toUpperCase()}'` });
    assert.equal(found.totalCount, 1);
    assert.equal(found.txs[0].height, txHeight);
    const atHeight = await tm.txSearch({ query: `tx.height=${txHeight}` });
    assert.equal(atHeight.totalCount, 1);
    assert.equal(hex(atHeight.txs[0].hash), hex(sha256(tx)));
    const bySender = await tm.txSearch({ query: `message.sender='${ALICE.address}' AND tx.height<=${txHeight}`, order_by: 'desc' });
    assert.ok(bySender.txs.some((t) => hex(t.hash) === hex(sha256(tx))));
    assert.equal((await tm.txSearch({ query: `tx.height>${node.driver.height + 5n}` })).totalCount, 0);
  });

  test('blockchain, commit, validatorsAll, abciQuery', async () => {
    const latest = Number(node.driver.height);
    const chain = await tm.blockchain(1, latest);
    assert.ok(chain.lastHeight >= latest);
    const expected = Math.min(latest, 20);
    assert.equal(chain.blockMetas.length, expected, 'at most 20 metas');
    assert.deepEqual(
      chain.blockMetas.map((m) => m.header.height),
      Array.from({ length: expected }, (_, i) => latest - i),
      'newest first',
    );
    for (const m of chain.blockMetas) {
      const meta = node.blockStore.blockMeta(BigInt(m.header.height));
      assert.equal(hex(m.blockId.hash), hex(meta?.blockId.hash));
      assert.equal(m.numTxs, Number(meta?.numTxs));
      assert.equal(m.blockSize, Number(meta?.blockSize));
    }
    if (txHeight > 0 && txHeight > latest - 20) assert.equal(chain.blockMetas.find((m) => m.header.height === txHeight)?.numTxs, 1);
    const one = await tm.blockchain(2, 2);
    assert.deepEqual(
      one.blockMetas.map((m) => m.header.height),
      [2],
    );

    await node.waitForHeight(4n);
    const found = await tm.blockSearch({ query: 'block.height >= 2 AND block.height <= 4', per_page: 2 });
    assert.equal(found.totalCount, 3);
    assert.deepEqual(
      found.blocks.map((b) => b.block.header.height),
      [3, 4],
      'page 1 holds the newest two (CosmJS sorts each page by height)',
    );
    const all = await tm.blockSearchAll({ query: 'block.height <= 3' });
    assert.deepEqual(
      all.blocks.map((b) => hex(b.blockId.hash)),
      [1n, 2n, 3n].map((h) => hex(node.blockStore.blockId(h)?.hash)),
    );

    const c = await tm.commit(2);
    assert.equal(c.canonical, true, 'below the latest height the commit is canonical');
    assert.equal(c.header.height, 2);
    assert.equal(hex(c.commit.blockId.hash), hex(node.blockStore.blockId(2n)?.hash));
    assert.equal(c.commit.signatures.length, 1);
    assert.equal(hex(c.commit.signatures[0].validatorAddress), hex(VALIDATOR_KEY.address));
    assert.equal(hex(c.commit.signatures[0].signature), hex(node.blockStore.seenCommit(2n)?.signatures[0].signature));
    const top = await tm.commit();
    assert.equal(top.canonical, false, "the latest height's commit is the node's seen commit");
    assert.ok(BigInt(top.header.height) <= node.driver.height);

    const vals = await tm.validatorsAll();
    assert.equal(vals.total, 1);
    assert.equal(hex(vals.validators[0].address), hex(VALIDATOR_KEY.address));
    assert.equal(vals.validators[0].votingPower, 10n);
    assert.equal(hex(vals.validators[0].pubkey?.data), hex(VALIDATOR_KEY.pubKey));
    const at1 = await tm.validators({ height: 1 });
    assert.equal(at1.blockHeight, 1);
    assert.equal(at1.count, 1);

    const q = await tm.abciQuery({
      path: '/cosmos.bank.v1beta1.Query/Balance',
      data: QueryBalanceRequest.encode({ address: BOB.address, denom: DENOM }).finish(),
    });
    assert.equal(q.code, 0);
    assert.ok(q.height !== undefined && q.height > 0, 'a query at height 0 reports the height it ran at');
    assert.equal(QueryBalanceResponse.decode(q.value).balance?.amount, (1_000_000_000n + (txHeight > 0 ? 777n : 0n)).toString());
    const bad = await tm.abciQuery({ path: '/cosmos.bank.v1beta1.Query/Nope', data: new Uint8Array(0) });
    assert.equal(bad.code, 6);
    assert.match(bad.log ?? '', /unknown query path/);
  });
});
