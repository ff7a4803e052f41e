import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CheckTxType, type ResponseCheckTx } from 'cosmjs-types/tendermint/abci/types';
import { toHex } from '../store/index.ts';
import { encodeTx } from '../tx/index.ts';
import { AUTH_CHAIN_ID as CHAIN_ID, DENOM, removeTmpDirs, sendMsg, testApp, testKey, type TestApp } from '@chaind/sdk/testing';
import { Mempool, MempoolRefusal, txHash, type MempoolOptions } from './index.ts';

after(removeTmpDirs);

const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2);
const dave = testKey(3);
const users = [alice, bob, carol, dave];
const GAS = 200_000n;

interface TxOptions {
  readonly amount?: string;
  readonly memo?: string;
  readonly timeoutHeight?: bigint;
  readonly gas?: bigint;
}

/** A real signed MsgSend from `from` (account number = its index in `users`) to the next user. */
function tx(from: typeof alice, sequence: bigint, o: TxOptions = {}): Uint8Array {
  const i = users.indexOf(from);
  const to = users[(i + 1) % users.length].address;
  return encodeTx(
    {
      msgs: [sendMsg(from.address, to, o.amount ?? '10')],
      memo: o.memo,
      timeoutHeight: o.timeoutHeight,
      fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: o.gas ?? GAS },
    },
    [{ privateKey: from.privateKey, accountNumber: BigInt(i), sequence }],
    CHAIN_ID,
  );
}

function setup(o: Omit<MempoolOptions, 'app'> = {}): { t: TestApp; pool: Mempool; height: () => bigint } {
  const t = testApp({ funded: users.map((u) => u.address) });
  return { t, pool: new Mempool({ app: t.app, ...o }), height: () => t.app.lastBlockHeight };
}

function ok(res: ResponseCheckTx): void {
  assert.equal(res.code, 0, res.log);
}

/** The mempool's own refusal `add` throws: code, codespace and CometBFT's text. */
function refusal(add: () => unknown): { code: number; codespace: string; log: string } {
  try {
    add();
  } catch (e) {
    if (e instanceof MempoolRefusal) return { code: e.error.code, codespace: e.error.codespace, log: e.message };
    throw e;
  }
  assert.fail('not refused');
}

const hashHex = (b: Uint8Array): string => toHex(txHash(b)).toUpperCase();

