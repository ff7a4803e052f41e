// The upgrade module's pre-blocker on ordinary blocks: empty blocks/s (FinalizeBlock + Commit, no txs) of
// an app with `upgradeModule` as its pre-blocker vs the same app without it, and the cost of one
// `keeper.preBlock(ctx)` call itself, with the plan cached (steady state) and read from the store.
import { BaseApp, Context, ModuleManager, type AppModule, type BlockHeader, type Tx } from '@chaind/sdk/app';
import { CommitMultiStore } from '@chaind/sdk/store';
import { UpgradeKeeper, upgradeModule } from '@chaind/sdk/x/upgrade';
import { cleanup, header, median, row, si, tempDir, timeMs } from './lib.ts';

const BLOCKS = 2000; // blocks per app per round
const ROUNDS = 15;
const CALLS_CACHED = 500_000; // preBlock calls per timing sample, cached plan
const CALLS_UNCACHED = 20_000; // preBlock calls per timing sample, plan read from the store
const SAMPLES = 7;
const CHAIN_ID = 'bench-1';
const FAR = 1_000_000_000n; // height of the scheduled plan: never reached

header(
  `upgrade pre-blocker: empty blocks/s (FinalizeBlock + Commit, no txs), ${si(BLOCKS)} blocks x ${ROUNDS} rounds per app, interleaved, medians`,
  'blocks/s of the app with the upgrade module as its pre-blocker >= 0.99x the same app without it',
);
console.log('   apps: one trivial module ("noop", one store, no state), plus or minus upgradeModule (with no plan, or a plan far');
console.log('   ahead), plus two controls; each app in its own LMDB dir');

/**
 * The trivial module every app has. Its begin-blocker runs one-off tasks queued by the bench (during
 * setup, to schedule or clear a plan inside a real block); on every other block it only checks an empty array.
 */
function noopModule(tasks: ((ctx: Context) => void)[]): AppModule {
  return {
    name: 'noop',
    storeKeys: ['noop'],
    consensusVersion: 1n,
    beginBlock(ctx: Context) {
      if (tasks.length > 0) for (const t of tasks.splice(0)) t(ctx);
    },
  };
}

interface BenchApp {
  readonly label: string;
  readonly app: BaseApp;
  readonly keeper: UpgradeKeeper | undefined;
  readonly tasks: ((ctx: Context) => void)[];
  time: bigint;
}

