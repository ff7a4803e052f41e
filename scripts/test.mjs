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
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...selected], { stdio: 'inherit' });
process.exit(r.status ?? 1);
