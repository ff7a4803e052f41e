// Issue 6: halt-to-first-new-block downtime of a v1 → v2 upgrade under chainvisor with a prepared
// release (DAEMON_PREPARE_UPGRADE=true), measured by chainvisor itself, with its breakdown. Runs the
// rehearsal (scripts/rehearse.ts) ROUNDS times over releases built once; dev chain, 1 s blocks.
// Goal: ≤ 1 s plus one block interval (2 s here).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { header, median, ms, row, tempDir } from './lib.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

header('upgrade downtime under chainvisor (prepared release)', 'old binary halted → new binary\'s first block ≤ 1 s + one block interval (1 s)');
const releases = tempDir('downtime');
execFileSync(process.execPath, [join(ROOT, 'scripts/release.mjs'), '--out', releases], { stdio: ['ignore', 'ignore', 'inherit'] });

const parts = ['stop', 'backup', 'binary', 'pre-upgrade', 'switch', 'start→first block'] as const;
const runs: Record<string, number>[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/rehearse.ts'), '--releases', releases], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = /done: downtime ([0-9.]+)(m?s) \(([^)]*)\)/.exec(r.stdout);
  if (r.status !== 0 || line === null) throw new Error(`rehearsal failed (${r.status}):\n${(r.stdout + r.stderr).slice(-3000)}`);
  const toMs = (v: string, unit: string): number => Number(v) * (unit === 's' ? 1000 : 1);
  const run: Record<string, number> = { downtime: toMs(line[1], line[2]) };
  for (const m of line[3].matchAll(/([a-z→ -]+?) ([0-9.]+)(m?s)(?:,|$)/g)) run[m[1].trim()] = toMs(m[2], m[3]);
  runs.push(run);
  console.log(`   round ${i + 1}: ${line[0]}`);
}
row('downtime (median)', ms(median(runs.map((r) => r.downtime))), `max ${ms(Math.max(...runs.map((r) => r.downtime)))}`);
for (const p of parts) row(`  ${p}`, ms(median(runs.map((r) => r[p] ?? NaN))));
