import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { leftoversIn } from '@chaind/upgrade-plan';
import { syncDirSync, syncTree } from './fsync.ts';

export interface BackupResult {
  readonly dir: string;
  readonly files: number;
  readonly bytes: number;
  readonly ms: number;
  /** true when a complete backup of that name already existed and was kept */
  readonly existed: boolean;
}

/**
 * Copies data/ to `<backupDir>/data-backup-<name>-<height>`, using reflinks (COPYFILE_FICLONE: a copy-on-write clone
 * on btrfs/xfs/APFS, instant on large state; a plain copy elsewhere).
 *
 * Never hard links: LMDB's data.mdb is modified in place by the new binary, so a hard-linked "backup" would change
 * with it and be worthless. The copy goes to a `.tmp-<pid>` folder renamed into place, so a backup under the final
 * name is always complete; a copy that fails is removed before the error goes up, and one left by a killed run
 * (SIGKILL mid-copy, its pid gone) is removed by the next backup: a partial copy of the state is no backup.
 * Every file and folder of the copy is flushed to disk before the rename, and the parent folder after it: a power
 * cut must not leave a backup under the final name whose files are empty or short.
 */
export async function backupData(dataDir: string, backupDir: string, name: string, height: bigint): Promise<BackupResult> {
  const t0 = performance.now();
  const dest = join(backupDir, `data-backup-${name}-${height.toString()}`);
  await removeLeftovers(dest);
  if (await exists(dest)) return { dir: dest, files: 0, bytes: 0, ms: performance.now() - t0, existed: true };
  const created = await mkdir(backupDir, { recursive: true });
  const tmp = `${dest}.tmp-${process.pid}`;
  const counts = { files: 0, bytes: 0 };
  try {
    await copyTree(dataDir, tmp, counts);
    await syncTree(tmp);
  } catch (err) {
    // a partial copy of the state is no backup: it would only take disk space (or be mistaken for one)
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
  await rename(tmp, dest);
  syncDirSync(backupDir);
  // folders made just now for the backup are entries of their parents, up to the first that existed
  if (created !== undefined)
    for (let d = dirname(backupDir); ; d = dirname(d)) {
      syncDirSync(d);
      if (d === dirname(created) || d === dirname(d)) break;
    }
  return { dir: dest, ...counts, ms: performance.now() - t0, existed: false };
}

/** Removes `<dest>.tmp-<pid>` folders whose run is gone (or is us, after a restart that got the same pid). */
async function removeLeftovers(dest: string): Promise<void> {
  const dir = dirname(dest);
  for (const n of leftoversIn(dir, `${basename(dest)}.tmp-`)) await rm(join(dir, n), { recursive: true, force: true });
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

async function copyTree(src: string, dst: string, counts: { files: number; bytes: number }): Promise<void> {
  const st = await stat(src);
  await mkdir(dst, { mode: st.mode & 0o7777 });
  const entries = await readdir(src, { withFileTypes: true });
  await Promise.all(
    entries.map(async (e) => {
      const s = join(src, e.name);
      const d = join(dst, e.name);
      if (e.isDirectory()) await copyTree(s, d, counts);
      else if (e.isSymbolicLink()) await symlink(await readlink(s), d);
      else if (e.isFile()) {
        await copyFile(s, d, constants.COPYFILE_FICLONE);
        // read the size before touching counts: `counts.bytes += await …` would read the sum before the await and
        // lose the other copies' additions made meanwhile
        const { size } = await lstat(s);
        counts.files += 1;
        counts.bytes += size;
      }
      // sockets, fifos, devices: not state, skipped
    }),
  );
}
