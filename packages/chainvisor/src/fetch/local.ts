// Local releases for `init` and `add-upgrade`: a release folder copied as a whole, or a .tar.gz/.tgz/.tar
// extracted with the same safety checks as a download. A packaged chaind (bin/chaind launcher + bundle +
// node_modules) cannot run from its binary alone, so cosmovisor's "copy the binary" is not enough for it.
import { constants } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, readlink, realpath, rm, stat, symlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { checkTree, extractTar, FetchError } from '@chaind/upgrade-plan';
import { PLAN_RECORD } from '@chaind/upgrade-plan';
import { dropTemp, moveIntoPlace, placeBinary, tempBeside } from './install.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

/** What a path given to init/add-upgrade is: a plain binary (cosmovisor's form), a release folder, or a release archive. */
export type LocalForm = 'binary' | 'folder' | 'archive';

const ARCHIVE_EXT = ['.tar.gz', '.tgz', '.tar'];

/** The form of `src` (symlinks followed, as `$(command -v chaind)` often is one); throws 'no-binary' when it is neither. */
export async function localForm(src: string): Promise<LocalForm> {
  let st;
  try {
    st = await stat(src);
  } catch (err) {
    const code = errnoCode(err);
    throw new FetchError('no-binary', code === 'ENOENT' ? `${src} does not exist` : `cannot read ${src}: ${errorMessage(err)}`);
  }
  if (st.isDirectory()) return 'folder';
  if (!st.isFile()) throw new FetchError('no-binary', `${src} is neither a file nor a folder`);
  return ARCHIVE_EXT.some((e) => src.toLowerCase().endsWith(e)) ? 'archive' : 'binary';
}

/**
 * A release folder must hold its daemon at bin/<daemon>, a regular file: checked before anything is written, so
 * a wrong path leaves nothing behind.
 */
export async function checkReleaseFolder(src: string, daemonName: string): Promise<void> {
  const bin = join(src, 'bin', daemonName);
  let st;
  try {
    st = await lstat(bin);
  } catch {
    throw new FetchError('no-binary', `${src} is not a release folder: it has no bin/${daemonName}`);
  }
  if (!st.isFile())
    throw new FetchError(
      'no-binary',
      `${bin} is ${st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a folder' : 'not a regular file'}; the daemon binary must be a regular file`,
    );
}

/**
 * Copies the folder `src` to `dst`: files (reflinked where the file system can, setuid/setgid bits dropped),
 * folders, and symlinks verbatim (checked afterwards by checkTree to stay inside). Anything else is refused.
 */
async function copyRelease(src: string, dst: string, root: string, what: string): Promise<void> {
  await mkdir(dst);
  for (const e of await readdir(src, { withFileTypes: true })) {
    const s = join(src, e.name);
    const d = join(dst, e.name);
    if (e.isDirectory()) await copyRelease(s, d, root, what);
    else if (e.isSymbolicLink()) await symlink(await readlink(s), d);
    else if (e.isFile()) {
      await copyFile(s, d, constants.COPYFILE_FICLONE);
      await chmod(d, (await stat(s)).mode & 0o777);
    } else {
      throw new FetchError(
        'unsafe-archive',
        `unsafe ${what}: entry ${JSON.stringify(relative(root, s).split(sep).join('/'))} is not a regular file, folder or link`,
      );
    }
  }
}

export interface LocalInstallOptions {
  /** genesis/ or upgrades/<name>/: the release ends there, its binary at destDir/bin/<daemonName> */
  readonly destDir: string;
  readonly daemonName: string;
  /** files of an existing destDir carried into the new one when the release has none (the plan copied at a switch) */
  readonly keep?: readonly string[];
}

/**
 * Installs the release folder or archive `src` as destDir: built in a temp folder beside it, checked (symlinks
 * stay inside, no device files, bin/<daemon> a regular file, made executable), then renamed into place,
 * replacing an existing destDir. On any failure the temp folder is removed and destDir is untouched.
 */
export async function installLocalRelease(src: string, form: 'folder' | 'archive', o: LocalInstallOptions): Promise<string> {
  if (form === 'folder') {
    await checkReleaseFolder(src, o.daemonName);
    // copying a folder into itself would never end (e.g. the home folder named as the release)
    const real = await realpath(src);
    const under = await realpath(join(o.destDir, '..')).catch(() => '');
    if (under === real || under.startsWith(real + sep)) throw new FetchError('no-binary', `${src} contains ${o.destDir}: name the release folder itself`);
  }
  const tmp = await tempBeside(o.destDir);
  try {
    const out = join(tmp, 'out');
    if (form === 'folder') {
      const what = `release folder ${src}`;
      await copyRelease(src, out, src, what);
      await checkTree(out, what);
    } else {
      await mkdir(out);
      await extractTar(src, out, src);
    }
    await placeBinary(out, o.daemonName, src);
    // a release given by the operator is theirs, even when copied from a downloaded one: no plan binds it
    await rm(join(out, PLAN_RECORD), { force: true, recursive: true });
    for (const k of o.keep ?? []) {
      const from = join(o.destDir, k);
      const st = await lstat(from).catch(() => undefined);
      if (st?.isFile() && (await lstat(join(out, k)).catch(() => undefined)) === undefined) await copyFile(from, join(out, k));
    }
    await moveIntoPlace(out, o.destDir, tmp, true);
    return join(o.destDir, 'bin', o.daemonName);
  } catch (err) {
    if (err instanceof FetchError) throw err;
    throw new FetchError('io', `installing ${src} as ${o.destDir} failed: ${errorMessage(err)}`);
  } finally {
    await dropTemp(tmp);
  }
}
