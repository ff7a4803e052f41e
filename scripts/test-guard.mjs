// Loaded into every test file's process by scripts/test.mjs. A fast-tier file (beside the code, under a
// src folder) gets a child_process whose functions throw: a test that starts processes belongs in a
// test/ folder (the e2e tier), so the fast tier stays fast and self-contained.
import { createRequire, syncBuiltinESMExports } from 'node:module';
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
