// Issues 6 and 31 §12: halt-to-first-new-block downtime of a v1 → v2 upgrade under chainvisor with a
// prepared release (DAEMON_PREPARE_UPGRADE=true), measured by chainvisor itself, with its breakdown. Runs
// the rehearsal (scripts/rehearse.ts: dev chain, 1 s blocks) BENCH_ROUNDS times over releases built once,
// side by side with a baseline: the checkout of BENCH_BASELINE (a git ref; default 3347509, main when
// issue 31's goal was set), its own releases, chainvisor and rehearsal, alternately. BENCH_BASELINE=none
// runs this checkout alone.
// Goals: ≤ 1 s plus one block interval (2 s here); ≤ 0.55× the baseline.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { header, median, ms, row, tempDir } from './lib.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASELINE = process.env.BENCH_BASELINE ?? '3347509';
const PARTS = ['stop', 'backup', 'binary', 'pre-upgrade', 'switch', 'start→first block'] as const;

interface Tree {
  readonly label: string;
  readonly root: string;
  readonly releases: string;
  readonly runs: Record<string, number>[];
}

/** A checkout of `ref` beside this one, with node_modules hard-linked from this one (its own workspace links). */
function checkoutOf(ref: string, dir: string): string {
  const root = join(dir, 'checkout');
  execFileSync('git', ['worktree', 'add', '--detach', root, ref], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  // hard links, and the workspace's relative symlinks (node_modules/@chaind/* → ../../packages/*) resolve in the checkout
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(root, 'node_modules')]);
  return root;
}

function build(label: string, root: string, dir: string): Tree {
  const releases = join(dir, `releases-${label}`);
  execFileSync(process.execPath, [join(root, 'scripts/release.mjs'), '--out', releases], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  return { label, root, releases, runs: [] };
}

function rehearse(t: Tree, round: number): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(t.root, 'scripts/rehearse.ts'), '--releases', t.releases], {
    cwd: t.root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const line = /done: downtime ([0-9.]+)(m?s) \(([^)]*)\)/.exec(r.stdout);
  if (r.status !== 0 || line === null) throw new Error(`${t.label}: rehearsal failed (${r.status}):\n${(r.stdout + r.stderr).slice(-3000)}`);
  const toMs = (v: string, unit: string): number => Number(v) * (unit === 's' ? 1000 : 1);
  const run: Record<string, number> = { downtime: toMs(line[1], line[2]) };
  for (const m of line[3].matchAll(/([a-z→ -]+?) ([0-9.]+)(m?s)(?:,|$)/g)) run[m[1].trim()] = toMs(m[2], m[3]);
  t.runs.push(run);
  console.log(`   ${t.label} round ${round}: ${line[0]}`);
}

header(
  'upgrade downtime under chainvisor (prepared release)',
  `old binary halted → new binary's first block ≤ 1 s + one block interval (1 s); ≤ 0.55x the baseline (${BASELINE})`,
);
const dir = tempDir('downtime');
const trees = [build('this', ROOT, dir)];
let baseRoot: string | undefined;
try {
  if (BASELINE !== 'none') {
    baseRoot = checkoutOf(BASELINE, dir);
    trees.push(build(`baseline ${BASELINE}`, baseRoot, dir));
  }
  for (let i = 1; i <= ROUNDS; i++) for (const t of i % 2 === 1 ? trees : [...trees].reverse()) rehearse(t, i);
} finally {
  if (baseRoot !== undefined) execFileSync('git', ['worktree', 'remove', '--force', baseRoot], { cwd: ROOT, stdio: 'ignore' });
}
const [current, base] = trees;
for (const t of trees) {
  row(`${t.label}: downtime (median)`, ms(median(t.runs.map((r) => r.downtime))), `max ${ms(Math.max(...t.runs.map((r) => r.downtime)))}`);
  for (const p of PARTS) row(`  ${p}`, ms(median(t.runs.map((r) => r[p] ?? NaN))));
}
if (base !== undefined) {
  const ratio = median(current.runs.map((r) => r.downtime)) / median(base.runs.map((r) => r.downtime));
  row('this / baseline', `${ratio.toFixed(2)}x`, ratio <= 0.55 ? 'goal 0.55x met' : 'goal 0.55x NOT met');
}
