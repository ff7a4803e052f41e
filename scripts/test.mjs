// Runs every *.test.ts under packages/ and test/ with Node's test runner (through tsx).
// Node 20 does not expand globs for --test, so the files are listed here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['packages', 'test'];
const skip = new Set(['node_modules', 'gen', 'dist']);
const files = [];
function walk(dir) {
  let names;
  try { names = readdirSync(dir); } catch { return; }
  for (const name of names.sort()) {
    if (skip.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
}
roots.forEach(walk);
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((s) => f.includes(s))) : files;
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// CometBFT first (npm run cometbft:install: a no-op once cached), so the README's two commands stay the
// whole set-up; the tests find it through COMETBFT_BIN. Without Go they skip, or fail under CI=true.
const env = { ...process.env };
if (!env.COMETBFT_BIN) {
  const install = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cometbft-install.ts'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (install.status === 0) env.COMETBFT_BIN = install.stdout.trim();
  else console.error(`\n*** CometBFT is not installed (npm run cometbft:install exited ${install.status}): the tests that run it will ${env.CI === 'true' || env.CHAIND_REQUIRE_COMETBFT === '1' ? 'FAIL' : 'SKIP'}. Install Go (/usr/local/go/bin) or set COMETBFT_BIN. ***\n`);
}
// the launchers run the bundles while they are current (scripts/launch.mjs): rebuilt here when sources changed
const bundled = spawnSync(process.execPath, ['scripts/dev-bundle.mjs', '--if-stale'], { stdio: 'inherit' });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...selected], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
