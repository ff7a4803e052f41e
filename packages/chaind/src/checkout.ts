// The repository checkout chaind runs from, found by walking up to the workspace's package.json: the same
// from the sources and from the development bundle (packages/chaind/dist); a release runs from none.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root package.json's name (the repository's package.json). */
const WORKSPACE_NAME = 'chaind-workspace';

/** The checkout's root folder above `from` (this module's file by default), or undefined outside one. */
export function checkoutRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === WORKSPACE_NAME) return dir;
    } catch {
      // no (readable) package.json here: keep walking up
    }
    if (dirname(dir) === dir) return undefined;
  }
}
