import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MsgSend, MsgSendResponse } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { TxBody } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { QueryAuthorityRequest, QueryAuthorityResponse, QueryDefinition } from '../gen/chain/upgrade/v1beta1/query.ts';
import { CommitMultiStore, toHex, utf8 } from '../store/index.ts';
import { QueryCache } from './query-cache.ts';
import { BaseApp, Context, ModuleManager, registerError, errors, type AppModule, type Tx } from './index.ts';
import { blockRequest } from '@chaind/sdk/testing';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'chaind-app-'));
  dirs.push(d);
  return d;
}

const SEND = '/cosmos.bank.v1beta1.MsgSend';
const gasOf = (memo: string): bigint => (memo.startsWith('gas:') ? BigInt(memo.slice(4)) : 10_000_000n);
/** Test txs: a TxBody; the memo carries the gas limit. Real txs (signatures, fees) are the auth module's. */
const decodeTx = (bytes: Uint8Array): Tx => {
  const body = TxBody.decode(bytes);
  return { msgs: body.messages, gasLimit: gasOf(body.memo) };
};
const encodeTx = (msgs: MsgSend[], memo = ''): Uint8Array =>
  TxBody.encode(TxBody.fromPartial({ memo, messages: msgs.map((m) => ({ typeUrl: SEND, value: MsgSend.encode(m).finish() })) })).finish();
const send = (from: string, to: string, amount: string): MsgSend =>
  MsgSend.fromPartial({ fromAddress: from, toAddress: to, amount: [{ denom: 'stake', amount }] });

const ledgerErr = registerError('ledger-test', 2, 'refused');

interface Trace {
  calls: string[];
  failPreBlockAt?: bigint;
}

/** A module that records the phases it runs in and keeps a ledger of "sends" in its store. */
function ledgerModule(name: string, trace: Trace, version = 1n): AppModule {
  return {
    name,
    storeKeys: [name],
    consensusVersion: version,
    defaultGenesis: () => ({ seed: 'default' }),
    validateGenesis(g) {
      if (typeof (g as { seed?: unknown }).seed !== 'string') throw new Error(`${name} genesis: "seed" must be a string`);
    },
    initGenesis(ctx, g) {
      trace.calls.push(`${name}.initGenesis:${(g as { seed: string }).seed}`);
      ctx.kvStore(name).set(utf8('seed'), utf8((g as { seed: string }).seed));
    },
    exportGenesis(ctx) {
      return { seed: Buffer.from(ctx.kvStore(name).get(utf8('seed')) ?? []).toString() };
    },
    registerServices(cfg) {
      if (name !== 'ledger') return;
      cfg.msgRouter.register({
        typeUrl: SEND,
        codec: MsgSend,
        responseTypeUrl: '/cosmos.bank.v1beta1.MsgSendResponse',
        responseCodec: MsgSendResponse,
        handler(ctx: Context, msg: MsgSend) {
          trace.calls.push(`tx:${msg.amount[0].amount}`);
          ctx.kvStore(name).set(utf8(`sent/${msg.toAddress}`), utf8(msg.amount[0].amount));
          if (msg.amount[0].amount === '666') throw ledgerErr.wrap('the number of the beast');
          return {};
        },
      });
      cfg.queryRouter.registerService(QueryDefinition, {
        currentPlan: () => ({ plan: undefined }),
        appliedPlan: () => ({ height: 0n }),
        moduleVersions: () => ({ moduleVersions: [] }),
        authority: (ctx) => ({ address: Buffer.from(ctx.kvStore(name).get(utf8('seed')) ?? []).toString() }),
        upgradedConsensusState: () => ({ upgradedConsensusState: new Uint8Array(0) }),
        readiness: () => ({
          plan: undefined,
          enabled: false,
          totalPower: 0n,
          readyPower: 0n,
          readyFraction: '',
          validators: [],
          scheduledHeight: 0n,
          delays: 0,
          threshold: '',
        }),
        params: () => ({ params: undefined }),
      });
    },
    preBlock(ctx) {
      trace.calls.push(`${name}.preBlock`);
      if (name === 'audit' && trace.failPreBlockAt === ctx.height) throw new Error(`pre-blocker ${name} refuses height ${ctx.height}`);
    },
    beginBlock(ctx) {
      trace.calls.push(`${name}.beginBlock`);
      ctx.kvStore(name).set(utf8('lastBegin'), utf8(String(ctx.height)));
    },
    endBlock() {
      trace.calls.push(`${name}.endBlock`);
    },
  };
}

