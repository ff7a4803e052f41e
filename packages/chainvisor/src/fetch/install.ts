// installRelease: download to a temp folder beside destDir, verify, extract, check the binary, rename
// into place. destDir only ever appears complete.
import { chmod, lstat, mkdir, mkdtemp, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  downloadRelease,
  FetchError,
  leftoversIn,
  locateDaemon,
  prepareDownload,
  unpackRelease,
  type DownloadPolicy,
  type Progress,
  type ReleaseSource,
} from '@chaind/upgrade-plan';
import { syncTree } from '../fsync.ts';
import { makeProgress } from './progress.ts';
import { errnoCode, errorMessage } from '@chaind/errors';

/** chainvisor's download settings: the rules' knobs, and how progress is shown. */
export interface FetchPolicy extends DownloadPolicy {
  /** 'bar' on a TTY (to stderr), 'lines' = a log line every ~10 % or 2 s */
  readonly progress: 'bar' | 'lines' | 'none';
  readonly log: (msg: string) => void;
}

export interface InstallOptions extends FetchPolicy {
  /** <home>/cosmovisor/upgrades/<name>; the binary ends at destDir/bin/<daemonName> */
  readonly destDir: string;
  readonly daemonName: string;
  /** replace an existing destDir (else 'exists') */
  readonly replace?: boolean;
  /** told the bytes received (and the total, null when unknown) as they arrive: the metrics */
  readonly observe?: (bytes: number, total: number | null) => void;
  /** small files written into the release folder before it is renamed into place (the plan record) */
  readonly files?: Readonly<Record<string, string>>;
}

export interface InstallResult {
  readonly binaryPath: string;
  readonly bytes: number;
  /** sha256 of the downloaded file (whatever the checksum's algorithm) */
  readonly sha256: string;
  /** request to last byte on disk, hashing included (the hash is computed while streaming) */
  readonly downloadMs: number;
  /** hashing time (inside downloadMs) plus the final comparison */
  readonly verifyMs: number;
  /** extraction, safety checks and the binary check */
  readonly extractMs: number;
}

/** Temp folders this process is using right now; others with our pid are leftovers of an earlier run. */
const active = new Set<string>();

/**
 * Removes `.<name>.partial-<pid>-*` folders left by a killed attempt (the owner is gone, or is us
 * after a restart with the same pid). A live other process's folder is left alone; the unique names mean
 * it never blocks us either way.
 */
export async function removeLeftovers(parent: string, name: string): Promise<void> {
  for (const n of leftoversIn(parent, `.${name}.partial-`)) {
    const p = join(parent, n);
    if (!active.has(p)) await rm(p, { recursive: true, force: true });
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return false;
    throw err;
  }
}

