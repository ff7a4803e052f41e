// One release download, the same for chainvisor (which then installs it) and the proposer's check (which
// only tries it): the checks before any byte is fetched, the download hashed while it streams and
// verified, the archive unpacked with the safety checks, and the daemon binary looked for.
import { lstat, mkdir, open, rename } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FetchError } from './errors.ts';
import { DEFAULT_EXTRACT_LIMITS, extractTar, type ExtractLimits } from './extract.ts';
import { downloadTo, type Downloaded, type Progress } from './http.ts';
import {
  archiveFormat,
  assertFetchable,
  checkChecksum,
  checksumMissing,
  decodedPath,
  displayUrl,
  parseChecksum,
  splitMagicParams,
  type ArchiveFormat,
  type Checksum,
  type DownloadPolicy,
} from './policy.ts';
import type { ReleaseSource } from './resolve.ts';
import { errnoCode } from '@chaind/errors';

export interface PreparedDownload {
  /** without go-getter's `checksum` / `archive` parameters */
  readonly url: URL;
  /** the URL for messages (no user:password) */
  readonly shown: string;
  readonly checksum?: Checksum;
  readonly format: ArchiveFormat;
  /** the format was given by `archive=` (else by the URL's extension, or by the content when that says nothing) */
  readonly explicit: boolean;
  /** the last segment of the URL's path ("" for none) */
  readonly fileName: string;
}

/**
 * The checks before anything is fetched, again even for a source from resolveRelease (a ReleaseSource may
 * come from elsewhere): the scheme policy, the checksum (md5/sha1 refused, a missing one when required),
 * an archive type that is handled.
 */
export function prepareDownload(
  src: ReleaseSource,
  o: Pick<DownloadPolicy, 'mustHaveChecksum' | 'allowInsecureHttp' | 'allowLoopbackHttp' | 'loopbackSetting'>,
): PreparedDownload {
  const parsed = new URL(src.url);
  assertFetchable(parsed, o);
  const { url, checksum: inUrl, archive } = splitMagicParams(parsed);
  const shown = displayUrl(url);
  const checksum = src.checksum ?? (inUrl === null ? undefined : parseChecksum(inUrl, shown));
  if (checksum) checkChecksum(checksum, shown);
  else if (o.mustHaveChecksum) throw checksumMissing(shown);
  const param = src.archive ?? archive;
  return {
    url,
    shown,
    ...(checksum ? { checksum } : {}),
    format: archiveFormat(url, param),
    explicit: param !== null && param !== undefined,
    fileName: basename(decodedPath(url)),
  };
}

export interface VerifiedDownload extends Downloaded {
  /** hashing time (inside downloadMs) plus the final comparison */
  readonly verifyMs: number;
}

export interface ReleaseDownloadOptions extends DownloadPolicy {
  readonly progress?: (total: number | null) => Progress;
}

const NO_PROGRESS: Progress = { update() {}, done() {} };

/** Streams the release to `file`, hashing as it goes, and checks it: its checksum (when it has one), not empty. */
export async function downloadRelease(p: PreparedDownload, file: string, o: ReleaseDownloadOptions): Promise<VerifiedDownload> {
  const dl = await downloadTo(p.url, file, {
    allowInsecureHttp: o.allowInsecureHttp,
    allowLoopbackHttp: o.allowLoopbackHttp,
    loopbackSetting: o.loopbackSetting,
    maxBytes: o.maxBytes,
    stallTimeoutMs: o.stallTimeoutMs,
    algo: p.checksum?.algo ?? 'sha256',
    progress: o.progress ?? (() => NO_PROGRESS),
  });
  const v0 = performance.now();
  if (p.checksum && dl.digest !== p.checksum.hex.toLowerCase()) {
    throw new FetchError(
      'checksum-mismatch',
      `checksum mismatch for ${p.shown}: expected ${p.checksum.algo} ${p.checksum.hex.toLowerCase()}, got ${dl.digest}`,
    );
  }
  if (dl.bytes === 0) throw new FetchError('empty', `download of ${p.shown} is empty`);
  return { ...dl, verifyMs: dl.hashMs + (performance.now() - v0) };
}

/** What the first bytes say the file is, for a URL that does not say. */
async function sniff(file: string): Promise<ArchiveFormat | 'zip'> {
  const head = Buffer.alloc(512);
  const fh = await open(file, 'r');
  let n: number;
  try {
    ({ bytesRead: n } = await fh.read(head, 0, head.length, 0));
  } finally {
    await fh.close();
  }
  if (n >= 4 && head.toString('latin1', 0, 4) === 'PK\u0003\u0004') return 'zip';
  if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (n >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
  return 'none';
}

/**
 * Makes the downloaded `file` the release folder `out` (existing, empty): a tar or tar.gz is extracted with the
 * safety checks, a plain binary becomes out/bin/<daemonName>. A URL whose path names no archive type is taken by
 * its content: a gzip or tar is extracted (within `limits`), a zip refused. `name` names the release in messages.
 */
export async function unpackRelease(
  file: string,
  p: PreparedDownload,
  out: string,
  daemonName: string,
  name: string,
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
): Promise<void> {
  let format = p.format;
  if (format === 'none' && !p.explicit) {
    const seen = await sniff(file);
    if (seen === 'zip') throw new FetchError('unsupported-archive', 'zip archives are not supported: publish a .tar.gz');
    format = seen;
  }
  if (format === 'none') {
    await mkdir(join(out, 'bin'));
    await rename(file, join(out, 'bin', daemonName));
  } else {
    await extractTar(file, out, name, limits);
  }
}

type Kind = 'file' | 'link' | 'dir' | 'other' | null;

async function kindOf(p: string): Promise<Kind> {
  try {
    const st = await lstat(p);
    return st.isFile() ? 'file' : st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'other';
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

const DESCRIBE = { link: 'a symbolic link', dir: 'a folder', other: 'not a regular file' } as const;

/**
 * The daemon binary of the unpacked release `out`: bin/<daemon>, else <daemon> at the root, a regular file
 * either way ('no-binary' otherwise). Returns its path.
 */
export async function locateDaemon(out: string, daemon: string, name: string): Promise<string> {
  const inBin = join(out, 'bin', daemon);
  const atRoot = join(out, daemon);
  const binKind = await kindOf(join(out, 'bin'));
  if (binKind !== null && binKind !== 'dir') {
    throw new FetchError(
      'no-binary',
      `release ${name}: bin is ${binKind === 'file' ? 'a file' : DESCRIBE[binKind]}, not a folder holding the daemon binary ${daemon}`,
    );
  }
  const k = binKind === 'dir' ? await kindOf(inBin) : null;
  if (k === null) {
    const rootKind = await kindOf(atRoot);
    if (rootKind === null) {
      throw new FetchError('no-binary', `release ${name} has no daemon binary: expected bin/${daemon} or ${daemon} at the archive root`);
    }
    if (rootKind !== 'file') {
      throw new FetchError('no-binary', `release ${name}: ${daemon} is ${DESCRIBE[rootKind]}; the daemon binary must be a regular file`);
    }
    return atRoot;
  }
  if (k !== 'file') {
    throw new FetchError('no-binary', `release ${name}: bin/${daemon} is ${DESCRIBE[k]}; the daemon binary must be a regular file`);
  }
  return inBin;
}
