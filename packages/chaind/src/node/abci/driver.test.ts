// chaind as CometBFT v0.38 sees it over the ABCI socket: the four connections opened in CometBFT's
// order, the handshake, blocks through PrepareProposal → ProcessProposal → FinalizeBlock → Commit,
// CheckTx and RECHECK on the mempool connection, queries, and the protocol errors that close a
// connection without harming the node (cometbft-v038.md §1).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, describe, test } from 'node:test';
import { encodeFrame } from '@chaind/abci';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import {
  CheckTxType,
  Request,
  type ResponseFinalizeBlock,
  Response,
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  ResponseVerifyVoteExtension_VerifyStatus,
} from 'cosmjs-types/tendermint/abci/types';
import { DENOM, sendMsg } from '@chaind/sdk/testing';
import {
  ALICE,
  AbciTestApp,
  AppConnections,
  BOB,
  CometNetwork,
  committedAccount,
  one,
  removeTmpDirs,
  signTx,
  testGenesis,
  testKey,
} from '@chaind/chaind/testing';
import { testConsensusKey } from '@chaind/sdk/testing';
import { consensusAddress } from '@chaind/sdk/x/validators';
import { createNodeMetrics } from '../metrics/index.ts';

after(removeTmpDirs);

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function balance(c: AppConnections, address: string): Promise<bigint> {
  return c.abciQuery('/cosmos.bank.v1beta1.Query/Balance', QueryBalanceRequest.encode({ address, denom: DENOM }).finish()).then((r) => {
    assert.equal(r.code, 0, r.log);
    return BigInt(QueryBalanceResponse.decode(r.value).balance?.amount ?? '0');
  });
}

/** A node behind the ABCI server and CometBFT's four connections to it, after InitChain and one block. */
async function network(): Promise<{ app: AbciTestApp; conns: AppConnections; net: CometNetwork }> {
  const app = await AbciTestApp.start();
  const conns = await AppConnections.open(app.address);
  const net = new CometNetwork([conns], { genesis: testGenesis(), validators: [{ address: consensusAddress(testConsensusKey(0)), power: 10n }] });
  await net.handshake(0);
  await net.block();
  return { app, conns, net };
}

/** Reads whole frames off a raw socket until it closes; the decoded responses. */
function rawExchange(address: string, chunks: readonly Uint8Array[], gapMs = 0): Promise<{ responses: Response[]; closed: boolean }> {
  const { port, hostname } = new URL(address.replace('tcp://', 'http://'));
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname);
    let buf = Buffer.alloc(0);
    const responses: Response[] = [];
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        let len = 0;
        let shift = 0;
        let i = 0;
        for (; i < buf.length; i++) {
          len += (buf[i] & 0x7f) * 2 ** shift;
          shift += 7;
          if ((buf[i] & 0x80) === 0) break;
        }
        if (i >= buf.length || buf.length < i + 1 + len) break;
        responses.push(Response.decode(buf.subarray(i + 1, i + 1 + len)));
        buf = buf.subarray(i + 1 + len);
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve({ responses, closed: true }));
    s.on('connect', async () => {
      for (const c of chunks) {
        s.write(c);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      // a well-behaved exchange ends with our close; an exception closes it from the node's side first
      setTimeout(() => s.end(), 300);
    });
  });
}

const frame = (r: Request): Uint8Array => encodeFrame(Request.encode(Request.fromPartial(r)).finish());