/** One empty block: FinalizeBlock then Commit; their times in ms. */
function finalizeAndCommit(a: BenchApp): { finalize: number; commit: number } {
  const height = a.app.lastBlockHeight + 1n;
  a.time++;
  const t0 = performance.now();
  a.app.finalizeBlock({
    txs: [],
    decidedLastCommit: { round: 0, votes: [] },
    misbehavior: [],
    hash: new Uint8Array(32),
    height,
    time: { seconds: a.time, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: new Uint8Array(20),
  });
  const t1 = performance.now();
  a.app.commit();
  return { finalize: t1 - t0, commit: performance.now() - t1 };
}

type Kind = 'bare' | 'second-store' | 'upgrade' | 'upgrade-plan' | 'upgrade-cleared';

function makeApp(label: string, kind: Kind): BenchApp {
  const tasks: ((ctx: Context) => void)[] = [];
  const mods: AppModule[] = [noopModule(tasks)];
  const withUpgrade = kind.startsWith('upgrade');
  if (kind === 'second-store') {
    // stands in for the upgrade store: one more mounted store, written at genesis (as the version map is)
    mods.push({
      name: 'noop2',
      storeKeys: ['noop2'],
      consensusVersion: 1n,
      initGenesis: (ctx: Context) => ctx.kvStore('noop2').set(Uint8Array.of(1), Uint8Array.of(1)),
    });
  }
  // the closures run only once `modules` and `app` exist (as in packages/chaind/src/app.ts)
  const up = withUpgrade
    ? upgradeModule({
        authority: 'gov',
        versionMap: () => modules.getVersionMap(),
        onProtocolVersion: (v) => {
          app.appVersion = v;
        },
      })
    : undefined;
  if (up !== undefined) mods.unshift(up); // the upgrade module must be the first pre-blocker
  const modules = new ModuleManager(mods);
  const app = new BaseApp<Tx>({
    name: 'bench',
    version: '0',
    store: CommitMultiStore.open(tempDir('preblock')),
    modules,
    txDecoder: () => {
      throw new Error('this bench sends no txs');
    },
    chainId: CHAIN_ID,
  });
  app.load();
  app.initChain({ time: { seconds: 1_700_000_000n, nanos: 0 }, chainId: CHAIN_ID, validators: [], appStateBytes: new Uint8Array(0), initialHeight: 1n });
  const a: BenchApp = { label, app, keeper: up?.keeper, tasks, time: 1_700_000_000n };
  finalizeAndCommit(a);
  if ((kind === 'upgrade-plan' || kind === 'upgrade-cleared') && up !== undefined) {
    // no handler is registered for "future": a binary that had one would refuse to run before its height
    tasks.push((ctx) => up.keeper.scheduleUpgrade(ctx, { name: 'future', height: FAR, info: '', time: undefined, upgradedClientState: undefined }));
    finalizeAndCommit(a);
    if (kind === 'upgrade-cleared') {
      tasks.push((ctx) => up.keeper.clearUpgradePlan(ctx));
      finalizeAndCommit(a);
    }
    if ((up.keeper.getUpgradePlan(ctxAt(a)) === undefined) !== (kind === 'upgrade-cleared')) throw new Error('unexpected plan state');
  }
  return a;
}

/** A finalize-mode context over the app's block write set, as FinalizeBlock builds for the next block. */
function ctxAt(a: BenchApp): Context {
  const h: BlockHeader = {
    chainId: CHAIN_ID,
    height: a.app.lastBlockHeight + 1n,
    time: { seconds: a.time + 1n, nanos: 0 },
    proposerAddress: new Uint8Array(20),
  };
  return new Context({ store: a.app.store, header: h, mode: 'finalize' });
}

const BARE = 'without upgrade module (baseline)';
const BARE2 = 'without, a 2nd trivial module in its place';
const NOPLAN = 'with upgrade module, no plan';
const PLAN = 'with upgrade module, plan at a far height';
const CLEARED = 'with, plan scheduled then cleared (no plan)';
const apps = [
  makeApp(BARE, 'bare'),
  makeApp(BARE2, 'second-store'),
  makeApp(NOPLAN, 'upgrade'),
  makeApp(PLAN, 'upgrade-plan'),
  makeApp(CLEARED, 'upgrade-cleared'),
];

// warm-up: let V8 optimise the block path of each app
for (const a of apps) for (let i = 0; i < 500; i++) finalizeAndCommit(a);

// Block time is dominated by the LMDB commit's fsync, which drifts by 10-20% from one second to the
// next. So within a round the apps take turns block by block (A, B, C, D, A, B, ...: the finest
// interleaving), each block timed on its own; a round gives each app the total of its BLOCKS blocks.
const roundMs = new Map<string, number[]>(apps.map((a) => [a.label, []]));
const finalizeUs = new Map<string, number[]>(apps.map((a) => [a.label, []]));
const commitUs = new Map<string, number[]>(apps.map((a) => [a.label, []]));
for (let r = 0; r < ROUNDS; r++) {
  const total = apps.map(() => 0);
  const fin = apps.map(() => [] as number[]);
  const com = apps.map(() => [] as number[]);
  for (let b = 0; b < BLOCKS; b++) {
    for (let k = 0; k < apps.length; k++) {
      const i = (k + b + r) % apps.length; // rotate who goes first
      const t = finalizeAndCommit(apps[i]);
      total[i] += t.finalize + t.commit;
      fin[i].push(t.finalize);
      com[i].push(t.commit);
    }
  }
  apps.forEach((a, i) => {
    roundMs.get(a.label)?.push(total[i]);
    finalizeUs.get(a.label)?.push(median(fin[i]) * 1000);
    commitUs.get(a.label)?.push(median(com[i]) * 1000);
  });
}

const of = (m: Map<string, number[]>, label: string): number[] => m.get(label) ?? [];
const rate = (label: string): number => (BLOCKS / median(of(roundMs, label))) * 1000;
const usPerBlock = (label: string): number => (median(of(roundMs, label)) * 1000) / BLOCKS;
/** Half the interquartile range of the round times, relative to their median. */
const spread = (label: string): string => {
  const t = [...of(roundMs, label)].sort((x, y) => x - y);
  const q = (f: number): number => t[Math.round(f * (t.length - 1))];
  return `IQR ±${(((q(0.75) - q(0.25)) / 2 / median(t)) * 100).toFixed(1)}%`;
};
/** Median over rounds of (baseline time / variant time) in the same round. */
const paired = (label: string, base = BARE): number => {
  const b = of(roundMs, base);
  return median(of(roundMs, label).map((t, i) => b[i] / t));
};
console.log(`-- blocks/s: median of ${ROUNDS} rounds of ${si(BLOCKS)} blocks per app, the apps taking turns block by block`);
row('', 'blocks/s', 'µs/block', 'round spread', 'finalize µs', 'commit µs');
for (const a of apps) {
  const l = a.label;
  row(l, si(rate(l)), usPerBlock(l).toFixed(1), spread(l), median(of(finalizeUs, l)).toFixed(1), median(of(commitUs, l)).toFixed(1));
}
console.log('   (finalize/commit µs = median block of each round, median over rounds; µs/block = mean, incl. fsync stalls)');
row('HEADLINE ratio with / without, no plan', `${(rate(NOPLAN) / rate(BARE)).toFixed(3)}x`, `paired ${paired(NOPLAN).toFixed(3)}x`);
row('HEADLINE ratio with / without, far plan', `${(rate(PLAN) / rate(BARE)).toFixed(3)}x`, `paired ${paired(PLAN).toFixed(3)}x`);
row('ratio with (no plan) / 2nd trivial module', `${(rate(NOPLAN) / rate(BARE2)).toFixed(3)}x`, `paired ${paired(NOPLAN, BARE2).toFixed(3)}x`);
row('ratio far plan / scheduled then cleared', `${(rate(PLAN) / rate(CLEARED)).toFixed(3)}x`, `paired ${paired(PLAN, CLEARED).toFixed(3)}x`);
row('ratio 2nd trivial module / without', `${(rate(BARE2) / rate(BARE)).toFixed(3)}x`, `paired ${paired(BARE2).toFixed(3)}x`);
console.log('   (paired = median over rounds of the ratio within a round. Controls: "2nd trivial module" has the same stores');
console.log('    as the upgrade app, isolating the pre-blocker from mounting and hashing one more store; "scheduled then');
console.log('    cleared" has the plan app\'s LMDB write history (its freelist) without a plan, isolating the cached plan)');

// ---- the pre-blocker's own cost, per call --------------------------------------------------------------
// (a) cached: the app's own keeper, whose plan is cached since its first block (the steady state).
// (b) uncached: a fresh UpgradeKeeper per call, over the same committed state. A new keeper has no
//     cached plan, so preBlock reads PLAN_KEY through ctx.kvStore (gas-metered write set -> LMDB) and
//     decodes it, which is what every block would pay without the cache. A fresh keeper also runs its
//     once-per-process downgrade check (an iterator over the empty "done" prefix), so it is an upper
//     bound; (b') isolates the plan read: keeper.getUpgradePlan(ctx) (the exact read planForBlock does
//     on a miss) followed by the cached preBlock. Scheduling or clearing the plan to drop the cache is
//     not used: it writes to the store, which no ordinary block does.
function perCallUs(calls: number, fn: () => void): number {
  for (let i = 0; i < Math.min(calls, 5000); i++) fn(); // warm-up
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    samples.push(
      timeMs(() => {
        for (let i = 0; i < calls; i++) fn();
      }),
    );
  }
  return (median(samples) * 1000) / calls;
}

