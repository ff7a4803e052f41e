// Issue 21: `chaind upgrade simulate` of a 1M-key migration (every value rewritten) vs the real upgrade
// block on the same state. The bench's process is the node: it commits an empty block every
// BENCH_INTERVAL_MS while a child process (the new binary) opens the same LMDB environment, takes a
// snapshot and dry-runs the upgrade block with dryRunUpgrade (the library `chaind upgrade simulate`
// runs). Then the node runs to the plan height and applies the upgrade for real. Reported: the dry run's
// time vs the real block's (finalize + commit), the app hashes (they must agree), the child's peak memory,
// and the node's block intervals during the simulation vs before it (jitter).
// BENCH_KEYS sets the store size (default 1M), BENCH_INTERVAL_MS the block interval (default 200).
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { BaseApp, Context, ModuleManager, type AppModule } from '@chaind/sdk/app';
import { CommitMultiStore, toHex } from '@chaind/sdk/store';
import { upgradeModule, type UpgradeModule } from '@chaind/sdk/x/upgrade';
import { dryRunUpgrade } from '@chaind/chaind/simulate';
import { chaindNodeFlags, header, median, ms, row, runWithChaindNodeFlags, si, tempDir, timeMs, migrationKey, migrationValue } from './lib.ts';
import { blockRequest } from '@chaind/sdk/testing';

const N = Number(process.env.BENCH_KEYS ?? 1_000_000);
const INTERVAL = Number(process.env.BENCH_INTERVAL_MS ?? 200);
const SEED_BATCH = 250_000;
const CHAIN_ID = 'bench-1';
const STORE = 'data';
const UPGRADE = 'migrate';
const GENESIS = 1_700_000_000n;

const key = migrationKey;
const value = migrationValue;
const scratch = Buffer.alloc(32);

type Task = (ctx: Context) => void;
const tasks: Task[] = [];

/** The chain both processes run: the upgrade module and a data module; the upgrade rewrites every value. */
function chain(): { modules: ModuleManager; up: UpgradeModule } {
  const data: AppModule = {
    name: STORE,
    storeKeys: [STORE],
    consensusVersion: 1n,
    beginBlock(ctx: Context) {
      if (tasks.length > 0) for (const t of tasks.splice(0)) t(ctx);
    },
  };
  const up = upgradeModule({ authority: 'gov', versionMap: () => modules.getVersionMap() });
  const modules = new ModuleManager([up, data]);
  return { modules, up };
}

/** The new binary's handler (the old binary, the running node, has none: it would refuse to run early). */
function setHandler(up: UpgradeModule): void {
  up.keeper.setUpgradeHandler(UPGRADE, (ctx, _plan, fromVM) => {
    const st = ctx.kvStore(STORE);
    for (const e of st.iterator()) {
      scratch.set(e.value);
      st.set(e.key, scratch.swap64());
    }
    return fromVM;
  });
}

interface ChildReport {
  readonly passed: boolean;
  readonly error?: string;
  readonly dryRunMs: number;
  readonly appHash?: string;
  readonly fromHeight: string;
  readonly keysChanged: number;
  readonly peakRssBytes: number;
}

if (process.argv[2] === '--child') {
  // the new binary: open the running node's environment, snapshot, dry-run
  const [, , , dir, height, seconds] = process.argv;
  const { modules, up } = chain();
  setHandler(up);
  modules.registerServices();
  const ms0 = CommitMultiStore.open(dir);
  const snap = ms0.snapshot();
  const r = dryRunUpgrade({
    snapshot: snap,
    upgrade: { name: UPGRADE, storeUpgrades: {} },
    height: BigInt(height),
    time: { seconds: BigInt(seconds), nanos: 0 },
    info: '',
    chainId: CHAIN_ID,
    modules,
    upgradeKeeper: up.keeper,
  });
  snap.release();
  await ms0.close();
  const report: ChildReport = {
    passed: r.passed,
    error: r.error,
    dryRunMs: r.wallMs,
    appHash: r.appHash,
    fromHeight: r.fromHeight.toString(),
    keysChanged: r.stores.find((s) => s.name === STORE)?.keysChanged ?? 0,
    peakRssBytes: r.peakRssBytes,
  };
  process.stdout.write(JSON.stringify(report));
  process.exit(0);
}

runWithChaindNodeFlags();
header(
  `upgrade simulate: a handler rewriting every value of a ${si(N)}-key store, dry-run by a second process while the node commits a block every ${INTERVAL} ms`,
  'real upgrade block time / simulation time >= 0.9 (the simulation predicts the block at about its cost); block intervals kept during the simulation',
);