function makeApp(
  path: string,
  trace: Trace,
  opts: { ante?: (ctx: Context, tx: Tx) => void; simulationGasLimit?: bigint; simulationMaxTxBytes?: number } = {},
): BaseApp {
  const mm = new ModuleManager([ledgerModule('ledger', trace), ledgerModule('audit', trace)]);
  mm.setOrder('endBlock', ['audit', 'ledger']);
  const app = new BaseApp({
    name: 'testapp',
    version: '0.0.1',
    store: CommitMultiStore.open(path),
    modules: mm,
    txDecoder: decodeTx,
    anteHandler: opts.ante,
    chainId: 'test-1',
    simulationGasLimit: opts.simulationGasLimit,
    simulationMaxTxBytes: opts.simulationMaxTxBytes,
  });
  app.load();
  return app;
}

const time = (s: number): { seconds: bigint; nanos: number } => ({ seconds: BigInt(s), nanos: 0 });
function initChain(app: BaseApp, appState: unknown = {}): void {
  app.initChain({ time: time(0), chainId: 'test-1', validators: [], appStateBytes: utf8(JSON.stringify(appState)), initialHeight: 1n });
}
function block(app: BaseApp, height: bigint, txs: Uint8Array[] = []) {
  return app.finalizeBlock(blockRequest(height, height, txs));
}
const read = (app: BaseApp, store: string, key: string): string | undefined => {
  const r = app.query({ path: `/store/${store}/key`, data: utf8(key), height: 0n, prove: false });
  assert.equal(r.code, 0, r.log);
  return r.value.length === 0 ? undefined : Buffer.from(r.value).toString();
};

