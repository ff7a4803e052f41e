// Loaded into every test file's process by scripts/test.mjs. A fast-tier file (beside the code, under a
// src folder) gets a child_process whose functions throw: a test that starts processes belongs in a
// test/ folder (the e2e tier), so the fast tier stays fast and self-contained.
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tierOf } from './test-tier.mjs';

const file = process.argv[1] ?? '';
if (process.env.NODE_TEST_CONTEXT !== undefined && file.endsWith('.test.ts') && tierOf(file) === 'fast') {
  const cp = createRequire(import.meta.url)('node:child_process');
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    cp[name] = () => {
      throw new Error(
        `${file} is a fast-tier test (beside the code) and started a child process (child_process.${name}): move it to a test/ folder (the e2e tier)`,
      );
    };
  }
  syncBuiltinESMExports();
}

// Where a run's time goes (scripts/test.mjs prints the costliest files): this file's wall time and the CPU
// time of its process and of the children it waited for (/proc's cutime/cstime, in 1/100 s on Linux).
const profile = process.env.CHAIND_TEST_PROFILE;
if (profile !== undefined && process.env.NODE_TEST_CONTEXT !== undefined && file.endsWith('.test.ts')) {
  process.on('exit', () => {
    let cpuMs;
    try {
      const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      cpuMs = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
    } catch {
      const own = process.cpuUsage();
      cpuMs = (own.user + own.system) / 1000;
    }
    const line = { file: relative(process.cwd(), file), wallMs: Math.round(performance.now()), cpuMs: Math.round(cpuMs), endedAt: Date.now() };
    appendFileSync(profile, `${JSON.stringify(line)}\n`);
  });
}