describe('admission', () => {
  test('pre-verification finishing in any order: CheckTx still runs in arrival order, so sequences 0..4 are all accepted', async () => {
    const txs = [0n, 1n, 2n, 3n, 4n].map((seq) => tx(alice, seq));
    const seen: number[] = [];
    // the first tx's pre-verification finishes last, the last tx's first
    const preverify = (b: Uint8Array): Promise<void> => {
      const i = txs.indexOf(b);
      return new Promise((resolve) => setTimeout(() => (seen.push(i), resolve()), 5 * (txs.length - i)));
    };
    const { pool } = setup({ preverify });
    const results = await Promise.all(txs.map((b) => pool.inArrivalOrder(b, () => pool.add(b))));
    for (const r of results) ok(r);
    assert.deepEqual(seen, [4, 3, 2, 1, 0]);
    assert.deepEqual(pool.reap(-1), txs);
  });

  test('at most preverifyAhead txs are pre-verified ahead of the next admission; each admission starts the next', async () => {
    const txs = [0n, 1n, 2n, 3n, 4n].map((seq) => tx(alice, seq));
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const preverify = (b: Uint8Array): Promise<void> => {
      started.push(txs.indexOf(b));
      return new Promise((resolve) => finish.push(resolve));
    };
    const { pool } = setup({ preverify, arrivals: { preverifyAhead: 2 } });
    const results = txs.map((b) => pool.inArrivalOrder(b, () => pool.add(b)));
    const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1]);
    finish[1](); // the second finishes first: nothing is admitted, nothing more starts
    await turn();
    assert.deepEqual([started, pool.size()], [[0, 1], 0]);
    finish[0]();
    await turn();
    // 0 and 1 admitted, in order; 2 and 3 started
    assert.deepEqual([started, pool.size()], [[0, 1, 2, 3], 2]);
    finish[2]();
    finish[3]();
    await turn();
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    finish[4]();
    for (const r of await Promise.all(results)) ok(r);
    assert.deepEqual(pool.reap(-1), txs);
    assert.throws(() => new Mempool({ app: setup().t.app, arrivals: { preverifyAhead: 0 } }), /preverifyAhead must be a positive integer, got 0/);
  });

  test('a tx with nothing to wait for (pre-verification gives undefined) is admitted in its turn, at once', async () => {
    const txs = [0n, 1n, 2n].map((seq) => tx(alice, seq));
    const finish: (() => void)[] = [];
    // the middle tx's signatures are known already: nothing to wait for
    const preverify = (b: Uint8Array): Promise<void> | undefined => (b === txs[1] ? undefined : new Promise((resolve) => finish.push(resolve)));
    const { pool } = setup({ preverify });
    const results = txs.map((b) => pool.inArrivalOrder(b, () => pool.add(b)));
    const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
    await turn();
    assert.equal(pool.size(), 0, 'not before the tx ahead of it');
    finish[0]();
    await turn();
    assert.equal(pool.size(), 2, 'right behind it, in the same turn');
    finish[1]();
    for (const r of await Promise.all(results)) ok(r);
    assert.deepEqual(pool.reap(-1), txs);
  });

  test('a failing pre-verification only delays CheckTx; a throwing admission does not stop the ones behind it', async () => {
    const { pool } = setup({ preverify: () => Promise.reject(new Error('worker gone')) });
    const a0 = tx(alice, 0n);
    const a1 = tx(alice, 1n);
    const first = pool.inArrivalOrder(a0, () => pool.add(a0));
    const refused = pool.inArrivalOrder(a1, () => {
      throw new Error('mempool is full');
    });
    const again = pool.inArrivalOrder(a1, () => pool.add(a1));
    ok(await first);
    await assert.rejects(refused, /mempool is full/);
    ok(await again);
    assert.equal(pool.size(), 2);
  });

  test('a valid tx is checked and kept', async () => {
    const { t, pool } = setup();
    const a0 = tx(alice, 0n);
    const res = pool.add(a0);
    ok(res);
    assert.equal(res.gasWanted, GAS);
    assert.ok(res.gasUsed > 0n, 'CheckTx ran the ante handler');
    assert.equal(pool.size(), 1);
    assert.equal(pool.bytes(), a0.length);
    assert.ok(pool.has(txHash(a0)));
    assert.ok(pool.has(hashHex(a0)) && pool.has(hashHex(a0).toLowerCase()));
    assert.ok(!pool.has(txHash(tx(alice, 1n))));
    assert.deepEqual(pool.reap(-1), [a0]);
    await t.close();
  });

  test("CheckTx state runs ahead of commits: the next sequence passes before the first is in a block, a reused one doesn't", async () => {
    const { t, pool } = setup();
    ok(pool.add(tx(alice, 0n)));
    ok(pool.add(tx(alice, 1n)));
    ok(pool.add(tx(alice, 2n)));
    const again = pool.add(tx(alice, 0n, { amount: '11' }));
    assert.equal(again.code, 32);
    assert.equal(again.log, 'account sequence mismatch, expected 3, got 0: incorrect account sequence');
    assert.equal(pool.size(), 3);
    assert.equal(t.account(alice.address)?.sequence, 0n, 'nothing is committed yet');
    await t.close();
  });

  test('a tx already in the pool is refused without running CheckTx again', async () => {
    const { t, pool } = setup();
    const a0 = tx(alice, 0n);
    ok(pool.add(a0));
    const res = refusal(() => pool.add(Uint8Array.from(a0)));
    assert.equal(res.code, 19);
    assert.equal(res.codespace, 'sdk');
    assert.equal(res.log, 'tx already exists in cache');
    assert.equal(pool.size(), 1);
    await t.close();
  });

  test("full by count: refused with CometBFT's text, and CheckTx state untouched", async () => {
    const { t, pool } = setup({ maxTxs: 2 });
    const txs = [tx(alice, 0n), tx(alice, 1n), tx(alice, 2n)];
    ok(pool.add(txs[0]));
    ok(pool.add(txs[1]));
    const res = refusal(() => pool.add(txs[2]));
    assert.equal(res.code, 20);
    assert.equal(res.codespace, 'sdk');
    assert.equal(res.log, `mempool is full: number of txs 2 (max: 2), total txs bytes ${txs[0].length + txs[1].length} (max: ${64 * 1024 * 1024})`);
    assert.equal(pool.size(), 2);
    ok(t.app.checkTx({ tx: txs[2], type: CheckTxType.NEW }));
    await t.close();
  });

  test('full by bytes', async () => {
    const a0 = tx(alice, 0n);
    const max = Math.floor(a0.length * 2.5);
    const { t, pool } = setup({ maxTxsBytes: max });
    ok(pool.add(a0));
    ok(pool.add(tx(bob, 0n)));
    const used = pool.bytes();
    const res = refusal(() => pool.add(tx(carol, 0n)));
    assert.equal(res.code, 20);
    assert.equal(res.log, `mempool is full: number of txs 2 (max: 5000), total txs bytes ${used} (max: ${max})`);
    assert.equal(pool.size(), 2);
    await t.close();
  });

  test('a tx over max tx bytes is too large', async () => {
    const a0 = tx(alice, 0n);
    const { t, pool } = setup({ maxTxBytes: a0.length - 1 });
    const res = refusal(() => pool.add(a0));
    assert.equal(res.code, 21);
    assert.equal(res.codespace, 'sdk');
    assert.equal(res.log, `tx too large. Max size is ${a0.length - 1}, but got ${a0.length}`);
    assert.equal(pool.size(), 0);
    ok(t.app.checkTx({ tx: tx(alice, 0n), type: CheckTxType.NEW }));
    await t.close();
  });

  test('garbage bytes are a parse error and are not kept', async () => {
    const { t, pool } = setup();
    const res = pool.add(Uint8Array.from([0xff, 0xff, 0xff]));
    assert.equal(res.code, 2);
    assert.equal(res.codespace, 'sdk');
    assert.match(res.log, /tx parse error$/);
    assert.equal(pool.size(), 0);
    assert.equal(pool.bytes(), 0);
    await t.close();
  });
});