const dir = tempDir('simulate');
const { modules, up } = chain();
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
let time = GENESIS;
app.initChain({ time: { seconds: time, nanos: 0 }, chainId: CHAIN_ID, validators: [], appStateBytes: new Uint8Array(0), initialHeight: 1n });
function finalize(): void {
  time++;
  app.finalizeBlock(blockRequest(app.lastBlockHeight + 1n, time));
}
function block(): void {
  finalize();
  app.commit();
}
block();

const seedMs = timeMs(() => {
  for (let lo = 0; lo < N; lo += SEED_BATCH) {
    tasks.push((ctx) => {
      const st = ctx.store.getStore(STORE);
      for (let i = lo; i < Math.min(N, lo + SEED_BATCH); i++) st.set(key(i), value(i));
    });
    block();
  }
});
row('(setup: seed the store, blocks of 250k keys)', ms(seedMs));

// the plan, far enough ahead that the node keeps producing blocks through the simulation
const h = app.lastBlockHeight + 2_000n;
tasks.push((ctx) => up.keeper.scheduleUpgrade(ctx, { name: UPGRADE, height: h, info: '', time: undefined, upgradedClientState: undefined }));
block();

/** Block commit times (performance.now) of the node's loop. */
const commits: number[] = [];
let looping = true;
function loop(): void {
  if (!looping) return;
  block();
  commits.push(performance.now());
  setTimeout(loop, INTERVAL);
}

function intervals(from: number, to: number): number[] {
  const inWindow = commits.filter((t) => t >= from && t <= to);
  return inWindow.slice(1).map((t, i) => t - inWindow[i]);
}
const describe = (xs: number[]): string[] => (xs.length === 0 ? ['-', '-', '-'] : [ms(median(xs)), `max ${ms(Math.max(...xs))}`, `${xs.length} intervals`]);

loop();
const idleFrom = performance.now();
await new Promise((r) => setTimeout(r, Math.max(3000, 15 * INTERVAL)));
const idleTo = performance.now();

const simFrom = performance.now();
const child = spawn(
  process.execPath,
  [...chaindNodeFlags(), '--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir, String(h), String(time + (h - app.lastBlockHeight))],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let out = '';
child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
const code = await new Promise<number | null>((r) => child.once('exit', r));
const simTo = performance.now();
looping = false;
if (code !== 0) throw new Error(`the simulating process exited with ${code}: ${out}`);
const sim = JSON.parse(out) as ChildReport;
if (!sim.passed) throw new Error(`the simulation failed: ${sim.error ?? ''}`);
if (sim.keysChanged !== N) throw new Error(`the simulation changed ${sim.keysChanged} keys, not ${N}`);

// the node runs on to the plan height: its empty blocks leave the state (and app hash) as the simulation read it
while (app.lastBlockHeight < h - 1n) block();
// the old binary halts here; the new one, with the handler, runs the upgrade block
setHandler(up);
const f = timeMs(finalize);
const c = timeMs(() => app.commit());
const real = { finalize: f, commit: c };
const ctx = new Context({
  store: app.store,
  header: { chainId: CHAIN_ID, height: h, time: { seconds: time, nanos: 0 }, proposerAddress: new Uint8Array(20) },
  mode: 'finalize',
});
if (up.keeper.getDoneHeight(ctx, UPGRADE) !== h) throw new Error('the real upgrade did not run at the plan height');
const realHash = toHex(app.store.lastCommitInfo().appHash);
if (realHash !== sim.appHash) throw new Error(`the simulation predicted app hash ${sim.appHash ?? 'none'}, the upgrade block committed ${realHash}`);
const realMs = real.finalize + real.commit;
row('simulation: dry run (snapshot, handler, diff, hash)', ms(sim.dryRunMs), `${si((N / sim.dryRunMs) * 1000)} keys/s`);
row('simulation: whole process (start, load, dry run)', ms(simTo - simFrom));
row('simulation: peak memory (child RSS)', `${(sim.peakRssBytes / 1048576).toFixed(0)} MiB`);
row('real upgrade block: FinalizeBlock + Commit', ms(realMs), `${ms(real.finalize)} + ${ms(real.commit)}`);
row('ratio real / simulation (dry run)', `${(realMs / sim.dryRunMs).toFixed(2)}x`);
row('ratio real / simulation (whole process)', `${(realMs / (simTo - simFrom)).toFixed(2)}x`);
row('node block interval, idle: median', ...describe(intervals(idleFrom, idleTo)));
row('node block interval, during the simulation', ...describe(intervals(simFrom, simTo)));
console.log(`   the simulation's app hash = the upgrade block's: ${realHash.slice(0, 16)}…`);
