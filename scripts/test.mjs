// Runs the *.test.ts files with Node's test runner (through tsx), in two tiers named by their folder:
//   fast  tests beside the code (packages/*/src/**): unit and in-process tests (LMDB, servers on
//         loopback); a child process is refused there (scripts/test-guard.mjs)
//   e2e   tests in test/ folders (test/, packages/*/test/): nodes, chainvisor, releases, rehearsals,
//         the browser, CometBFT networks
// `node scripts/test.mjs [--tier fast|e2e] [filter…]`: both tiers by default (`npm test`), one with
// --tier (`npm run test:fast`, `npm run test:e2e`); a filter keeps the files whose path contains it.
// Files run CHAIND_TEST_CONCURRENCY at a time (default below), e2e first: its files are the long ones.
import { availableParallelism } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { tierOf } from './test-tier.mjs';

/** Process tests mostly wait (blocks, CometBFT's rounds): one more file than cores (two more made chainvisor's 1 s height requests time out). */
const DEFAULT_CONCURRENCY = Math.max(2, availableParallelism() + 1);

const { values, positionals } = parseArgs({ options: { tier: { type: 'string' } }, allowPositionals: true });
if (values.tier !== undefined && values.tier !== 'fast' && values.tier !== 'e2e') {
  console.error(`--tier must be fast or e2e, got ${JSON.stringify(values.tier)}`);
  process.exit(2);
}
/** The longest a test file may run (the longest take ~6 minutes on a busy 2-core machine). */
const DEFAULT_FILE_TIMEOUT_S = 1200;
const fileTimeoutS = Number(process.env.CHAIND_TEST_FILE_TIMEOUT ?? DEFAULT_FILE_TIMEOUT_S);
if (!Number.isSafeInteger(fileTimeoutS) || fileTimeoutS < 1) {
  console.error(`CHAIND_TEST_FILE_TIMEOUT must be a positive number of seconds, got ${JSON.stringify(process.env.CHAIND_TEST_FILE_TIMEOUT)}`);
  process.exit(2);
}
const concurrency = Number(process.env.CHAIND_TEST_CONCURRENCY ?? DEFAULT_CONCURRENCY);
if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
  console.error(`CHAIND_TEST_CONCURRENCY must be a positive integer, got ${JSON.stringify(process.env.CHAIND_TEST_CONCURRENCY)}`);
  process.exit(2);
}

const skip = new Set(['node_modules', 'gen', 'dist']);
const files = [];
function walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.sort()) {
    if (skip.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
}
['packages', 'test'].forEach(walk);

const inTier = (f) => values.tier === undefined || tierOf(f) === values.tier;
const matches = (f) => positionals.length === 0 || positionals.some((s) => f.includes(s));
// The longest files (1-5 minutes each, one test after another inside them) start first, so that the run
// does not end waiting on one of them alone. Only the order: a name missing here changes nothing else.
const LONGEST = [
  'packages/chaind/test/comet-network.test.ts',
  'packages/chaind/test/upgrade-faults.test.ts',
  'test/rehearsal-path.test.ts',
  'test/new-upgrade.test.ts',
  'test/dashboard.test.ts',
  'test/rehearsal.test.ts',
  'packages/chaind/src/node/rpc/hardening.test.ts',
  'test/info-url-pinned.test.ts',
  'packages/chaind/test/upgrade-next.test.ts',
  'test/skip-upgrade.test.ts',
  'packages/chaind/test/comet-validator.test.ts',
  'packages/chaind/test/cli/tx.test.ts',
  'packages/chainvisor/test/faults.test.ts',
  // CPU-bound (the keyring's scrypt): started last, it alone kept the run going
  'packages/sdk/src/keyring/keyring.test.ts',
  'packages/chaind/test/cli/keys.test.ts',
];
const rank = (f) => {
  const i = LONGEST.findIndex((l) => f.split(sep).join('/').endsWith(l));
  return i >= 0 ? i : LONGEST.length + (tierOf(f) === 'fast' ? 1 : 0);
};
const selected = files.filter((f) => inTier(f) && matches(f));
selected.sort((a, b) => rank(a) - rank(b));
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const env = { ...process.env };
if (selected.some((f) => tierOf(f) === 'e2e')) {
  // CometBFT first (npm run cometbft:install: a no-op once cached), so the README's two commands stay the
  // whole set-up; the tests find it through COMETBFT_BIN. Without Go they skip, or fail under CI=true.
  if (!env.COMETBFT_BIN) {
    const install = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cometbft-install.ts'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    if (install.status === 0) env.COMETBFT_BIN = install.stdout.trim();
    else
      console.error(
        `\n*** CometBFT is not installed (npm run cometbft:install exited ${install.status}): the tests that run it will ${env.CI === 'true' || env.CHAIND_REQUIRE_COMETBFT === '1' ? 'FAIL' : 'SKIP'}. Install Go (/usr/local/go/bin) or set COMETBFT_BIN. ***\n`,
      );
  }
  // the launchers run the bundles while they are current (scripts/launch.mjs): rebuilt here when sources changed
  const bundled = spawnSync(process.execPath, ['scripts/dev-bundle.mjs', '--if-stale'], { stdio: 'inherit' });
  if (bundled.status !== 0) process.exit(bundled.status ?? 1);
  // the release archives the testnet tests install (dist/releases, what `chaind testnet init` defaults to),
  // built once here rather than by whichever of those tests runs first, while others run beside it:
  // afresh for a whole run, when missing for a filtered one
  if (positionals.length === 0 || !existsSync(join('dist', 'releases', 'SHA256SUMS'))) {
    const built = spawnSync(process.execPath, ['scripts/release.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
}
const script = (name) => fileURLToPath(new URL(name, import.meta.url));
const args = ['--import', 'tsx', '--import', script('test-guard.mjs'), script('test-run.mjs'), String(concurrency), String(fileTimeoutS * 1000), ...selected];
const profileDir = mkdtempSync(join(tmpdir(), 'chaind-test-profile-'));
env.CHAIND_TEST_PROFILE = join(profileDir, 'files.jsonl');
const started = Date.now();
const r = spawnSync(process.execPath, args, { stdio: 'inherit', env });
printProfile(env.CHAIND_TEST_PROFILE, started);
rmSync(profileDir, { recursive: true, force: true });
console.log(
  `# ${values.tier === undefined ? 'fast and e2e tiers' : `${values.tier} tier`}: ${selected.length} files, ${concurrency} at a time, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(r.status ?? 1);

/** The files that cost the run most (scripts/test-guard.mjs writes one line per file): where to look first. */
function printProfile(path, started) {
  let rows;
  try {
    rows = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return;
  }
  const s = (ms) => (ms / 1000).toFixed(0).padStart(5);
  const cpu = rows.reduce((t, r) => t + r.cpuMs, 0);
  console.log(`# CPU of the test files and the processes they waited for: ${s(cpu)} s in all; the costliest:`);
  for (const r of [...rows].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 25)) console.log(`#   cpu ${s(r.cpuMs)} s  wall ${s(r.wallMs)} s  ${r.file}`);
  // the end of the run: a file that starts late and runs long leaves the other slots idle
  console.log('# the last files to end (seconds from the start of the run):');
  for (const r of [...rows]
    .sort((a, b) => b.endedAt - a.endedAt)
    .slice(0, 6)
    .reverse())
    console.log(`#   ${s(r.endedAt - r.wallMs - started)} s → ${s(r.endedAt - started)} s  ${r.file}`);
}
