// How the development launchers (packages/chaind/bin, packages/chainvisor/bin) choose what to run: the
// bundle `npm ci` built (scripts/dev-bundle.mjs) while every file it was built from is unchanged, else the
// TypeScript sources through tsx, which always run what is checked out. Plain JavaScript: it runs before tsx.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

/**
 * The URL of `entry` in the bundle folder `dist`, or undefined when there is no bundle, a file it was built
 * from changed (size or mtime), or CHAIND_DEV_BUNDLE=0 asks for the sources.
 */
export function currentBundle(dist, entry) {
  if (process.env.CHAIND_DEV_BUNDLE === '0') return undefined;
  const dir = dist instanceof URL ? fileURLToPath(dist) : dist;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).inputs;
  } catch {
    return undefined;
  }
  if (!Array.isArray(inputs)) return undefined;
  for (const [file, size, mtimeMs] of inputs) {
    let s;
    try {
      s = statSync(join(dir, file));
    } catch {
      return undefined;
    }
    // to the millisecond: a copy that keeps mtimes (cp -p, fs.cpSync) keeps no finer ones
    if (s.size !== size || Math.round(s.mtimeMs) !== Math.round(mtimeMs)) return undefined;
  }
  return pathToFileURL(join(dir, entry)).href;
}
