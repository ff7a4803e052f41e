// Flushing to disk before a rename publishes something: a crash after the rename must find the new bytes, not an
// empty or half-written file under the final name.
import { closeSync, fstatSync, fsync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorMessage, errnoCode } from '@chaind/errors';

/** fsync errors that mean "this file system does not flush this kind of file", not "the data is lost". */
const UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EBADF']);

function failure(path: string, e: unknown): Error {
  return new Error(`cannot flush ${path} to disk: ${errorMessage(e)}`);
}

/**
 * A file up to this size is flushed synchronously: a synchronous open/fsync/close costs about a third of the CPU of
 * the same on the thread pool (bench/README.md, "Installing a release"), and a small file's flush is short. A larger
 * one (a state file copied by a backup) may take seconds: its flush is awaited on the thread pool.
 */
const SYNC_FLUSH_MAX = 1 << 20;
/** syncTree lets the event loop run at least this often, in ms. */
const SLICE_MS = 20;
const fsyncAsync = promisify(fsync);

async function flush(path: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw failure(path, e);
  }
  try {
    if (fstatSync(fd).size > SYNC_FLUSH_MAX) await fsyncAsync(fd);
    else fsyncSync(fd);
  } catch (e) {
    if (!UNSUPPORTED.has(errnoCode(e) ?? '')) throw failure(path, e);
  } finally {
    closeSync(fd);
  }
}

/**
 * Flushes every regular file under `dir`, then each folder (children before parents), so a release folder renamed
 * into place afterwards is complete on disk. Symlinks are not followed (their folder's flush records them); other
 * entries (fifos, sockets) are never opened, as opening a fifo would block.
 */
export async function syncTree(dir: string): Promise<void> {
  let since = performance.now();
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch (e) {
      throw failure(d, e);
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) await flush(p);
      if (performance.now() - since > SLICE_MS) {
        await new Promise<void>((res) => setImmediate(res));
        since = performance.now();
      }
    }
    await flush(d);
  };
  await walk(dir);
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