describe('reaping', () => {
  test('per sender by sequence, senders taking turns in the order their first pending tx arrived', async () => {
    const { t, pool } = setup();
    const a = [0n, 1n, 2n].map((s) => tx(alice, s));
    const b = [0n, 1n].map((s) => tx(bob, s));
    // bob arrives first
    for (const x of [b[0], a[0], a[1], b[1], a[2]]) ok(pool.add(x));
    const all = pool.reap(-1);
    assert.deepEqual(all, [b[0], a[0], b[1], a[1], a[2]]);
    assert.equal(pool.size(), 5, 'reaping keeps the txs');

    const size = a[0].length;
    assert.deepEqual(pool.reap(3 * size + 2), all.slice(0, 3), 'max bytes');
    assert.deepEqual(pool.reap(-1, 2n * GAS), all.slice(0, 2), 'max gas');
    assert.deepEqual(pool.reap(0n), []);

    // the reaped order is a valid block: every tx succeeds
    const res = t.block(all);
    assert.deepEqual(
      res.txResults.map((r) => r.code),
      [0, 0, 0, 0, 0],
    );
    await t.close();
  });

  test('a sender whose next tx does not fit is done for this block; the others go on', async () => {
    const { t, pool } = setup();
    const a = [0n, 1n, 2n].map((s) => tx(alice, s));
    const big = tx(bob, 0n, { gas: 5n * GAS });
    for (const x of [a[0], big, a[1], a[2]]) ok(pool.add(x));
    assert.deepEqual(pool.reap(-1, 3n * GAS), a);
    assert.deepEqual(pool.reap(-1), [a[0], big, a[1], a[2]]);
    await t.close();
  });
});

