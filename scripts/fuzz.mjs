// `npm run fuzz -- [--minutes N] [--seed S] [filter…]`: the properties of test/fuzz/ again and again,
// each round with a new random seed and FUZZ_SCALE times CI's case counts, until N minutes (default 10)
// have passed. Stops at the first failure and prints the seed and the command that reproduces it.
// `--seed S` runs one round with that seed. `npm test` runs the same files once on CI's fixed seed.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../test/fuzz/', import.meta.url));
const args = process.argv.slice(2);
let minutes = 10;
let fixedSeed;
const scale = Number(process.env.FUZZ_SCALE ?? 20);
const filter = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--minutes' || a === '--seed') {
    const v = Number(args[++i]);
    if (!Number.isFinite(v) || v <= 0 || (a === '--seed' && !Number.isSafeInteger(v))) {
      console.error(`${a} needs a positive number, got ${JSON.stringify(args[i])}`);
      process.exit(2);
    }
    if (a === '--minutes') minutes = v;
    else fixedSeed = v;
  } else filter.push(a);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no fuzz file matched ${filter.join(', ')}`);
  process.exit(2);
}
const deadline = Date.now() + minutes * 60_000;
let rounds = 0;
do {
  const seed = fixedSeed ?? randomInt(1, 2 ** 31 - 1);
  rounds++;
  for (const f of files) {
    const t = Date.now();
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=dot', join(dir, f)], {
      stdio: 'inherit',
      env: { ...env, FUZZ_SEED: String(seed), FUZZ_SCALE: String(scale) },
    });
    console.log(`round ${rounds} seed ${seed} ${f}: ${r.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    if (r.status !== 0) {
      console.error(`\nfuzz failure: reproduce with  FUZZ_SEED=${seed} FUZZ_SCALE=${scale} npm test -- test/fuzz/${f}`);
      process.exit(1);
    }
  }
} while (fixedSeed === undefined && Date.now() < deadline);
console.log(`fuzz: ${rounds} round(s) × ${files.length} file(s), scale ${scale}, no failure`);