/** Puts the daemon binary at out/bin/<daemon> (moving a root-level one there), made executable and flushed. */
export async function placeBinary(out: string, daemon: string, name: string): Promise<string> {
  const inBin = join(out, 'bin', daemon);
  const found = await locateDaemon(out, daemon, name);
  if (found !== inBin) {
    await mkdir(join(out, 'bin'), { recursive: true });
    await rename(found, inBin);
  }
  const st = await stat(inBin);
  await chmod(inBin, (st.mode & 0o777) | 0o755);
  // flush the binary before the rename publishes it: a crash must not leave an empty binary in place
  const fh = await open(inBin, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  return inBin;
}

async function syncDir(d: string): Promise<void> {
  try {
    const fh = await open(d, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // not supported everywhere (e.g. some network file systems); the rename itself is what matters
  }
}

/** A temp folder beside destDir for one install, named so a killed attempt's leftover is recognised and removed. */
export async function tempBeside(destDir: string): Promise<string> {
  const parent = dirname(destDir);
  const name = basename(destDir);
  await mkdir(parent, { recursive: true });
  await removeLeftovers(parent, name);
  const tmp = await mkdtemp(join(parent, `.${name}.partial-${process.pid}-`));
  active.add(tmp);
  return tmp;
}

/** Removes a temp folder made by tempBeside. */
export async function dropTemp(tmp: string): Promise<void> {
  await rm(tmp, { recursive: true, force: true }).catch(() => {});
  active.delete(tmp);
}

/**
 * Renames the complete release folder `out` (inside `tmp`) to destDir. An existing destDir is moved into
 * `tmp` first when `replace` (rename() cannot replace a non-empty folder), else 'exists'. Flushed first.
 */
export async function moveIntoPlace(out: string, destDir: string, tmp: string, replace: boolean): Promise<void> {
  // every file of the release (bundle, node_modules, launcher), not only the binary, is on disk before it is published
  await syncTree(out);
  let old: string | null = null;
  if (replace && (await exists(destDir))) {
    old = join(tmp, 'old');
    await rename(destDir, old);
  } else if (await exists(destDir)) {
    throw new FetchError('exists', `${destDir} already exists; remove it or ask for it to be replaced`);
  }
  try {
    await rename(out, destDir);
  } catch (err) {
    if (old) await rename(old, destDir).catch(() => {});
    throw err;
  }
  await syncDir(dirname(destDir));
}

/**
 * Downloads the release to a temp folder beside destDir, verifies its checksum (hashed while
 * streaming), extracts it safely, checks the daemon binary (bin/<daemon> or <daemon> at the root, a
 * regular file, made executable), then renames the folder into place as destDir. On any failure the temp
 * folder is removed and destDir is untouched.
 */
export async function installRelease(src: ReleaseSource, o: InstallOptions): Promise<InstallResult> {
  const p = prepareDownload(src, o);
  const destDir = o.destDir;
  const name = basename(destDir);
  if (!o.replace && (await exists(destDir))) {
    throw new FetchError('exists', `${destDir} already exists; remove it or ask for it to be replaced`);
  }

  const tmp = await tempBeside(destDir);
  try {
    if (!p.checksum) o.log(`WARNING: downloading ${p.shown} without a checksum (checksums explicitly not required)`);
    o.log(`downloading ${p.shown}`);
    const file = join(tmp, 'download');
    const fileName = p.fileName || name;
    const progress = (total: number | null): Progress => {
      const shown = makeProgress(o.progress, fileName, total, o.log);
      const observe = o.observe;
      if (observe === undefined) return shown;
      observe(0, total);
      return { update: (b) => (observe(b, total), shown.update(b)), done: (ok) => shown.done(ok) };
    };
    const dl = await downloadRelease(p, file, { ...o, progress });
    o.log(
      `downloaded ${dl.bytes} bytes in ${dl.downloadMs.toFixed(0)} ms, ${p.checksum ? `${p.checksum.algo} verified` : 'not verified'} (sha256 ${dl.sha256})`,
    );

    const e0 = performance.now();
    const out = join(tmp, 'out');
    await mkdir(out);
    await unpackRelease(file, p, out, o.daemonName, fileName, o.extract);
    await rm(file, { force: true });
    await placeBinary(out, o.daemonName, fileName);
    for (const [f, text] of Object.entries(o.files ?? {})) await writeFile(join(out, f), text, { mode: 0o644 });
    const extractMs = performance.now() - e0;

    await moveIntoPlace(out, destDir, tmp, o.replace === true);
    o.log(`installed ${join(destDir, 'bin', o.daemonName)}`);
    return {
      binaryPath: join(destDir, 'bin', o.daemonName),
      bytes: dl.bytes,
      sha256: dl.sha256,
      downloadMs: dl.downloadMs,
      verifyMs: dl.verifyMs,
      extractMs,
    };
  } catch (err) {
    if (err instanceof FetchError) throw err;
    throw new FetchError('io', `installing ${p.shown} into ${destDir} failed: ${errorMessage(err)}`);
  } finally {
    await dropTemp(tmp);
  }
}
