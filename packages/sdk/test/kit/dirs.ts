// Temporary directories for test stores and homes, removed together at the end of a test file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];

/** A new empty directory under the OS temp folder, removed by `removeTmpDirs`. */
export function tmpDir(prefix = 'chaind-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Removes every directory `tmpDir` made in this process. */
export function removeTmpDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
