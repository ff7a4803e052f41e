// The development launchers run the bundle `npm ci` built only while it matches the sources
// (scripts/launch.mjs): an edit to a source is what the next command runs, never a stale bundle.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeTmpDirs, tmpDir } from '@chaind/sdk/testing';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
after(removeTmpDirs);

/** A copy of the repository's chaind package (sources, launcher, bundle with its mtimes) and the launcher's rule. */
function copyWithBundle(): { dir: string; run: (env?: NodeJS.ProcessEnv) => string } {
  execFileSync(process.execPath, [join(ROOT, 'scripts/dev-bundle.mjs'), '--if-stale'], { stdio: 'ignore' });
  const dir = tmpDir('chaind-launch-');
  for (const part of ['bin', 'src', 'dist', 'package.json'])
    cpSync(join(ROOT, 'packages/chaind', part), join(dir, 'packages/chaind', part), { recursive: true, preserveTimestamps: true });
  for (const part of ['package.json', 'scripts/launch.mjs']) cpSync(join(ROOT, part), join(dir, part), { preserveTimestamps: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // the other packages it bundles, unchanged
  for (const pkg of readdirSync(join(ROOT, 'packages'))) if (pkg !== 'chaind') symlinkSync(join(ROOT, 'packages', pkg), join(dir, 'packages', pkg));
  // the bundle's entry is no input of its own: marked, it tells which of the two ran
  const entry = join(dir, 'packages/chaind/dist/chaind.mjs');
  writeFileSync(entry, `console.log('from the bundle');\n${readFileSync(entry, 'utf8')}`);
  const run = (env: NodeJS.ProcessEnv = {}): string =>
    execFileSync(process.execPath, [join(dir, 'packages/chaind/bin/chaind.js'), 'version'], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { dir, run };
}

test('chaind runs its bundle while every source it was built from is unchanged, and the sources once one changes', { timeout: 120_000 }, () => {
  const { dir, run } = copyWithBundle();
  assert.match(run(), /^from the bundle\n/);
  // CHAIND_DEV_BUNDLE=0 asks for the sources
  assert.doesNotMatch(run({ CHAIND_DEV_BUNDLE: '0' }), /from the bundle/);
  // an edit (here only a later mtime, as a checkout or an editor leaves) makes the bundle stale
  const source = join(dir, 'packages/chaind/src/version.ts');
  const later = new Date(Date.now() + 5_000);
  utimesSync(source, later, later);
  const out = run();
  assert.doesNotMatch(out, /from the bundle/);
  assert.match(out, /\S/);
});

test('a bundle without its manifest (a build cut short) is never run', { timeout: 120_000 }, () => {
  const { dir, run } = copyWithBundle();
  cpSync(join(dir, 'packages/chaind/package.json'), join(dir, 'packages/chaind/dist/manifest.json'));
  assert.doesNotMatch(run(), /from the bundle/);
});
