// The test runner scripts/test.mjs starts (with tsx and scripts/test-guard.mjs imported, which each test
// file's process inherits): `node --test` would sort the files by name, run() keeps the order given, the
// longest first. Usage: test-run.mjs <concurrency> <file timeout ms> <file>…
import { run } from 'node:test';
import { tap } from 'node:test/reporters';

const [concurrency, fileTimeoutMs, ...files] = process.argv.slice(2);
// a file that hangs fails after fileTimeoutMs instead of holding the run (and CI) until its own limit
const stream = run({ files, concurrency: Number(concurrency), timeout: Number(fileTimeoutMs) });
stream.on('test:fail', () => (process.exitCode = 1));
stream.compose(tap).pipe(process.stdout);