describe('block phases', () => {
  test('pre-blockers, begin-blockers, txs and end-blockers run in their configured order', async () => {
    const trace: Trace = { calls: [] };
    const app = makeApp(tmp(), trace);
    initChain(app, { ledger: { seed: 'g1' } });
    assert.deepEqual(trace.calls, ['ledger.initGenesis:g1', 'audit.initGenesis:default']);
    trace.calls.length = 0;
    const res = block(app, 1n, [encodeTx([send('a', 'b', '5')]), encodeTx([send('a', 'c', '7')])]);
    assert.deepEqual(trace.calls, [
      'ledger.preBlock',
      'audit.preBlock',
      'ledger.beginBlock',
      'audit.beginBlock',
      'tx:5',
      'tx:7',
      'audit.endBlock',
      'ledger.endBlock',
    ]);
    assert.deepEqual(
      res.txResults.map((r) => r.code),
      [0, 0],
    );
    app.commit();
    assert.equal(read(app, 'ledger', 'sent/c'), '7');
    assert.equal(read(app, 'ledger', 'seed'), 'g1');
    assert.equal(app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' }).lastBlockHeight, 1n);
    await app.store.close();
  });

  test('a failing pre-blocker fails the whole block and leaves nothing; the same height then succeeds', async () => {
    const path = tmp();
    const trace: Trace = { calls: [] };
    const app = makeApp(path, trace);
    initChain(app);
    block(app, 1n);
    app.commit();
    const before = app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' });
    trace.failPreBlockAt = 2n;
    trace.calls.length = 0;
    assert.throws(() => block(app, 2n, [encodeTx([send('a', 'z', '9')])]), /pre-blocker audit refuses height 2/);
    assert.deepEqual(trace.calls, ['ledger.preBlock', 'audit.preBlock'], 'nothing after the failing pre-blocker ran');
    assert.throws(() => app.commit(), /Commit without a finalized block/);
    const afterFail = app.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' });
    assert.equal(afterFail.lastBlockHeight, 1n);
    assert.equal(toHex(afterFail.lastBlockAppHash), toHex(before.lastBlockAppHash));
    assert.equal(read(app, 'ledger', 'lastBegin'), '1', "the failed block's begin-blocker writes are not visible");
    trace.failPreBlockAt = undefined;
    const ok = block(app, 2n, [encodeTx([send('a', 'z', '9')])]);
    app.commit();
    assert.equal(read(app, 'ledger', 'sent/z'), '9');
    assert.notEqual(toHex(ok.appHash), toHex(before.lastBlockAppHash));
    // and after a reopen, Info reports the committed height and app hash
    await app.store.close();
    const re = makeApp(path, { calls: [] });
    const info = re.info({ version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' });
    assert.equal(info.lastBlockHeight, 2n);
    assert.equal(toHex(info.lastBlockAppHash), toHex(ok.appHash));
    await re.store.close();
  });

  test('blocks must come in height order', async () => {
    const app = makeApp(tmp(), { calls: [] });
    assert.throws(() => block(app, 1n), /needs InitChain first/);
    initChain(app);
    assert.throws(() => block(app, 2n), /FinalizeBlock for height 2, expected 1/);
    await app.store.close();
  });

  test('a block waiting for its Commit is not executed over: FinalizeBlock again is refused until it is committed or aborted', async () => {
    const app = makeApp(tmp(), { calls: [] });
    initChain(app);
    block(app, 1n, [encodeTx([send('a', 'z', '5')])]);
    assert.throws(() => block(app, 1n, [encodeTx([send('a', 'z', '5')])]), /FinalizeBlock for height 1 while block 1 waits for its Commit/);
    // aborting block 1 drops the genesis writes with it: InitChain again, then block 1 once
    app.abortBlock();
    assert.throws(() => block(app, 1n), /needs InitChain first/);
    initChain(app);
    block(app, 1n, [encodeTx([send('a', 'z', '5')])]);
    app.commit();
    assert.equal(read(app, 'ledger', 'sent/z'), '5', 'the send counted once');
    block(app, 2n);
    app.abortBlock();
    block(app, 2n);
    app.commit();
    assert.equal(app.lastBlockHeight, 2n);
    await app.store.close();
  });
});

describe('transactions', () => {
  test('a failing message leaves no writes but the ante handler keeps its own; the result carries code and codespace', async () => {
    const trace: Trace = { calls: [] };
    let fees = 0;
    const app = makeApp(tmp(), trace, {
      ante(ctx) {
        fees++;
        ctx.kvStore('audit').set(utf8('fees'), utf8(String(fees)));
      },
    });
    initChain(app);
    const res = block(app, 1n, [encodeTx([send('a', 'ok', '1'), send('a', 'beast', '666')]), encodeTx([]), Uint8Array.from([0xff, 0xff, 0xff])]);
    app.commit();
    const [failed, empty, garbage] = res.txResults;
    assert.equal(failed.code, 2);
    assert.equal(failed.codespace, 'ledger-test');
    assert.equal(failed.log, 'the number of the beast: refused');
    assert.equal(read(app, 'ledger', 'sent/ok'), undefined, 'the first message of a failed tx is rolled back');
    assert.equal(read(app, 'ledger', 'sent/beast'), undefined);
    assert.equal(read(app, 'audit', 'fees'), '1', 'the ante handler ran once and its write survived the failed message');
    assert.equal(empty.code, errors.invalidRequest.code);
    assert.match(empty.log, /must contain at least one message/);
    assert.equal(garbage.code, errors.txDecode.code);
    assert.equal(garbage.codespace, 'sdk');
    await app.store.close();
  });

  test('unknown message types and out-of-gas are clear errors', async () => {
    const app = makeApp(tmp(), { calls: [] });
    initChain(app);
    const unknown = TxBody.encode(TxBody.fromPartial({ messages: [{ typeUrl: '/nope.Msg', value: new Uint8Array(0) }] })).finish();
    const res = block(app, 1n, [unknown, encodeTx([send('a', 'b', '1')], 'gas:2100')]);
    app.commit();
    assert.equal(res.txResults[0].code, errors.unknownRequest.code);
    assert.match(res.txResults[0].log, /unrecognized message type: \/nope\.Msg/);
    assert.equal(res.txResults[1].code, errors.outOfGas.code);
    assert.match(res.txResults[1].log, /out of gas in location: WritePerByte; gasWanted: 2100/);
    assert.equal(read(app, 'ledger', 'sent/b'), undefined);
    await app.store.close();
  });

  test('CheckTx and simulate never touch committed state', async () => {
    const app = makeApp(tmp(), { calls: [] });
    initChain(app);
    block(app, 1n);
    app.commit();
    const tx = encodeTx([send('a', 'sim', '3')]);
    assert.equal(app.checkTx({ tx, type: 0 }).code, 0);
    const sim = app.simulate(tx);
    assert.equal(sim.code, 0);
    assert.ok(sim.gasUsed > 2000n, `simulate reports gas used: ${sim.gasUsed}`);
    assert.equal(read(app, 'ledger', 'sent/sim'), undefined);
    await app.store.close();
  });

  test('a capped simulation runs out of gas at the cap and refuses oversized txs', async () => {
    const app = makeApp(tmp(), { calls: [] }, { simulationGasLimit: 2000n, simulationMaxTxBytes: 4096 });
    initChain(app);
    block(app, 1n);
    app.commit();
    // many messages: unmetered, this simulation would run as long as the tx is big
    const tx = encodeTx(Array.from({ length: 50 }, (_, i) => send('a', `sim${i}`, '3')));
    const sim = app.simulate(tx);
    assert.equal(sim.code, errors.outOfGas.code, sim.log);
    assert.ok(sim.gasUsed <= 2000n + 1000n, `stopped near the cap: ${sim.gasUsed}`);
    // the caller's cap wins over the app's
    assert.equal(app.simulate(tx, 10_000_000n).code, 0);
    const big = encodeTx([send('a', 'x', '1')], 'm'.repeat(5000));
    assert.equal(app.simulate(big).code, errors.txTooLarge.code);
    await app.store.close();
  });
});

describe('routers and queries', () => {
  test('gRPC method paths reach the registered query service; unknown paths and bad heights are errors', async () => {
    const app = makeApp(tmp(), { calls: [] });
    initChain(app, { ledger: { seed: 'chain1authority' } });
    block(app, 1n);
    app.commit();
    const q = app.query({ path: '/chain.upgrade.v1beta1.Query/Authority', data: QueryAuthorityRequest.encode({}).finish(), height: 0n, prove: false });
    assert.equal(q.code, 0, q.log);
    assert.equal(q.height, 1n);
    assert.equal(QueryAuthorityResponse.decode(q.value).address, 'chain1authority');
    const unknown = app.query({ path: '/chain.upgrade.v1beta1.Query/Nope', data: new Uint8Array(0), height: 0n, prove: false });
    assert.equal(unknown.code, errors.unknownRequest.code);
    assert.match(unknown.log, /unknown query path/);
    const badHeight = app.query({ path: '/chain.upgrade.v1beta1.Query/Authority', data: new Uint8Array(0), height: 7n, prove: false });
    assert.equal(badHeight.code, errors.invalidHeight.code);
    const badStore = app.query({ path: '/store/nope/key', data: utf8('x'), height: 0n, prove: false });
    assert.equal(badStore.code, errors.unknownRequest.code);
    assert.deepEqual(app.modules.queryRouter.paths(), [
      '/chain.upgrade.v1beta1.Query/AppliedPlan',
      '/chain.upgrade.v1beta1.Query/Authority',
      '/chain.upgrade.v1beta1.Query/CurrentPlan',
      '/chain.upgrade.v1beta1.Query/ModuleVersions',
      '/chain.upgrade.v1beta1.Query/Params',
      '/chain.upgrade.v1beta1.Query/Readiness',
      '/chain.upgrade.v1beta1.Query/UpgradedConsensusState',
    ]);
    await app.store.close();
  });

  test('answers are kept for a height only: after each commit, queries see the new state; a full cache starts over', async () => {
    const app = makeApp(tmp(), { calls: [] });
    initChain(app);
    block(app, 1n);
    app.commit();
    assert.equal(read(app, 'ledger', 'lastBegin'), '1');
    assert.equal(read(app, 'ledger', 'lastBegin'), '1', 'the same answer again');
    // a block in progress is not visible; its commit is
    block(app, 2n);
    assert.equal(read(app, 'ledger', 'lastBegin'), '1');
    app.commit();
    assert.equal(read(app, 'ledger', 'lastBegin'), '2');
    // many distinct requests (client-chosen keys) never grow it without bound, and answers stay right
    for (let i = 0; i < 10_000; i++) assert.equal(read(app, 'ledger', `missing/${i}`), undefined);
    assert.equal(read(app, 'ledger', 'lastBegin'), '2');
    // an explicit height other than the latest is still refused, not answered from the cache
    const old = app.query({ path: '/store/ledger/key', data: utf8('lastBegin'), height: 1n, prove: false });
    assert.equal(old.code, errors.invalidHeight.code);
    await app.store.close();
  });

  test('the query cache is bounded in entries and bytes', () => {
    const c = new QueryCache({ maxEntries: 3, maxBytes: 100 });
    const res = (n: number): ResponseQuery => ({
      code: 0,
      log: '',
      info: '',
      index: 0n,
      key: new Uint8Array(0),
      value: new Uint8Array(n),
      height: 1n,
      codespace: '',
    });
    c.reset({});
    for (const k of ['a', 'b', 'c']) c.set(k, res(1));
    assert.equal(c.size, 3);
    c.set('d', res(1));
    assert.equal(c.size, 1, 'the fourth entry starts over');
    assert.equal(c.get('a'), undefined);
    assert.ok(c.get('d'));
    c.set('big', res(200));
    assert.equal(c.get('big'), undefined, 'an answer larger than the whole budget is not kept');
    c.set('e', res(98));
    assert.equal(c.get('d'), undefined, 'over the byte budget starts over');
    assert.ok(c.get('e'));
  });

  test('a message type can be registered once', () => {
    const mm = new ModuleManager([ledgerModule('ledger', { calls: [] })]);
    mm.registerServices();
    assert.throws(() => mm.registerServices(), /already registered/);
  });

  test('registered errors: a (codespace, code) pair is registered once', () => {
    assert.throws(() => registerError('ledger-test', 2, 'again'), /already registered in codespace "ledger-test"/);
    assert.throws(() => registerError('x', 0, 'zero'), /positive integer/);
  });
});

describe('genesis', () => {
  test('an unknown module or an invalid module genesis is refused with a clear error', async () => {
    const app = makeApp(tmp(), { calls: [] });
    assert.throws(() => initChain(app, { nope: {} }), /unknown module "nope"/);
    assert.throws(() => initChain(app, { ledger: { seed: 5 } }), /ledger genesis: "seed" must be a string/);
    assert.throws(
      () => app.initChain({ time: time(0), chainId: 'test-1', validators: [], appStateBytes: utf8('{not json'), initialHeight: 1n }),
      /app_state is not valid JSON/,
    );
    assert.throws(() => app.initChain({ time: time(0), chainId: 'other', validators: [], appStateBytes: utf8('{}'), initialHeight: 1n }), /differs/);
    initChain(app, { ledger: { seed: 'fine' } });
    await app.store.close();
  });
});

describe('module manager migrations', () => {
  function mm(trace: Trace, versions: Record<string, bigint>): ModuleManager {
    return new ModuleManager(Object.entries(versions).map(([n, v]) => ledgerModule(n, trace, v)));
  }
  const ctx = (path: string, names: string[]): { ctx: Context; close: () => Promise<void> } => {
    const ms = CommitMultiStore.open(path);
    ms.mount(names);
    ms.loadLatest();
    return {
      ctx: new Context({ store: ms, header: { chainId: 't', height: 5n, time: time(5), proposerAddress: new Uint8Array(0) }, mode: 'finalize' }),
      close: () => ms.close(),
    };
  };

  test('runs registered steps from → to in order, InitGenesis for new modules, and returns the target map', async () => {
    const trace: Trace = { calls: [] };
    const m = mm(trace, { auth: 2n, bank: 3n, fresh: 1n, gov: 1n });
    for (const [name, from] of [
      ['bank', 1n],
      ['bank', 2n],
      ['auth', 1n],
    ] as const) {
      m.registerMigration(name, from, () => trace.calls.push(`${name}:${from}->${from + 1n}`));
    }
    const { ctx: c, close } = ctx(tmp(), ['auth', 'bank', 'fresh', 'gov']);
    const out = m.runMigrations(c, { auth: 1n, bank: 1n, gov: 1n });
    // name order with auth last; fresh is new → InitGenesis with default genesis
    assert.deepEqual(trace.calls, ['bank:1->2', 'bank:2->3', 'fresh.initGenesis:default', 'auth:1->2']);
    assert.deepEqual(out, { auth: 2n, bank: 3n, fresh: 1n, gov: 1n });
    assert.deepEqual(m.getVersionMap(), out);
    await close();
  });

  test('a missing step, a step from version 0, a duplicate step and a backwards migration are errors', async () => {
    const m = mm({ calls: [] }, { bank: 3n });
    m.registerMigration('bank', 1n, () => {});
    assert.throws(() => m.registerMigration('bank', 0n, () => {}), /should start at 1/);
    assert.throws(() => m.registerMigration('bank', 1n, () => {}), /another migration for module "bank" and version 1 already exists/);
    assert.throws(() => m.registerMigration('nope', 1n, () => {}), /unknown module "nope"/);
    const { ctx: c, close } = ctx(tmp(), ['bank']);
    assert.throws(() => m.runMigrations(c, { bank: 1n }), /no migration registered for module "bank" from version 2 to 3/);
    assert.throws(() => m.runMigrations(c, { bank: 4n }), /cannot migrate backwards/);
    await close();
  });

  test('phase orders must name every module once', () => {
    const m = mm({ calls: [] }, { a: 1n, b: 1n });
    assert.throws(() => m.setOrder('beginBlock', ['a']), /must list every module exactly once/);
    assert.throws(() => m.setOrder('beginBlock', ['a', 'a']), /must list every module exactly once/);
  });
});
