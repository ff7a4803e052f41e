// Flushing to disk before a rename publishes something: a crash after the rename must find the new bytes, not an
// empty or half-written file under the final name.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, errnoCode } from '@chaind/errors';

/** fsync errors that mean "this file system does not flush this kind of file", not "the data is lost". */
const UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EBADF']);

function failure(path: string, e: unknown): Error {
  return new Error(`cannot flush ${path} to disk: ${errorMessage(e)}`);
}

async function syncPath(path: string): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw failure(path, e);
  }
  try {
    await fh.sync();
  } catch (e) {
    if (!UNSUPPORTED.has(errnoCode(e) ?? '')) throw failure(path, e);
  } finally {
    await fh.close();
  }
}

/**
 * Flushes every regular file under `dir`, then each folder (children before parents), so a release folder renamed
 * into place afterwards is complete on disk. Symlinks are not followed (their folder's flush records them); other
 * entries (fifos, sockets) are never opened, as opening a fifo would block.
 */
export async function syncTree(dir: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw failure(dir, e);
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await syncTree(p);
    else if (e.isFile()) await syncPath(p);
  }
  await syncPath(dir);
}

/** Flushes the folder `dir` itself (its entries: a rename, a new link), synchronously. */
export function syncDirSync(dir: string): void {
  syncFileSync(dir);
}

/** Flushes one file or folder, synchronously. */
export function syncFileSync(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw failure(path, e);
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    if (!UNSUPPORTED.has(errnoCode(e) ?? '')) throw failure(path, e);
  } finally {
    closeSync(fd);
  }
}
