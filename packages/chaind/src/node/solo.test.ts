// The solo driver over the real chaind app, a real mempool and real LMDB stores: blocks from signed txs,
// header links, restart, replay after a crash between block-store save and app commit, refusals, the
// upgrade halt at exactly the plan height, halt-height and stop().
import assert from 'node:assert/strict';
import { verify } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { VoteOption } from 'cosmjs-types/cosmos/gov/v1/gov';
import { MsgSubmitProposal, MsgSubmitProposalResponse, MsgVote } from 'cosmjs-types/cosmos/gov/v1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { ExecTxResult } from 'cosmjs-types/tendermint/abci/types';
import { isInjectedTx, MemoryLogger } from '@chaind/sdk/app';
import { QueryReadinessResponse, SimulateResult } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import type { GenesisDoc } from '@chaind/sdk/genesis';
import type { LocalReadiness } from '@chaind/sdk/x/upgrade';
import { Mempool } from '@chaind/sdk/admission';
import { encodeTx } from '@chaind/sdk/tx';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { consensusAddress } from '@chaind/sdk/x/validators';
import { testConsensusKey } from '@chaind/sdk/testing';
import { createChainApp, type ChainApp } from '../app.ts';
import {
  ALICE,
  BOB,
  CHAIN_ID,
  DENOM,
  GENESIS_SECONDS,
  newHome,
  testGenesis,
  removeTmpDirs,
  softwareUpgrade,
  testKey,
  type TestKey,
  upgradeV2,
  VALIDATOR,
  VALIDATOR_KEY,
} from '@chaind/chaind/testing';
import type { Upgrade } from '../upgrades/index.ts';
import { BlockStore } from './blockstore.ts';
import { timestampFromMs, voteSignBytes } from './commit.ts';
import { commitHash, dataHash, EMPTY_HASH, encodeBlock, resultsHash, sha256, validatorsHash } from './hash.ts';
import type { DriverStopResult } from './driver.ts';
import { HandshakeError, SoloDriver, type BlockEvent, type SoloDriverOptions } from './solo.ts';
import { createNodeMetrics } from './metrics/index.ts';

/** Every driver a test made: a failing test must not leave one ticking (the runner would never exit). */
const drivers = new Set<SoloDriver>();
after(async () => {
  for (const d of drivers) await d.stop();
  removeTmpDirs();
});

const INTERVAL = 20;
const KEY = VALIDATOR_KEY;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const genesis = testGenesis;

/** One node's parts over `home`: the real app, a mempool in front of it, the block store. */
class Node {
  readonly logger = new MemoryLogger();
  readonly chain: ChainApp;
  readonly mempool: Mempool;
  readonly blockStore: BlockStore;
  /** A deterministic driver clock: 1 s per reading, so gov periods pass in a few blocks. */
  private ms = Number(GENESIS_SECONDS) * 1000;

  constructor(
    readonly home: string,
    upgrades: readonly Upgrade[] = [],
    localReadiness?: (plan: Plan) => LocalReadiness,
  ) {
    this.chain = createChainApp({
      dbPath: join(home, 'data', 'application.db'),
      upgradeInfoPath: upgradeInfoPath(home),
      chainId: CHAIN_ID,
      logger: this.logger,
      upgrades,
      localReadiness,
    });
    this.mempool = new Mempool({ app: this.chain.app });
    this.blockStore = BlockStore.open(join(home, 'data', 'blockstore.db'));
  }

  options(o: Partial<SoloDriverOptions> = {}): SoloDriverOptions {
    return {
      app: this.chain.app,
      mempool: this.mempool,
      blockStore: this.blockStore,
      genesis: genesis(),
      validatorKey: KEY,
      blockIntervalMs: INTERVAL,
      logger: this.logger,
      clock: () => timestampFromMs((this.ms += 1000)),
      ...o,
    };
  }

  /** SoloDriver.open, tracked. */
  open(o: Partial<SoloDriverOptions> = {}): SoloDriver {
    const d = SoloDriver.open(this.options(o));
    drivers.add(d);
    return d;
  }