describe('update after a block', () => {
  test('removes the included txs, drops those the block made invalid, keeps and rechecks the rest', async () => {
    const { t, pool, height } = setup();
    const a0 = tx(alice, 0n);
    const a1 = tx(alice, 1n);
    const b0 = tx(bob, 0n);
    const c0 = tx(carol, 0n);
    // valid for block 2 only: a recheck at height 3 refuses it
    const d0 = tx(dave, 0n, { timeoutHeight: 2n });
    for (const x of [a0, a1, b0, c0, d0]) ok(pool.add(x));
    assert.equal(pool.size(), 5);

    // another proposer's block: bob's tx from this pool, and an alice tx with sequence 0 this pool never saw
    const other = tx(alice, 0n, { amount: '77' });
    const block = [other, b0];
    assert.deepEqual(
      t.block(block).txResults.map((r) => r.code),
      [0, 0],
    );
    const u = pool.update(height(), block);
    assert.equal(u.committed, 1);
    assert.equal(u.dropped, 2);
    // each eviction named with its recheck's refusal, in arrival order
    assert.deepEqual(
      u.evicted.map((e) => [e.hash, e.code]),
      [
        [toHex(txHash(a0)).toUpperCase(), 32],
        [toHex(txHash(d0)).toUpperCase(), 30],
      ],
    );
    assert.equal(u.evicted[1].log, 'block height: 3, timeout height: 2: tx timeout height');
    assert.equal(pool.lastHeight, 2n);
    assert.ok(!pool.has(txHash(b0)), 'included');
    assert.ok(!pool.has(txHash(a0)), 'its sequence was used by the block');
    assert.ok(!pool.has(txHash(d0)), 'timed out');
    assert.ok(pool.has(txHash(a1)) && pool.has(txHash(c0)), 'still valid');
    // why they were dropped (a failing CheckTx leaves the check state as it was)
    assert.equal(t.app.checkTx({ tx: a0, type: CheckTxType.RECHECK }).code, 32);
    assert.equal(t.app.checkTx({ tx: d0, type: CheckTxType.RECHECK }).log, 'block height: 3, timeout height: 2: tx timeout height');
    assert.equal(pool.size(), 2);
    assert.equal(pool.bytes(), a1.length + c0.length);

    // the recheck rebuilt CheckTx state: alice's next is 2, and the kept txs make a valid block
    ok(pool.add(tx(alice, 2n)));
    const next = pool.reap(-1);
    assert.equal(next.length, 3);
    assert.deepEqual(
      t.block(next).txResults.map((r) => r.code),
      [0, 0, 0],
    );
    assert.deepEqual(pool.update(height(), next), { committed: 3, dropped: 0, evicted: [] });
    assert.equal(pool.size(), 0);
    assert.equal(t.account(alice.address)?.sequence, 3n);
    await t.close();
  });

  test('flush empties the pool (CheckTx state keeps the flushed sequences until the next commit)', async () => {
    const { t, pool, height } = setup();
    const a0 = tx(alice, 0n);
    ok(pool.add(a0));
    ok(pool.add(tx(bob, 0n)));
    pool.flush();
    assert.equal(pool.size(), 0);
    assert.equal(pool.bytes(), 0);
    assert.deepEqual(pool.reap(-1), []);
    assert.equal(pool.add(a0).code, 32);
    t.block([]);
    pool.update(height(), []);
    ok(pool.add(a0));
    await t.close();
  });
});