console.log(`-- keeper.preBlock(ctx) per call (median of ${SAMPLES} samples; ctx over the app's committed state, next height)`);
let sink = 0;
const check = (r: { consensusParamsChanged: boolean }): void => {
  if (r.consensusParamsChanged) sink++;
};
const figures: [string, number, number][] = [];
for (const a of apps.filter((x) => x.keeper !== undefined)) {
  if (a.label === CLEARED) continue;
  const keeper = a.keeper as UpgradeKeeper;
  const ctx = ctxAt(a); // one context reused: building a block's context is BaseApp's cost, not the pre-blocker's
  const tag = a.label === PLAN ? 'far plan' : 'no plan';
  const cached = perCallUs(CALLS_CACHED, () => check(keeper.preBlock(ctx)));
  const fresh = perCallUs(CALLS_UNCACHED, () => check(new UpgradeKeeper({ authority: 'gov' }).preBlock(ctx)));
  const read = perCallUs(CALLS_UNCACHED, () => {
    if (keeper.getUpgradePlan(ctx) !== undefined) sink += 2;
    check(keeper.preBlock(ctx));
  });
  figures.push([tag, cached, read]);
  row(`(a)  cached, ${tag}`, `${cached.toFixed(3)} µs/block`);
  row(`(b)  fresh keeper per call, ${tag}`, `${fresh.toFixed(2)} µs/block`);
  row(`(b') plan read + cached preBlock, ${tag}`, `${read.toFixed(2)} µs/block`);
}
for (const [tag, cached, read] of figures) {
  const share = (us: number): string => `${((us / usPerBlock(BARE)) * 100).toFixed(3)}%`;
  row(`share of a bare block, ${tag}: (a), (b')`, share(cached), share(read));
}
if (sink < 0) console.log(`   (sink ${sink})`); // keeps the results observable

for (const a of apps) await a.app.store.close();
cleanup();
