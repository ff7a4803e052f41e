// An upgrade handler migrating a 1M-key store (every value rewritten to a new encoding) in the upgrade
// block, applied by the real pre-blocker at the plan height and committed, vs a raw LMDB rewrite of the
// same keys in one write transaction.
import { Buffer } from 'node:buffer';
import { open } from 'lmdb';
import { BaseApp, Context, ModuleManager, type AppModule, type BlockHeader } from '@chaind/sdk/app';
import { CommitMultiStore, type KVStore } from '@chaind/sdk/store';
import { upgradeModule } from '@chaind/sdk/x/upgrade';
import { cleanup, header, median, ms, row, si, tempDir, timeMs, migrationKey, migrationValue } from './lib.ts';

const N = 1_000_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5); // migrations per variant (each a new upgrade on the same store), alternating
const SEED_BATCH = 250_000; // keys per seeding block
const CHAIN_ID = 'bench-1';
const STORE = 'data';

header(
  `upgrade migration: a handler rewriting every value of a ${si(N)}-key store (16-32-byte keys, 32-byte values) at the plan height, + Commit`,
  'migration keys/s (upgrade block: handler + FinalizeBlock + Commit) >= 0.5x a raw LMDB rewrite of the same keys in one transaction',
);
console.log('   new encoding: each value is 4 little-endian u64s, rewritten big-endian (Buffer#swap64), so the same');
console.log(`   store migrates again in the next round; ${ROUNDS} rounds per variant, alternating, medians`);

const key = migrationKey;
const value = migrationValue;

/**
 * The migration both sides run: read every entry in key order, write the value in the new encoding.
 * `scratch` is reused: the store and LMDB both copy the value they are given.
 */
const scratch = Buffer.alloc(32);
function newEncoding(v: Uint8Array): Buffer {
  scratch.set(v);
  return scratch.swap64();
}

// ---- the app: the upgrade module (first pre-blocker) and a "data" module owning the 1M-key store --------------
type Task = (ctx: Context) => void;
const tasks: Task[] = [];
/** Begin-blocker of the data module: runs one-off tasks queued by the bench (seeding, scheduling). */
const dataModule: AppModule = {
  name: STORE,
  storeKeys: [STORE],
  consensusVersion: 1n,
  beginBlock(ctx: Context) {
    if (tasks.length > 0) for (const t of tasks.splice(0)) t(ctx);
  },
};
const up = upgradeModule({ authority: 'gov', versionMap: () => modules.getVersionMap() });
const modules = new ModuleManager([up, dataModule]);
const dir = tempDir('migration');
const app = new BaseApp({
  name: 'bench',
  version: '0',
  store: CommitMultiStore.open(dir),
  modules,
  txDecoder: () => {
    throw new Error('this bench sends no txs');
  },
  chainId: CHAIN_ID,
});
app.load();
let time = 1_700_000_000n;
app.initChain({ time: { seconds: time, nanos: 0 }, chainId: CHAIN_ID, validators: [], appStateBytes: new Uint8Array(0), initialHeight: 1n });

