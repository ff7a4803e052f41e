// Builds the development bundles the bin/ launchers run while they are current (scripts/launch.mjs):
// packages/chaind/dist and packages/chainvisor/dist, each with manifest.json listing the files it was built
// from (size and mtime). `npm ci` runs it (the root package's `prepare`), so a fresh checkout starts in a
// fraction of the time tsx needs to compile the sources, with no build step of the user's.
//
//   node scripts/dev-bundle.mjs [--if-stale]     --if-stale: only the bundles whose sources changed
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { currentBundle } from './launch.mjs';

const TARGETS = [
  { pkg: 'chaind', entry: 'chaind.mjs', build: (b, out) => b.bundleChaind(out) },
  { pkg: 'chainvisor', entry: 'chainvisor.mjs', build: (b, out) => b.bundleChainvisor(out) },
];

let bundle;
try {
  bundle = await import('./bundle.mjs');
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  // an install without devDependencies (npm ci --omit=dev) has no esbuild: the launchers run the sources
  console.error('dev-bundle: esbuild is not installed: chaind and chainvisor run from the TypeScript sources');
  process.exit(0);
}

const ifStale = process.argv.includes('--if-stale');
for (const t of TARGETS) {
  const dist = join(bundle.ROOT, 'packages', t.pkg, 'dist');
  if (ifStale && currentBundle(dist, t.entry) !== undefined) continue;
  const started = Date.now();
  // built beside, then swapped in: a launcher never sees half a bundle
  const tmp = `${dist}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const meta = await t.build(bundle, tmp);
  // our sources, and node_modules' lockfile for the dependencies (npm rewrites it at each install)
  const files = Object.keys(meta.inputs)
    .filter((f) => !f.includes(':') && !f.split(/[\\/]/).includes('node_modules'))
    .map((f) => (isAbsolute(f) ? f : join(process.cwd(), f)));
  files.push(join(bundle.ROOT, 'node_modules/.package-lock.json'));
  const inputs = files.sort().map((f) => {
    const s = statSync(f);
    return [relative(dist, f), s.size, s.mtimeMs];
  });
  writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify({ inputs })}\n`);
  rmSync(dist, { recursive: true, force: true });
  renameSync(tmp, dist);
  console.error(`dev-bundle: ${relative(bundle.ROOT, dist)} (${inputs.length} inputs) ${Date.now() - started} ms`);
}