  /** SoloDriver.start, tracked. */
  async start(o: Partial<SoloDriverOptions> = {}): Promise<SoloDriver> {
    const d = await SoloDriver.start(this.options(o));
    drivers.add(d);
    return d;
  }

  get appHeight(): bigint {
    return this.chain.app.lastBlockHeight;
  }

  account(address: string): BaseAccount {
    const r = this.chain.app.query({
      path: '/cosmos.auth.v1beta1.Query/Account',
      data: QueryAccountRequest.encode({ address }).finish(),
      height: 0n,
      prove: false,
    });
    assert.equal(r.code, 0, r.log);
    return BaseAccount.decode((QueryAccountResponse.decode(r.value).account as Any).value);
  }

  balance(address: string): bigint {
    const r = this.chain.app.query({
      path: '/cosmos.bank.v1beta1.Query/Balance',
      data: QueryBalanceRequest.encode({ address, denom: DENOM }).finish(),
      height: 0n,
      prove: false,
    });
    assert.equal(r.code, 0, r.log);
    return BigInt(QueryBalanceResponse.decode(r.value).balance?.amount ?? '0');
  }

  /** A signed tx from `key` at its committed sequence plus `offset`. */
  tx(key: TestKey, msgs: Any[], offset = 0n): Uint8Array {
    const acc = this.account(key.address);
    return encodeTx(
      { msgs, fee: { amount: [], gasLimit: 10_000_000n } },
      [{ privateKey: key.privateKey, accountNumber: acc.accountNumber, sequence: acc.sequence + offset }],
      CHAIN_ID,
    );
  }

  send(from: TestKey, to: string, amount: string, offset = 0n): Uint8Array {
    const m = MsgSend.fromPartial({ fromAddress: from.address, toAddress: to, amount: [{ denom: DENOM, amount }] });
    return this.tx(from, [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: MsgSend.encode(m).finish() }], offset);
  }

  /** Admits txs to the mempool through CheckTx; each must pass. */
  submit(...txs: Uint8Array[]): Uint8Array[] {
    for (const tx of txs) {
      const r = this.mempool.add(tx);
      assert.equal(r.code, 0, r.log);
    }
    return txs.map((tx) => sha256(tx));
  }

  async close(): Promise<void> {
    await this.chain.close();
    await this.blockStore.close();
  }
}