describe('chaind behind CometBFT: the ABCI server', { timeout: 60_000 }, () => {
  test('handshake from an empty app: Info at 0, InitChain returns the genesis validators and the app hash; Info then reports each commit', async () => {
    const app = await AbciTestApp.start();
    try {
      const conns = await AppConnections.open(app.address);
      const info0 = await conns.info();
      assert.equal(info0.lastBlockHeight, 0n);
      assert.equal(info0.lastBlockAppHash.length, 0);
      assert.equal(info0.data, 'chaind');
      const init = await one(conns.consensus, { initChain: testGenesisRequest() }, 'initChain');
      assert.equal(init.validators.length, 1);
      assert.equal(init.validators[0].power, 10n);
      assert.equal(hex(init.validators[0].pubKey?.ed25519 ?? new Uint8Array(0)), hex(testConsensusKey(0)));
      assert.equal(init.appHash.length, 32);
      const net = new CometNetwork([conns], { genesis: testGenesis(), validators: [{ address: consensusAddress(testConsensusKey(0)), power: 10n }] });
      const b1 = await net.block();
      const info1 = await conns.info();
      assert.equal(info1.lastBlockHeight, 1n);
      assert.equal(hex(info1.lastBlockAppHash), hex(b1.results[0].appHash));
      assert.equal(app.driver.height, 1n);
      await conns.close();
    } finally {
      await app.stop();
    }
  });

  test('a bank send: CheckTx on the mempool connection, PrepareProposal picks it, ProcessProposal accepts, FinalizeBlock runs it, Commit makes it visible', async () => {
    const { app, conns, net } = await network();
    try {
      const before = await balance(conns, BOB.address);
      const tx = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '5')]);
      assert.equal((await net.submit(0, tx)).code, 0);
      const b = await net.block();
      assert.deepEqual(b.request.txs.map(hex), [hex(tx)]);
      assert.equal(b.results[0].txResults[0].code, 0, b.results[0].txResults[0].log);
      assert.equal(await balance(conns, BOB.address), before + 5n);
      assert.equal(net.mempool.length, 0);
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('with metrics: CheckTx on the mempool connection and FinalizeBlock on the consensus one are timed', async () => {
    const { metrics, registry } = createNodeMetrics('chaind');
    const app = await AbciTestApp.start({ metrics });
    const conns = await AppConnections.open(app.address);
    try {
      const net = new CometNetwork([conns], { genesis: testGenesis(), validators: [{ address: consensusAddress(testConsensusKey(0)), power: 10n }] });
      await net.handshake(0);
      await net.block();
      assert.equal((await net.submit(0, signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '5')]))).code, 0);
      await net.block();
      const text = await registry.metrics();
      assert.match(text, /^chaind_abci_connection_method_timing_seconds_count\{method="check_tx",type="sync"\} 1$/m);
      assert.match(text, /^chaind_abci_connection_method_timing_seconds_count\{method="finalize_block",type="sync"\} 2$/m);
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('a gas limit in [2^31, 2^32) (free to send) comes back as itself from CheckTx and FinalizeBlock: bytes CometBFT can decode', async () => {
    const { app, conns, net } = await network();
    try {
      const tx = signTx(app.chain.app, BOB, [sendMsg(BOB.address, ALICE.address, '1')], 0n, 3_000_000_000n);
      const r = await net.submit(0, tx);
      assert.deepEqual([r.code, r.gasWanted], [0, 3_000_000_000n], r.log);
      const b = await net.block();
      assert.deepEqual([b.results[0].txResults[0].code, b.results[0].txResults[0].gasWanted], [0, 3_000_000_000n]);
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('CheckTx and Query while a block is finalized but not committed see the last committed state', async () => {
    const { app, conns, net } = await network();
    try {
      const before = await balance(conns, BOB.address);
      const t1 = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '7')]);
      // FinalizeBlock of a block with t1, no Commit yet
      const req = { ...net.blocks[net.blocks.length - 1], height: net.height + 1n, txs: [t1], time: { seconds: 1_800_000_000n, nanos: 0 } };
      const res = await one(conns.consensus, { finalizeBlock: req }, 'finalizeBlock');
      assert.equal(res.txResults[0].code, 0);
      // the committed sequence is still t1's: a second tx with the same sequence passes CheckTx
      const same = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '8')]);
      assert.equal((await conns.checkTx(same)).code, 0);
      assert.equal(await balance(conns, BOB.address), before);
      await one(conns.consensus, { commit: {} }, 'commit');
      assert.equal(await balance(conns, BOB.address), before + 7n);
      // RECHECK after the commit: `same` reuses the sequence t1 consumed
      const re = await conns.checkTx(same, CheckTxType.RECHECK);
      assert.equal(re.code, 32, re.log);
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('PrepareProposal drops undecodable txs and txs that no longer pass; ProcessProposal rejects a block with an undecodable tx', async () => {
    const { app, conns, net } = await network();
    try {
      const good = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '1')]);
      const stale = signTx(app.chain.app, BOB, [sendMsg(BOB.address, ALICE.address, '1')], 5n);
      const garbage = Uint8Array.from([0xff, 0x01, 0x02]);
      const h = net.height + 1n;
      const common = {
        misbehavior: [],
        height: h,
        time: { seconds: 1_800_000_000n, nanos: 0 },
        nextValidatorsHash: new Uint8Array(32),
        proposerAddress: consensusAddress(testConsensusKey(0)),
      };
      const p = await one(
        conns.consensus,
        { prepareProposal: { ...common, maxTxBytes: 1_048_576n, txs: [garbage, stale, good], localLastCommit: { round: 0, votes: [] } } },
        'prepareProposal',
      );
      assert.deepEqual(p.txs.map(hex), [hex(good)]);
      // max_tx_bytes counts the proto size of Data: one byte short of `good`'s leaves nothing
      const size = BigInt(good.length + 3);
      assert.equal(
        (
          await one(
            conns.consensus,
            { prepareProposal: { ...common, maxTxBytes: size - 1n, txs: [good], localLastCommit: { round: 0, votes: [] } } },
            'prepareProposal',
          )
        ).txs.length,
        0,
      );
      assert.equal(
        (
          await one(
            conns.consensus,
            { prepareProposal: { ...common, maxTxBytes: size, txs: [good], localLastCommit: { round: 0, votes: [] } } },
            'prepareProposal',
          )
        ).txs.length,
        1,
      );
      const pp = (txs: Uint8Array[]) =>
        one(conns.consensus, { processProposal: { ...common, txs, hash: new Uint8Array(32), proposedLastCommit: { round: 0, votes: [] } } }, 'processProposal');
      assert.equal((await pp([good, garbage])).status, ResponseProcessProposal_ProposalStatus.REJECT);
      assert.equal(
        (await pp([good, stale])).status,
        ResponseProcessProposal_ProposalStatus.ACCEPT,
        "a failing but decodable tx is the block's result, not a reason to reject it",
      );
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('vote extensions, Echo, the snapshot methods, raw store queries and Simulate over Query', async () => {
    const { app, conns } = await network();
    try {
      const ext = await one(
        conns.consensus,
        {
          extendVote: {
            hash: new Uint8Array(32),
            height: 2n,
            time: { seconds: 1_800_000_000n, nanos: 0 },
            txs: [],
            proposedLastCommit: { round: 0, votes: [] },
            misbehavior: [],
            nextValidatorsHash: new Uint8Array(32),
            proposerAddress: new Uint8Array(20),
          },
        },
        'extendVote',
      );
      assert.equal(ext.voteExtension.length, 0);
      const ver = await one(
        conns.consensus,
        { verifyVoteExtension: { hash: new Uint8Array(32), validatorAddress: new Uint8Array(20), height: 2n, voteExtension: new Uint8Array(0) } },
        'verifyVoteExtension',
      );
      assert.equal(ver.status, ResponseVerifyVoteExtension_VerifyStatus.ACCEPT);
      assert.equal((await one(conns.query, { echo: { message: 'hello' } }, 'echo')).message, 'hello');
      assert.deepEqual((await one(conns.snapshot, { listSnapshots: {} }, 'listSnapshots')).snapshots, []);
      assert.equal(
        (
          await one(
            conns.snapshot,
            {
              offerSnapshot: {
                snapshot: { height: 5n, format: 1, chunks: 1, hash: new Uint8Array(32), metadata: new Uint8Array(0) },
                appHash: new Uint8Array(32),
              },
            },
            'offerSnapshot',
          )
        ).result,
        ResponseOfferSnapshot_Result.REJECT,
      );
      assert.equal((await one(conns.snapshot, { loadSnapshotChunk: { height: 5n, format: 1, chunk: 0 } }, 'loadSnapshotChunk')).chunk.length, 0);
      assert.equal(
        (await one(conns.snapshot, { applySnapshotChunk: { index: 0, chunk: new Uint8Array(1), sender: 'x' } }, 'applySnapshotChunk')).result,
        ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT,
      );
      const acc = committedAccount(app.chain.app, ALICE.address);
      assert.ok(acc.accountNumber >= 0n);
      const raw = await conns.abciQuery('/store/upgrade/key', Uint8Array.from([0x03]));
      assert.equal(raw.code, 0);
      const tx = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '1')]);
      const sim = await conns.abciQuery('/cosmos.tx.v1beta1.Service/Simulate', SimulateRequest.encode({ txBytes: tx, tx: undefined }).finish());
      assert.equal(sim.code, 0, sim.log);
      assert.ok((SimulateResponse.decode(sim.value).gasInfo?.gasUsed ?? 0n) > 0n);
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('framing: a request split one byte at a time and 100 requests in one write are all answered, in order', async () => {
    const app = await AbciTestApp.start();
    try {
      const info = frame({ info: { version: '0.38.17', blockVersion: 11n, p2pVersion: 8n, abciVersion: '2.0.0' } });
      const flush = frame({ flush: {} });
      const bytes = Buffer.concat([info, flush]);
      const slow = await rawExchange(
        app.address,
        [...bytes].map((b) => Uint8Array.from([b])),
      );
      assert.deepEqual(
        slow.responses.map((r) => Object.keys(Response.toJSON(r) as object)),
        [['info'], ['flush']],
      );
      const many = Buffer.concat(Array.from({ length: 100 }, (_, i) => frame({ echo: { message: `m${i}` } })).concat([flush]));
      const fast = await rawExchange(app.address, [many]);
      assert.equal(fast.responses.length, 101);
      assert.deepEqual(
        fast.responses.slice(0, 100).map((r) => r.echo?.message),
        Array.from({ length: 100 }, (_, i) => `m${i}`),
      );
      assert.ok(fast.responses[100].flush !== undefined);
    } finally {
      await app.stop();
    }
  });

  test('protocol errors get ResponseException and close that connection only: garbage, a request on the wrong connection, an oversized length', async () => {
    const { app, conns, net } = await network();
    try {
      const garbage = await rawExchange(app.address, [Uint8Array.from([0x05, 0xff, 0xff, 0xff, 0xff, 0xff])]);
      assert.equal(garbage.responses.length, 1);
      assert.ok(garbage.responses[0].exception !== undefined, 'an exception');
      // the query connection carries Info; FinalizeBlock there is refused
      const wrong = await rawExchange(app.address, [
        frame({ info: { version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' } }),
        frame({ commit: {} }),
        frame({ flush: {} }),
      ]);
      assert.ok(wrong.responses[0].info !== undefined);
      assert.match(wrong.responses[1].exception?.error ?? '', /commit is a consensus request, but this is the query connection/);
      assert.equal(wrong.responses.length, 2, 'nothing after the exception');
      // a 10-byte length prefix claiming 2^63 bytes: refused at once, nothing allocated
      const huge = await rawExchange(app.address, [Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])]);
      assert.ok(huge.responses[0]?.exception !== undefined);
      // a connection closed mid-message
      await rawExchange(app.address, [Uint8Array.from([0x20, 0x1a, 0x02])]);
      // the real connections are untouched: the next block goes through
      const b = await net.block();
      assert.equal(b.request.height, 2n);
      assert.equal((await conns.info()).lastBlockHeight, 2n);
    } finally {
      await conns.close();
      await app.stop();
    }
  });

  test('CometBFT disconnecting between FinalizeBlock and Commit: the block is dropped, and the replay after its handshake commits the same app hash', async () => {
    const { app, conns, net } = await network();
    try {
      const tx = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '3')]);
      const req = { ...net.blocks[net.blocks.length - 1], height: 2n, txs: [tx], time: { seconds: 1_800_000_000n, nanos: 0 } };
      const first = await one(conns.consensus, { finalizeBlock: req }, 'finalizeBlock');
      await conns.close();
      // CometBFT comes back: Info still says 2, and the block is executed again
      const again = await AppConnections.open(app.address);
      net.apps[0] = again;
      net.blocks.push(req);
      assert.equal((await again.info()).lastBlockHeight, 1n);
      assert.deepEqual(await net.handshake(0), [2n]);
      assert.equal(hex((await again.info()).lastBlockAppHash), hex(first.appHash));
      await again.close();
    } finally {
      await app.stop();
    }
  });

  test('a restarted CometBFT while its old consensus connection is still open (its host vanished without a FIN): the newest consensus connection is served, the old one closed and its uncommitted block dropped', async () => {
    const { app, conns, net } = await network();
    try {
      const before = await balance(conns, BOB.address);
      const tx = signTx(app.chain.app, ALICE, [sendMsg(ALICE.address, BOB.address, '3')]);
      const { outcomes } = await net.finalizeOnly([tx]);
      const first = outcomes[0] as ResponseFinalizeBlock;
      assert.equal(first.txResults[0].code, 0, first.txResults[0].log);
      // the old connections stay open and silent; CometBFT comes back on new ones and replays block 2
      const again = await AppConnections.open(app.address);
      net.apps[0] = again;
      assert.equal((await again.info()).lastBlockHeight, 1n);
      assert.deepEqual(await net.handshake(0), [2n]);
      assert.equal(hex((await again.info()).lastBlockAppHash), hex(first.appHash));
      assert.equal(await balance(again, BOB.address), before + 3n, 'the tx applied once');
      assert.match((await conns.consensus.closed)?.message ?? '', /closed/, 'the old consensus connection is closed by the node');
      assert.ok(
        app.logger.lines.some((l) => l.level === 'warn' && /a new consensus connection replaces the open one/.test(l.msg)),
        'logged',
      );
      const b = await net.block();
      assert.equal(b.request.height, 3n);
      await again.close();
      await conns.close();
    } finally {
      await app.stop();
    }
  });

  test('InitChain again before block 1 on the same process (only CometBFT restarted): it starts from clean state; block 1 has the app hash and balances of a single InitChain, also when the genesis was corrected in between', async () => {
    const validators = [{ address: consensusAddress(testConsensusKey(0)), power: 10n }];
    const CAROL = testKey(3);
    /** InitChain once with `genesis` and block 1: the app hash and the balances of ALICE, BOB and CAROL. */
    const run = async (conns: AppConnections, net: CometNetwork): Promise<string[]> => {
      const b = await net.block();
      return [hex(b.results[0].appHash), ...(await Promise.all([ALICE, BOB, CAROL].map(async (k) => String(await balance(conns, k.address)))))];
    };
    const fresh = await AbciTestApp.start();
    const same = await AbciTestApp.start();
    const corrected = await AbciTestApp.start();
    try {
      const c0 = await AppConnections.open(fresh.address);
      const n0 = new CometNetwork([c0], { genesis: testGenesis(), validators });
      await n0.handshake(0);
      const want = await run(c0, n0);
      assert.equal(want[3], '0', 'CAROL is not funded by the plain genesis');

      // the first InitChain (the same genesis, or one funding CAROL that the operator then corrects); CometBFT stops before block 1
      for (const [app, first] of [
        [same, testGenesis()],
        [corrected, testGenesis([CAROL.address])],
      ] as const) {
        const gone = await AppConnections.open(app.address);
        await new CometNetwork([gone], { genesis: first, validators }).handshake(0);
        await gone.close();
        const back = await AppConnections.open(app.address);
        assert.equal((await back.info()).lastBlockHeight, 0n);
        const net = new CometNetwork([back], { genesis: testGenesis(), validators });
        await net.handshake(0);
        assert.equal(
          hex(net.initChainResponses[0]?.appHash ?? new Uint8Array(0)),
          hex(n0.initChainResponses[0]?.appHash ?? new Uint8Array(1)),
          'the InitChain app hash of a clean start',
        );
        assert.deepEqual(await run(back, net), want);
        await back.close();
      }
      await c0.close();
    } finally {
      await fresh.stop();
      await same.stop();
      await corrected.stop();
    }
  });

  test('Commit failing (the state database at its size limit): the driver stops with the error, which `chaind start` exits 1 on; nothing is committed', async () => {
    // a limit below an empty database: block 1's Commit is refused before anything is written
    const app = await AbciTestApp.start({ stateDbMaxBytes: 1 });
    try {
      const conns = await AppConnections.open(app.address);
      const net = new CometNetwork([conns], { genesis: testGenesis(), validators: [{ address: consensusAddress(testConsensusKey(0)), power: 10n }] });
      await net.handshake(0);
      await assert.rejects(net.block(), /exception: .*state database full/);
      const timeout = new Promise<'running'>((r) => setTimeout(() => r('running'), 5_000).unref());
      const r = await Promise.race([app.driver.done, timeout]);
      assert.ok(r !== 'running' && r.reason === 'error', `the driver stops with an error, got ${r === 'running' ? r : r.reason}`);
      assert.match(r.error.message, /state database full/);
      assert.equal(r.reason, 'error', 'an error: chaind start exits 1 for it (start.ts exitCodeOf)');
      assert.ok(
        app.logger.lines.some((l) => l.level === 'error' && /^Commit failed: the node stops/.test(l.msg) && l.fields?.height === '1'),
        'logged',
      );
      assert.equal(app.driver.height, 0n);
      await conns.close();
    } finally {
      await app.stop();
    }
  });

  test("Query with prove=true is refused (no proofs yet); /p2p/filter/addr/… and /p2p/filter/id/… answer code 0 (CometBFT's filter_peers)", async () => {
    const { app, conns } = await network();
    try {
      const data = QueryBalanceRequest.encode({ address: BOB.address, denom: DENOM }).finish();
      for (const path of ['/cosmos.bank.v1beta1.Query/Balance', '/store/bank/key', '/cosmos.tx.v1beta1.Service/Simulate']) {
        const r = await one(conns.query, { query: { path, data, height: 0n, prove: true } }, 'query');
        assert.notEqual(r.code, 0, path);
        assert.match(r.log, /proofs are not supported yet/, path);
      }
      assert.equal((await conns.abciQuery('/cosmos.bank.v1beta1.Query/Balance', data)).code, 0, 'without prove it is answered');
      for (const path of ['/p2p/filter/addr/127.0.0.1:26656', '/p2p/filter/id/0123456789abcdef0123456789abcdef01234567']) {
        const r = await conns.abciQuery(path);
        assert.equal(r.code, 0, `${path}: ${r.log}`);
      }
      assert.notEqual((await conns.abciQuery('/p2p/other')).code, 0, 'other /p2p paths are unknown');
    } finally {
      await conns.close();
      await app.stop();
    }
  });
});

function testGenesisRequest(): ReturnType<CometNetwork['initChainRequest']> {
  return new CometNetwork([], { genesis: testGenesis(), validators: [] }).initChainRequest();
}
