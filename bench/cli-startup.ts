// Issue 31 §6: how long a chaind or chainvisor command takes from a fresh `npm ci` checkout, as a user
// runs it (node_modules/.bin, which `npx` and npm scripts run), from the bundle `npm ci` built
// (scripts/dev-bundle.mjs) and from the TypeScript sources through tsx (CHAIND_DEV_BUNDLE=0), side by side;
// Node's own start (`node -e 0`) is the floor. `chaind query upgrade plan` asks a running `chaind dev`.
// (With no plan the query answers "no upgrade scheduled", exit 1, as the SDK's CLI does: the same round trip.)
// Goals: chaind version ≤ 0.3 s, chaind query upgrade plan ≤ 0.5 s, chainvisor version ≤ 0.3 s.
// Medians of BENCH_ROUNDS (9) runs, run alternately.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanup, header, median, ms, row, spawnUntil, stop, tempDir } from './lib.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules/.bin');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

/** Wall time of one run, in ms; throws when the command fails (but for the answer `answered` expects). */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, answered?: RegExp): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  const t = performance.now() - t0;
  if (r.status !== 0 && !(answered?.test(r.stderr) ?? false)) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return t;
}

header(
  'CLI start-up: chaind and chainvisor from the npm ci bundle vs the sources',
  'chaind version ≤ 0.3 s; chaind query upgrade plan ≤ 0.5 s; chainvisor version ≤ 0.3 s',
);
spawnSync(process.execPath, [join(ROOT, 'scripts/dev-bundle.mjs'), '--if-stale'], { stdio: 'inherit' });

const dir = tempDir('cli-startup');
const home = join(dir, 'home');
const addr = ['--rpc.laddr', 'tcp://127.0.0.1:0', '--api.address', 'tcp://127.0.0.1:0', '--grpc.address', '127.0.0.1:0'];
const node = await spawnUntil(join(BIN, 'chaind'), ['dev', '--home', home, ...addr], 'stdout', /json-rpc\s+(\S+)\n/);
const rpc = node.m[1];
const visorEnv = { DAEMON_NAME: 'chaind', DAEMON_HOME: home };

const cases: { label: string; cmd: string; args: string[]; env?: NodeJS.ProcessEnv; goal?: number; answered?: RegExp }[] = [
  { label: 'node -e 0 (the floor)', cmd: process.execPath, args: ['-e', '0'] },
  { label: 'chaind version', cmd: join(BIN, 'chaind'), args: ['version'], goal: 300 },
  {
    label: 'chaind query upgrade plan',
    cmd: join(BIN, 'chaind'),
    args: ['query', 'upgrade', 'plan', '--node', rpc],
    goal: 500,
    answered: /^Error: no upgrade scheduled\n$/,
  },
  { label: 'chainvisor version', cmd: join(BIN, 'chainvisor'), args: ['version', '--cosmovisor-only'], env: visorEnv, goal: 300 },
];

try {
  for (const c of cases) {
    const bundle: number[] = [];
    const sources: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      bundle.push(timed(c.cmd, c.args, c.env, c.answered));
      if (c.goal !== undefined) sources.push(timed(c.cmd, c.args, { ...c.env, CHAIND_DEV_BUNDLE: '0' }, c.answered));
    }
    const b = median(bundle);
    if (c.goal === undefined) {
      row(c.label, ms(b));
      continue;
    }
    const s = median(sources);
    row(c.label, `bundle ${ms(b)}`, `sources ${ms(s)}`, `${(s / b).toFixed(1)}x faster`, b <= c.goal ? `goal ${ms(c.goal)} met` : `goal ${ms(c.goal)} NOT met`);
  }
  // npx adds npm's own start to any command it runs: for reference, once
  row('npx chaind version (npm included)', ms(timed('npx', ['chaind', 'version'], {})));
} finally {
  await stop(node.child);
  cleanup();
}