/** Resolves with the first committed block satisfying `pred`; fails the test after `ms`. */
function waitForBlock(d: SoloDriver, pred: (e: BlockEvent) => boolean, ms = 5000): Promise<BlockEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching block within ${ms} ms (height ${d.height})`));
    }, ms);
    const off = d.onBlock((e) => {
      if (!pred(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

const includes =
  (hashes: readonly Uint8Array[]) =>
  (e: BlockEvent): boolean =>
    hashes.every((h) => e.txs.some((x) => hex(x.hash) === hex(h)));

/** Alice proposes upgrade v2 at `planHeight` and the validator votes yes; resolves with the block of the vote. */
async function proposeV2(n: Node, d: SoloDriver, planHeight: bigint): Promise<BlockEvent> {
  const submit = MsgSubmitProposal.fromPartial({
    messages: [softwareUpgrade('v2', planHeight, '{"binaries":{}}')],
    initialDeposit: [{ denom: DENOM, amount: '1000' }],
    proposer: ALICE.address,
    title: 'v2',
    summary: 'v2',
  });
  const [ph] = n.submit(n.tx(ALICE, [{ typeUrl: '/cosmos.gov.v1.MsgSubmitProposal', value: MsgSubmitProposal.encode(submit).finish() }]));
  const pe = await waitForBlock(d, includes([ph]));
  const pr = pe.txs.find((x) => hex(x.hash) === hex(ph))?.result;
  assert.ok(pr !== undefined);
  assert.equal(pr.code, 0, pr.log);
  const proposalId = MsgSubmitProposalResponse.decode(TxMsgData.decode(pr.data).msgResponses[0].value).proposalId;
  const vote = MsgVote.fromPartial({ proposalId, voter: VALIDATOR.address, option: VoteOption.VOTE_OPTION_YES });
  const [vh] = n.submit(n.tx(VALIDATOR, [{ typeUrl: '/cosmos.gov.v1.MsgVote', value: MsgVote.encode(vote).finish() }]));
  return waitForBlock(d, includes([vh]));
}

/** Every stored height has its whole record, and the headers chain up as CometBFT links them. */
function assertChain(bs: BlockStore, upTo: bigint): void {
  assert.equal(bs.base, 1n);
  assert.equal(bs.height, upTo);
  const ourValidators = validatorsHash([{ pubKey: { ed25519: KEY.pubKey }, power: 10n }]);
  for (let h = 1n; h <= upTo; h++) {
    const block = bs.block(h);
    const id = bs.blockId(h);
    const results = bs.results(h);
    assert.ok(
      block !== undefined && id !== undefined && results !== undefined && bs.seenCommit(h) !== undefined && bs.state(h) !== undefined,
      `record of ${h}`,
    );
    const hd = block.header;
    assert.equal(hd.height, h);
    assert.equal(hd.chainId, CHAIN_ID);
    assert.deepEqual(encodeBlock(block).blockId, id, `block id of ${h} is its header hash and part set`);
    assert.deepEqual(hd.dataHash, dataHash(block.data.txs));
    assert.deepEqual(hd.validatorsHash, ourValidators);
    assert.deepEqual(hd.nextValidatorsHash, ourValidators);
    assert.deepEqual(hd.proposerAddress, KEY.address);
    assert.deepEqual(hd.evidenceHash, EMPTY_HASH);
    assert.deepEqual(hd.lastCommitHash, commitHash(block.lastCommit ?? { height: 0n, round: 0, blockId: id, signatures: [] }));
    assert.equal(results.txResults.length, block.data.txs.length);
    if (h === 1n) {
      assert.equal(hd.lastBlockId.hash.length, 0);
      assert.equal(block.lastCommit?.signatures.length, 0);
      assert.deepEqual(hd.lastResultsHash, EMPTY_HASH);
      assert.deepEqual(hd.time, { seconds: GENESIS_SECONDS, nanos: 0 }, 'the first block has the genesis time');
      continue;
    }
    const prev = bs.block(h - 1n);
    const prevResults = bs.results(h - 1n);
    assert.ok(prev !== undefined && prevResults !== undefined);
    assert.deepEqual(hd.lastBlockId, bs.blockId(h - 1n), `last_block_id of ${h}`);
    assert.deepEqual(hd.appHash, prevResults.appHash, `app_hash of ${h} is FinalizeBlock(${h - 1n})'s`);
    assert.deepEqual(hd.lastResultsHash, resultsHash(prevResults.txResults));
    assert.deepEqual(block.lastCommit, bs.seenCommit(h - 1n));
    assert.ok(
      hd.time.seconds > prev.header.time.seconds || (hd.time.seconds === prev.header.time.seconds && hd.time.nanos > prev.header.time.nanos),
      `time of ${h} increases`,
    );
  }
}