function finalize(): void {
  time++;
  app.finalizeBlock({
    txs: [],
    decidedLastCommit: { round: 0, votes: [] },
    misbehavior: [],
    hash: new Uint8Array(32),
    height: app.lastBlockHeight + 1n,
    time: { seconds: time, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: new Uint8Array(20),
  });
}
function block(): void {
  finalize();
  app.commit();
}
block();

/** What one upgrade block did: times in ms, and the gas its handler's (unlimited) meter counted. */
interface Migration {
  handler: number;
  finalize: number;
  commit: number;
  keys: number;
  gas: bigint;
}
let last: Migration | undefined;

type Variant = 'metered' | 'unmetered';
/** The handler of an upgrade: migrates every key of the data store through `ctx.kvStore` or the bare write set. */
function handlerFor(variant: Variant) {
  return (ctx: Context, _plan: unknown, fromVM: Record<string, bigint>) => {
    const gas0 = ctx.gasMeter.consumed();
    let keys = 0;
    const t = timeMs(() => {
      // metered: what a handler normally uses (GasKVStore over the block's write set, unlimited meter that still counts);
      // unmetered: the same write set without the gas wrapper, to show what metering costs
      const st: KVStore = variant === 'metered' ? ctx.kvStore(STORE) : ctx.store.getStore(STORE);
      // the iterator reads committed state (the write set starts empty), so writing while iterating is safe
      for (const e of st.iterator()) {
        st.set(e.key, newEncoding(e.value));
        keys++;
      }
    });
    last = { handler: t, finalize: 0, commit: 0, keys, gas: ctx.gasMeter.consumed() - gas0 };
    return fromVM;
  };
}
for (let r = 0; r < ROUNDS; r++) {
  up.keeper.setUpgradeHandler(`metered-${r}`, handlerFor('metered'));
  up.keeper.setUpgradeHandler(`unmetered-${r}`, handlerFor('unmetered'));
}

/** Schedules `name` for the next height in one block (its begin-blocker), then runs and commits the upgrade block. */
function migrate(name: string): Migration {
  const h = app.lastBlockHeight + 2n;
  tasks.push((ctx) => up.keeper.scheduleUpgrade(ctx, { name, height: h, info: '', time: undefined, upgradedClientState: undefined }));
  block();
  last = undefined;
  const f = timeMs(finalize); // pre-blocker: applyUpgrade -> handler; then the block's app hash over the write set
  const c = timeMs(() => app.commit());
  const m = last as Migration | undefined;
  if (m === undefined || app.lastBlockHeight !== h) throw new Error(`upgrade ${name} did not run at height ${h}`);
  if (up.keeper.getDoneHeight(queryCtx(), name) !== h) throw new Error(`upgrade ${name} not marked done`);
  return { ...m, finalize: f, commit: c };
}

/** A context over the committed state (read-only use). */
function queryCtx(): Context {
  const hd: BlockHeader = { chainId: CHAIN_ID, height: app.lastBlockHeight, time: { seconds: time, nanos: 0 }, proposerAddress: new Uint8Array(20) };
  return new Context({ store: app.store, header: hd, mode: 'finalize' });
}

/** Checks sampled values: encoded `swaps` times (even: as seeded, odd: big-endian). */
function verify(get: (k: Buffer) => Uint8Array | undefined, swaps: number, what: string): void {
  for (let i = 0; i < N; i += 9973) {
    const want = value(i);
    if (swaps % 2 === 1) want.swap64();
    const got = get(key(i));
    if (got === undefined || !want.equals(got)) throw new Error(`${what}: wrong value for key ${i} after ${swaps} rewrites`);
  }
}

// ---- setup (not timed): seed the store through blocks, and a raw LMDB database with the same keys ---------------
const seedMs = timeMs(() => {
  for (let lo = 0; lo < N; lo += SEED_BATCH) {
    tasks.push((ctx) => {
      const st = ctx.store.getStore(STORE);
      for (let i = lo; i < Math.min(N, lo + SEED_BATCH); i++) st.set(key(i), value(i));
    });
    block();
  }
});
const snap = app.store.snapshot();
verify((k) => snap.getStore(STORE).get(k), 0, 'seeded store');
snap.release();
row('(setup: seed the store, blocks of 250k keys)', ms(seedMs));

const env = open({ path: tempDir('raw'), maxDbs: 4 });
const db = env.openDB<Buffer, Buffer>({ name: 'data', keyEncoding: 'binary', encoding: 'binary' });
const rawSeedMs = timeMs(() =>
  env.transactionSync(() => {
    for (let i = 0; i < N; i++) db.putSync(key(i), value(i));
  }),
);
row('(setup: seed the raw LMDB database)', ms(rawSeedMs));

function rawRewrite(): { t: number; keys: number } {
  let keys = 0;
  const t = timeMs(() =>
    env.transactionSync(() => {
      for (const { key: k, value: v } of db.getRange()) {
        db.putSync(k, newEncoding(v));
        keys++;
      }
    }),
  );
  return { t, keys };
}

// ---- timed rounds ----------------------------------------------------------------------------------------------------
const runs: Record<Variant, Migration[]> = { metered: [], unmetered: [] };
const raw: number[] = [];
let swaps = 0;
let rawSwaps = 0;
for (let r = 0; r < ROUNDS; r++) {
  const order: Variant[] = r % 2 === 0 ? ['metered', 'unmetered'] : ['unmetered', 'metered'];
  for (const v of order) {
    const m = migrate(`${v}-${r}`);
    if (m.keys !== N) throw new Error(`${v}: migrated ${m.keys} keys, expected ${N}`);
    runs[v].push(m);
    swaps++;
    const s = app.store.snapshot();
    verify((k) => s.getStore(STORE).get(k), swaps, `store after ${v}-${r}`);
    s.release();
  }
  const rr = rawRewrite();
  if (rr.keys !== N) throw new Error(`raw: rewrote ${rr.keys} keys, expected ${N}`);
  raw.push(rr.t);
  rawSwaps++;
  verify((k) => db.get(k), rawSwaps, 'raw LMDB');
}

// ---- figures ----------------------------------------------------------------------------------------------------------
const rate = (t: number): string => `${si((N / t) * 1000)} keys/s`;
const rawMs = median(raw);
console.log(`-- ${si(N)} keys, median of ${ROUNDS} rounds`);
row('raw LMDB: getRange + putSync, one transactionSync', ms(rawMs), rate(rawMs));
for (const v of ['metered', 'unmetered'] as const) {
  const ms_ = runs[v];
  const handler = median(ms_.map((m) => m.handler));
  const fin = median(ms_.map((m) => m.finalize));
  const commit = median(ms_.map((m) => m.commit));
  const total = median(ms_.map((m) => m.finalize + m.commit));
  const label = v === 'metered' ? 'ctx.kvStore (gas-metered)' : 'ctx.store.getStore (unmetered)';
  console.log(`-- handler through ${label}`);
  row('handler (iterate + set every key)', ms(handler), rate(handler));
  row('rest of FinalizeBlock (app hash over write set)', ms(fin - handler));
  row('Commit (LMDB write of the write set)', ms(commit));
  row('UPGRADE BLOCK TOTAL (FinalizeBlock + Commit)', ms(total), rate(total));
  row(`${v === 'metered' ? 'HEADLINE ' : ''}ratio upgrade block / raw LMDB`, `${(rawMs / total).toFixed(2)}x`);
  // each round's raw rewrite runs right after its migrations: the pair shares the machine's state of the moment
  const paired = ms_.map((m, r) => raw[r] / (m.finalize + m.commit));
  row("  per-round ratios (paired with that round's raw rewrite)", paired.map((x) => x.toFixed(2)).join(' '), `median ${median(paired).toFixed(2)}x`);
  row('ratio handler alone / raw LMDB', `${(rawMs / handler).toFixed(2)}x`);
  const gas = ms_[0].gas;
  row(
    'gas counted by the handler (unlimited meter)',
    gas === 0n ? '0 gas' : `${(Number(gas) / 1e9).toFixed(2)}G gas`,
    `${(Number(gas) / N).toFixed(0)} gas/key`,
  );
}
const hm = median(runs.metered.map((m) => m.handler));
const hu = median(runs.unmetered.map((m) => m.handler));
row('gas metering cost in the handler', ms(hm - hu), `${(((hm - hu) / hm) * 100).toFixed(0)}% of it`, `${(((hm - hu) * 1e3) / N).toFixed(2)} µs/key`);

// ---- insight: the read half alone (no writes), one pass each over the committed 1M keys ------------------------
const rctx = queryCtx();
const readPass = (it: Iterable<{ key: Uint8Array; value: Uint8Array }>): number => {
  let bytes = 0;
  const t = timeMs(() => {
    for (const e of it) bytes += e.key.byteLength + e.value.byteLength;
  });
  if (bytes === 0) throw new Error('read nothing');
  return t;
};
console.log('-- read-only pass over the 1M keys (one run each; for the breakdown of the handler)');
const readRaw = readPass(db.getRange());
row('raw LMDB getRange', ms(readRaw), rate(readRaw));
const readStore = readPass(rctx.store.getStore(STORE).iterator());
row('ctx.store.getStore(...).iterator()', ms(readStore), rate(readStore), `${(readRaw / readStore).toFixed(2)}x raw`);
const readGas = readPass(rctx.kvStore(STORE).iterator());
row('ctx.kvStore(...).iterator() (gas-metered)', ms(readGas), rate(readGas), `${(readRaw / readGas).toFixed(2)}x raw`);

await env.close();
await app.store.close();
cleanup();