describe('bounds against floods', () => {
  /** The real app, with its CheckTx calls counted. */
  function counted(t: TestApp): { app: MempoolOptions['app']; calls: () => number } {
    let n = 0;
    const app: MempoolOptions['app'] = {
      checkTx: (req) => (n++, t.app.checkTx(req)),
      decodeTx: (b) => t.app.decodeTx(b),
      modules: t.app.modules,
    };
    return { app, calls: () => n };
  }

  test('a tx CheckTx refused is answered again from memory, without CheckTx, until the next block', async () => {
    const t = testApp({ funded: users.map((u) => u.address) });
    const { app, calls } = counted(t);
    const refusedTxs: Uint8Array[] = [];
    const pool = new Mempool({ app, refused: (b) => refusedTxs.push(b) });
    // signed for the wrong account number: the signature fails, whatever else the account does in this block
    const bad = encodeTx(
      { msgs: [sendMsg(alice.address, bob.address, '1')], fee: { amount: [{ denom: DENOM, amount: '200' }], gasLimit: GAS } },
      [{ privateKey: alice.privateKey, accountNumber: 9n, sequence: 0n }],
      CHAIN_ID,
    );
    const first = await pool.submit(bad);
    assert.equal(first.code, 4);
    assert.deepEqual([calls(), refusedTxs.length, pool.rememberedRefusals()], [1, 1, 1]);
    for (let i = 0; i < 100; i++) assert.deepEqual(await pool.submit(Uint8Array.from(bad)), first);
    assert.deepEqual(pool.add(Uint8Array.from(bad)), first);
    assert.equal(calls(), 1, 'the resends ran no CheckTx');
    // a new block: a new state, checked afresh
    pool.update(height(t), []);
    assert.equal(pool.rememberedRefusals(), 0);
    assert.equal((await pool.submit(bad)).code, 4);
    assert.equal(calls(), 2);
    await t.close();
  });

  test('a wrong sequence is not remembered: the tx ahead of it can make it pass in the same block', async () => {
    const t = testApp({ funded: users.map((u) => u.address) });
    const { app, calls } = counted(t);
    const pool = new Mempool({ app });
    const [a0, a1] = [tx(alice, 0n), tx(alice, 1n)];
    assert.equal((await pool.submit(a1)).code, 32);
    assert.equal(pool.rememberedRefusals(), 0);
    ok(await pool.submit(a0));
    ok(await pool.submit(a1));
    assert.equal(calls(), 3);
    await t.close();
  });

  test('the memory is bounded (cache_size), the oldest forgotten first; 0 turns it off', async () => {
    const t = testApp({ funded: users.map((u) => u.address) });
    const garbage = (i: number): Uint8Array => Uint8Array.from([0xff, i, 0xff]);
    const pool = new Mempool({ app: t.app, cacheSize: 3 });
    for (let i = 0; i < 5; i++) assert.equal((await pool.submit(garbage(i))).code, 2);
    assert.equal(pool.rememberedRefusals(), 3);
    const off = new Mempool({ app: t.app, cacheSize: 0 });
    assert.equal((await off.submit(garbage(0))).code, 2);
    assert.equal(off.rememberedRefusals(), 0);
    await t.close();
  });

  test('txs waiting for CheckTx are bounded in count and bytes: past the bound, "mempool is full" at once; then it drains', async () => {
    const finish: (() => void)[] = [];
    let hold = true;
    const preverify = (): Promise<void> | undefined => (hold ? new Promise((resolve) => finish.push(resolve)) : undefined);
    const txs = [0n, 1n, 2n, 3n].map((seq) => tx(alice, seq));
    const { t, pool } = setup({ preverify, arrivals: { maxPendingTxs: 2 } });
    const waiting = [pool.submit(txs[0]), pool.submit(txs[1])];
    const bytes = txs[0].length + txs[1].length;
    await assert.rejects(pool.submit(txs[2]), (e: unknown) => {
      assert.ok(e instanceof MempoolRefusal);
      assert.equal(e.error.code, 20);
      assert.equal(e.message, `mempool is full: 2 txs of ${bytes} bytes waiting for CheckTx (max: 2 txs, ${64 * 1024 * 1024} bytes)`);
      return true;
    });
    assert.deepEqual(pool.pending(), { txs: 2, bytes });
    for (const f of finish) f();
    for (const r of await Promise.all(waiting)) ok(r);
    assert.deepEqual(pool.pending(), { txs: 0, bytes: 0 });
    hold = false;
    ok(await pool.submit(txs[2]));
    await t.close();

    hold = true;
    const byBytes = setup({ preverify, arrivals: { maxPendingBytes: txs[0].length * 2 + 10 } });
    finish.length = 0;
    const held = [byBytes.pool.submit(txs[0]), byBytes.pool.submit(txs[1])];
    await assert.rejects(byBytes.pool.submit(txs[2]), /^MempoolRefusal: mempool is full: 2 txs of \d+ bytes waiting for CheckTx/);
    for (const f of finish) f();
    for (const r of await Promise.all(held)) ok(r);
    await byBytes.t.close();
  });

  test('pre-verification ahead is bounded in bytes as well as txs (one tx always goes)', async () => {
    const txs = [0n, 1n, 2n, 3n].map((seq) => tx(alice, seq));
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const preverify = (b: Uint8Array): Promise<void> => {
      started.push(txs.indexOf(b));
      return new Promise((resolve) => finish.push(resolve));
    };
    const { t, pool } = setup({ preverify, arrivals: { preverifyAheadBytes: txs[1].length * 2 } });
    const results = txs.map((b) => pool.submit(b));
    assert.deepEqual(started, [0, 1]);
    finish[0]();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1, 2]);
    for (let i = 1; i < 4; i++) {
      finish[i]?.();
      await new Promise((r) => setImmediate(r));
    }
    for (const r of await Promise.all(results)) ok(r);
    assert.deepEqual(started, [0, 1, 2, 3]);
    await t.close();

    const tiny = setup({ preverify, arrivals: { preverifyAheadBytes: 1 } });
    started.length = 0;
    finish.length = 0;
    const one = tiny.pool.submit(txs[0]);
    assert.deepEqual(started, [0], 'a tx larger than the bound still goes alone');
    finish[0]();
    ok(await one);
    await tiny.t.close();
  });
});

const height = (t: TestApp): bigint => t.app.lastBlockHeight;
