// Runs every bench/*.ts (except the helper module lib.ts) with `node --import tsx`, in name order.
// Optional arguments keep only the files whose name contains one of them: `npm run bench -- rename`.
// Benchmarks print figures; this exits non-zero only if one of them crashes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../bench/', import.meta.url));
const helpers = new Set(['lib.ts']);
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !helpers.has(f))
  .sort();
const filter = process.argv.slice(2);
const selected = filter.length ? all.filter((f) => filter.some((s) => f.includes(s))) : all;
if (selected.length === 0) {
  console.error(`no benchmark matched ${filter.join(', ')} (have: ${all.join(', ')})`);
  process.exit(1);
}
let failed = 0;
for (const f of selected) {
  console.log(`\n### ${f}`);
  const t = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, f)], { stdio: 'inherit' });
  const secs = ((Date.now() - t) / 1000).toFixed(1);
  if (r.status !== 0) {
    failed++;
    console.log(`### ${f} FAILED (exit ${r.status ?? r.signal}) after ${secs}s`);
  } else {
    console.log(`### ${f} finished in ${secs}s`);
  }
}
process.exit(failed ? 1 : 0);
