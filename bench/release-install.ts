// Installing a chaind release archive as chainvisor does (`add-upgrade`, `init`, a download once verified): the
// CPU it takes, this checkout against a baseline checkout (BENCH_BASELINE, a git ref; default 13fba44, main
// before the extraction and the release contents were made cheaper), measured in the same run. Each side builds
// its own v2 archive (scripts/release.mjs); each code installs each archive, so the figures separate what the
// code changed from what the archive's contents changed. One operation per process
// (support/release-install-child.ts): `extract` = extractTar alone (both passes and the final tree check),
// `install` = installLocalRelease (the same, plus the binary placed, every file fsynced, the rename).
// BENCH_ROUNDS rounds (default 5), the order of the sides alternated, medians. BENCH_BASELINE=none: this
// checkout alone.
// Goal: install CPU, this code and archive ≤ 0.5x the baseline's.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { list } from 'tar';
import { header, median, ms, row, tempDir } from './lib.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BASELINE = process.env.BENCH_BASELINE ?? '13fba44';
const CHILD = fileURLToPath(new URL('support/release-install-child.ts', import.meta.url));
const OPS = ['extract', 'install'] as const;
type Op = (typeof OPS)[number];

interface Side {
  readonly label: string;
  readonly root: string;
  readonly archive: string;
}
interface Figures {
  readonly cpuMs: number;
  readonly userMs: number;
  readonly sysMs: number;
  readonly wallMs: number;
  readonly maxStallMs: number;
}

/** A checkout of `ref` beside this one, with node_modules hard-linked from this one (its own workspace links). */
function checkoutOf(ref: string, dir: string): string {
  const root = join(dir, 'checkout');
  execFileSync('git', ['worktree', 'add', '--detach', root, ref], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  // hard links, and the workspace's relative symlinks (node_modules/@chaind/* → ../../packages/*) resolve in the checkout
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(root, 'node_modules')]);
  return root;
}

/** The v2 archive `root`'s scripts/release.mjs builds. */
function build(label: string, root: string, dir: string): Side {
  const out = join(dir, `releases-${label.split(' ')[0]}`);
  execFileSync(process.execPath, [join(root, 'scripts/release.mjs'), '--release', 'v2', '--out', out], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const archive = readdirSync(out).find((f) => /^chaind-v2-.*\.tar\.gz$/.test(f));
  if (archive === undefined) throw new Error(`${label}: scripts/release.mjs wrote no v2 archive into ${out}`);
  return { label, root, archive: join(out, archive) };
}

let runNo = 0;
function run(code: Side, archive: Side, op: Op, dir: string): Figures {
  const work = join(dir, `run${++runNo}`);
  mkdirSync(work);
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, code.root, op, archive.archive, work], { cwd: code.root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${op} with ${code.label}'s code failed (${r.status}):\n${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Figures;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

header(
  `installing a chaind v2 release archive as chainvisor does: this checkout vs ${BASELINE === 'none' ? 'nothing (BENCH_BASELINE=none)' : `baseline ${BASELINE}`}, each code on each archive, ${ROUNDS} rounds, medians`,
  'install CPU (this code, this archive) ≤ 0.5x the baseline (its code, its archive)',
);
const dir = tempDir('release-install');
const sides = [build('this', ROOT, dir)];
let baseRoot: string | undefined;
const figures = new Map<string, Figures[]>();
const key = (code: Side, archive: Side, op: Op): string => `${op}: ${code.label} code, ${archive.label} archive`;
try {
  if (BASELINE !== 'none') {
    baseRoot = checkoutOf(BASELINE, dir);
    sides.push(build(`baseline ${BASELINE}`, baseRoot, dir));
  }
  for (const s of sides) {
    let files = 0;
    await list({ file: s.archive, onReadEntry: () => void files++ });
    row(`${s.label} archive`, `${files} entries`, `${(statSync(s.archive).size / 1e6).toFixed(2)} MB`);
  }
  for (let i = 1; i <= ROUNDS; i++) {
    const order = i % 2 === 1 ? sides : [...sides].reverse();
    for (const op of OPS)
      for (const code of order)
        for (const archive of order) {
          const k = key(code, archive, op);
          figures.set(k, [...(figures.get(k) ?? []), run(code, archive, op, dir)]);
        }
    process.stdout.write(`   round ${i} of ${ROUNDS} done\n`);
  }
} finally {
  if (baseRoot !== undefined) execFileSync('git', ['worktree', 'remove', '--force', baseRoot], { cwd: ROOT, stdio: 'ignore' });
}

const med = (k: string, f: keyof Figures): number => median((figures.get(k) ?? []).map((x) => x[f]));
row('', 'CPU', 'user / sys', 'wall', 'longest stall');
for (const op of OPS)
  for (const code of sides)
    for (const archive of sides) {
      const k = key(code, archive, op);
      row(k, ms(med(k, 'cpuMs')), `${med(k, 'userMs').toFixed(0)} / ${med(k, 'sysMs').toFixed(0)} ms`, ms(med(k, 'wallMs')), ms(med(k, 'maxStallMs')));
    }
if (sides.length === 2) {
  const [cur, base] = sides;
  const ratio = (op: Op, code: Side, archive: Side): number => med(key(code, archive, op), 'cpuMs') / med(key(base, base, op), 'cpuMs');
  for (const op of OPS) {
    row(`${op} CPU / baseline's: this code`, `${ratio(op, cur, base).toFixed(2)}x`, '(baseline archive)');
    row(`${op} CPU / baseline's: this archive`, `${ratio(op, base, cur).toFixed(2)}x`, '(baseline code)');
    const both = ratio(op, cur, cur);
    row(`${op} CPU / baseline's: both`, `${both.toFixed(2)}x`, op === 'install' ? (both <= 0.5 ? 'goal 0.5x met' : 'goal 0.5x NOT met') : '');
  }
}