describe('solo driver', () => {
  test('produces blocks from signed mempool txs, chained as CometBFT chains them, with a verifiable commit', async () => {
    const n = new Node(newHome());
    const d = await n.start();
    await waitForBlock(d, (e) => e.height >= 1n);
    const bobBefore = n.balance(BOB.address);
    const hashes = n.submit(n.send(ALICE, BOB.address, '100'), n.send(ALICE, BOB.address, '200', 1n), n.send(BOB, ALICE.address, '5'));
    const ev = await waitForBlock(d, includes(hashes));
    assert.ok(
      ev.results.txResults.every((r) => r.code === 0),
      JSON.stringify(ev.results.txResults.map((r) => r.log)),
    );
    await waitForBlock(d, (e) => e.height >= ev.height + 2n);
    const r = await d.stop();
    assert.equal(r.reason, 'stopped');
    const h = n.blockStore.height;
    assert.equal(r.height, h);
    assert.equal(n.appHeight, h, 'app and block store at the same height');
    assertChain(n.blockStore, h);
    assert.equal(n.balance(BOB.address), bobBefore + 300n - 5n);
    assert.equal(n.mempool.size(), 0, 'committed txs left the mempool');
    for (const hash of hashes) {
      const t = n.blockStore.txByHash(hash);
      assert.ok(t !== undefined);
      assert.equal(t.height, ev.height);
      assert.deepEqual(t.tx, ev.block.data.txs[t.index]);
      assert.equal(hex(sha256(t.tx)), hex(hash));
      // the event carries the app's own objects (BaseApp adds msgResponses): compare what is stored, the protobuf
      assert.deepEqual(ExecTxResult.encode(t.result).finish(), ExecTxResult.encode(ev.results.txResults[t.index]).finish());
    }
    assert.deepEqual(
      n.blockStore.txsByHeight(ev.height).map(hex),
      ev.txs.map((t) => hex(t.hash)),
    );
    // the app's Info agrees with the block store's last results
    const info = n.chain.app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' });
    assert.equal(hex(info.lastBlockAppHash), hex(n.blockStore.results(h)?.appHash ?? new Uint8Array(0)));
    // our precommit for block h verifies with the validator's ed25519 key
    const commit = n.blockStore.seenCommit(h);
    assert.ok(commit !== undefined);
    const [sig] = commit.signatures;
    const msg = voteSignBytes(CHAIN_ID, { type: 2, height: h, round: 0, blockId: commit.blockId, timestamp: sig.timestamp });
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), KEY.pubKey]);
    assert.ok(verify(null, msg, { key: spki, format: 'der', type: 'spki' }, sig.signature));
    // nothing more happens after stop: the timer is gone
    await new Promise((res) => setTimeout(res, INTERVAL * 5));
    assert.equal(n.blockStore.height, h);
    await n.close();
  });

  test('a restart resumes at the next height, linked to the last stored block', async () => {
    const home = newHome();
    let n = new Node(home);
    let d = await n.start();
    await waitForBlock(d, (e) => e.height >= 3n);
    await d.stop();
    const h = n.blockStore.height;
    const lastId = n.blockStore.blockId(h);
    await n.close();

    n = new Node(home);
    d = n.open();
    assert.equal(d.height, h);
    assert.ok(!n.logger.lines.some((l) => l.msg === 'InitChain' || l.msg === 'replaying block'));
    d.run();
    const next = await waitForBlock(d, () => true);
    assert.equal(next.height, h + 1n);
    assert.deepEqual(next.block.header.lastBlockId, lastId);
    await waitForBlock(d, (e) => e.height >= h + 2n);
    const r = await d.stop();
    assertChain(n.blockStore, r.height);
    await n.close();
  });

  test('a block saved but never committed by the app (a crash between the two) is replayed on start', async () => {
    const home = newHome();
    let n = new Node(home);
    let d = n.open();
    d.produceBlock();
    d.produceBlock();
    const bob = n.balance(BOB.address);
    const [hash] = n.submit(n.send(ALICE, BOB.address, '777'));
    // block 3: proposed, executed and saved, then the process "dies" before the app's Commit
    const saved = d.saveBlock(d.executeBlock(d.proposeBlock()));
    assert.equal(saved.block.data.txs.length, 1);
    assert.equal(n.blockStore.height, 3n);
    assert.equal(n.appHeight, 2n);
    await n.close();

    n = new Node(home);
    assert.equal(n.appHeight, 2n);
    assert.equal(n.balance(BOB.address), bob, 'the tx is not in the app yet');
    d = n.open();
    assert.ok(n.logger.lines.some((l) => l.msg === 'replaying block' && l.fields?.height === '3'));
    assert.equal(d.height, 3n);
    assert.equal(n.appHeight, 3n);
    assert.equal(n.balance(BOB.address), bob + 777n, 'the replayed block took effect once');
    assert.deepEqual(n.chain.app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' }).lastBlockAppHash, saved.results.appHash);
    assert.equal(n.blockStore.txByHash(hash)?.result.code, 0);
    const four = d.produceBlock();
    assert.deepEqual(four.block.header.appHash, saved.results.appHash);
    assert.deepEqual(four.block.header.lastBlockId, saved.blockId);
    assertChain(n.blockStore, 4n);
    await d.stop();
    await n.close();
  });

  test('the first block saved but not committed: InitChain again, then replay', async () => {
    const home = newHome();
    let n = new Node(home);
    let d = n.open();
    const saved = d.saveBlock(d.executeBlock(d.proposeBlock()));
    await n.close();
    n = new Node(home);
    assert.equal(n.appHeight, 0n);
    d = n.open();
    assert.ok(n.logger.lines.some((l) => l.msg === 'InitChain'));
    assert.equal(n.appHeight, 1n);
    assert.deepEqual(n.chain.app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' }).lastBlockAppHash, saved.results.appHash);
    d.produceBlock();
    assertChain(n.blockStore, 2n);
    await n.close();
  });

  test('refuses to start when the app is ahead of the block store, or their app hashes differ', async () => {
    const home = newHome();
    let n = new Node(home);
    const d = n.open();
    d.produceBlock();
    d.produceBlock();
    await n.close();
    rmSync(join(home, 'data', 'blockstore.db'), { recursive: true, force: true });
    n = new Node(home);
    assert.throws(
      () => n.open(),
      (e: Error) => e instanceof HandshakeError && /app is at height 2 but the block store only at 0/.test(e.message),
    );
    await n.close();

    // two chains of the same height whose states differ (one funds an extra account): app of one, blocks of the other
    const a = newHome();
    const b = newHome();
    for (const [home2, extra] of [
      [a, []],
      [b, [testKey(5).address]],
    ] as const) {
      const m = new Node(home2);
      const g = genesis(extra);
      const dd = m.open({ genesis: g });
      dd.produceBlock();
      dd.produceBlock();
      await m.close();
    }
    const mixed = new Node(a);
    await mixed.blockStore.close();
    const other = BlockStore.open(join(b, 'data', 'blockstore.db'));
    assert.throws(
      () => SoloDriver.open({ ...mixed.options(), blockStore: other }),
      (e: Error) => e instanceof HandshakeError && /app hash mismatch at height 2/.test(e.message),
    );
    await other.close();
    await mixed.chain.close();
  });

  test('refuses a validator key outside the validator set', async () => {
    const n = new Node(newHome());
    const stranger = testConsensusKey(5);
    assert.throws(
      () => n.open({ validatorKey: { pubKey: stranger, address: consensusAddress(stranger) } }),
      (e: Error) => e instanceof HandshakeError && /not in the validator set/.test(e.message),
    );
    await n.close();
  });

  test('steps run in order, one block at a time', async () => {
    const n = new Node(newHome());
    const d = n.open();
    const p = d.proposeBlock();
    assert.throws(() => d.proposeBlock(), /proposeBlock called at stage "proposed"/);
    assert.throws(
      () => d.saveBlock({ ...p, results: { events: [], txResults: [], validatorUpdates: [], consensusParamUpdates: undefined, appHash: new Uint8Array(0) } }),
      /saveBlock called at stage "proposed"/,
    );
    d.commitBlock(d.saveBlock(d.executeBlock(p)));
    assert.equal(d.height, 1n);
    await d.stop();
    assert.throws(() => d.proposeBlock(), /stopped/);
    await n.close();
  });

  test('a scheduled upgrade halts at exactly the plan height: exit code 10, nothing of that height stored; the new binary continues', async () => {
    const home = newHome();
    let n = new Node(home);
    const { metrics, registry } = createNodeMetrics('chaind');
    const d = await n.start({ metrics });
    await waitForBlock(d, (e) => e.height >= 1n);
    assert.match(await registry.metrics(), /^chaind_upgrade_halted 0$/m);
    const planHeight = d.height + 30n;
    const ve = await proposeV2(n, d, planHeight);
    assert.ok(ve.height < planHeight - 15n, 'the vote lands well before the plan height');

    const r: DriverStopResult = await d.done;
    assert.equal(
      r.reason,
      'halt',
      JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    );
    assert.ok(r.reason === 'halt');
    assert.equal(r.kind, 'upgrade-needed');
    assert.equal(r.exitCode, 10);
    assert.equal(r.height, planHeight - 1n);
    assert.match(r.message, new RegExp(`UPGRADE "v2" NEEDED at height: ${planHeight}`));
    assert.equal(n.blockStore.height, planHeight - 1n, 'nothing of the plan height in the block store');
    assert.equal(n.blockStore.block(planHeight), undefined);
    assert.equal(n.appHeight, planHeight - 1n, 'nothing of the plan height in the app');
    assert.ok(existsSync(upgradeInfoPath(home)), 'upgrade-info.json written');
    assert.ok(n.logger.lines.some((l) => l.msg === 'halting' && l.fields?.kind === 'upgrade-needed'));
    // the halt is in the metrics (the node process exits right after: a scrape seldom sees it)
    assert.match(await registry.metrics(), /^chaind_upgrade_halted 1$/m);
    assertChain(n.blockStore, planHeight - 1n);
    await n.close();

    // the new binary knows v2: no replay is needed, it produces the plan height itself
    n = new Node(home, [upgradeV2()]);
    const d2 = n.open();
    assert.equal(d2.height, planHeight - 1n);
    const upgraded = d2.produceBlock();
    assert.equal(upgraded.block.header.height, planHeight);
    assert.equal(upgraded.results.consensusParamUpdates?.version?.app, 1n);
    const after1 = d2.produceBlock();
    assert.equal(after1.block.header.version.app, 1n, 'the header carries the new app version from the next block on');
    assert.equal(upgraded.block.header.version.app, 0n);
    assertChain(n.blockStore, planHeight + 1n);
    await d2.stop();
    await n.close();
  });

  test('vote extensions on in genesis: the solo node attests its own readiness, each block carries its signed extension first, and a restart goes on', async () => {
    const home = newHome();
    let ready = false;
    const local = (): LocalReadiness => ({ releaseChecksum: ready ? `sha256:${'ab'.repeat(32)}` : '', simulate: SimulateResult.SIMULATE_RESULT_UNSPECIFIED });
    const withExtensions = (): GenesisDoc => {
      const g = genesis();
      return { ...g, consensusParams: { ...g.consensusParams, abci: { voteExtensionsEnableHeight: 1n } } };
    };
    let n = new Node(home, [], local);
    const readiness = (): QueryReadinessResponse => {
      const r = n.chain.app.query({ path: '/chain.upgrade.v1beta1.Query/Readiness', data: new Uint8Array(0), height: 0n, prove: false });
      assert.equal(r.code, 0, r.log);
      return QueryReadinessResponse.decode(r.value);
    };
    let d = await n.start({ genesis: withExtensions() });
    const second = await waitForBlock(d, (e) => e.height >= 2n);
    assert.ok(isInjectedTx(second.block.data.txs[0]), 'block 2 carries the extended commit of block 1');
    assert.equal(second.results.txResults[0].gasUsed, 0n);
    await proposeV2(n, d, d.height + 200n);
    await waitForBlock(d, () => readiness().plan !== undefined, 30_000);
    await waitForBlock(d, () => readiness().validators[0]?.attestedHeight > 0n);
    const notYet = readiness();
    assert.equal(notYet.enabled, true);
    assert.equal(notYet.readyFraction, '0.000000000000000000');
    ready = true;
    await waitForBlock(d, () => readiness().readyPower > 0n);
    assert.equal(readiness().readyFraction, '1.000000000000000000');
    assert.equal(readiness().validators[0].consensusAddress, Buffer.from(KEY.address).toString('hex').toUpperCase());
    await d.stop();
    await n.close();

    // after a restart the node makes its extension of the last block again: the next proposal still verifies
    n = new Node(home, [], local);
    d = n.open({ genesis: withExtensions() });
    const next = d.produceBlock();
    assert.ok(isInjectedTx(next.block.data.txs[0]));
    assert.equal(readiness().readyFraction, '1.000000000000000000');
    assert.equal(readiness().validators[0].attestedHeight, next.block.header.height);
    await d.stop();
    await n.close();
  });

  test('--halt-height stops cleanly after committing that height, and again at once on restart', async () => {
    const home = newHome();
    let n = new Node(home);
    let d = await n.start({ haltHeight: 4n });
    const r = await d.done;
    assert.deepEqual(r, { reason: 'halt-height', height: 4n });
    assert.equal(n.blockStore.height, 4n);
    assert.equal(n.appHeight, 4n);
    await n.close();

    n = new Node(home);
    d = await n.start({ haltHeight: 4n });
    assert.deepEqual(await d.done, { reason: 'halt-height', height: 4n });
    assert.equal(n.blockStore.height, 4n);
    await n.close();

    n = new Node(home);
    d = await n.start({ haltHeight: 6n });
    assert.deepEqual(await d.done, { reason: 'halt-height', height: 6n });
    assertChain(n.blockStore, 6n);
    await n.close();
  });

  test('broadcasts that keep the thread from ever reaching its timers still see blocks on time: a due block goes first', async () => {
    const n = new Node(newHome());
    const d = await n.start();
    await waitForBlock(d, (e) => e.height >= 1n);
    const h0 = d.height;
    const tx = n.send(ALICE, BOB.address, '1');
    const hash = sha256(tx);
    const answers: Promise<unknown>[] = [];
    // ten intervals of broadcasts without a pause, as a flood's poll phase runs them: no timer can fire
    const until = performance.now() + INTERVAL * 10;
    while (performance.now() < until) answers.push(d.admission.submit(tx).catch((e: unknown) => e));
    const produced = d.height - h0;
    assert.ok(produced >= 5n, `blocks produced while broadcasts held the thread: ${produced}`);
    assert.ok(n.blockStore.txByHash(hash) !== undefined, 'the broadcast tx was committed in one of them');
    assertChain(n.blockStore, d.height);
    await Promise.all(answers);
    await d.stop();
    await n.close();
  });

  test('stop() while running and from inside a block leaves both stores at the same height; a restart needs no replay', async () => {
    const home = newHome();
    let n = new Node(home);
    let d = await n.start({ blockIntervalMs: 0 });
    await new Promise((res) => setTimeout(res, 150));
    const r = await d.stop();
    assert.equal(r.reason, 'stopped');
    assert.ok(r.height > 2n, `some blocks were produced (${r.height})`);
    assert.equal(n.blockStore.height, r.height);
    assert.equal(n.appHeight, r.height);
    assert.equal(await d.stop(), r, 'stop is idempotent');

    // a listener stopping the driver from inside a block: that block still completes
    d = n.open({ blockIntervalMs: 0 });
    let stopped: Promise<DriverStopResult> | undefined;
    d.onBlock((e) => {
      if (e.height === r.height + 3n) stopped = d.stop();
    });
    d.run();
    const r2 = await d.done;
    assert.deepEqual(r2, { reason: 'stopped', height: r.height + 3n });
    assert.equal(await stopped, r2);
    assert.equal(n.blockStore.height, r.height + 3n);
    assert.equal(n.appHeight, r.height + 3n);
    await n.close();

    n = new Node(home);
    d = n.open();
    assert.ok(!n.logger.lines.some((l) => l.msg === 'replaying block'));
    assert.equal(d.height, r.height + 3n);
    assertChain(n.blockStore, d.height);
    await n.close();
  });
});
