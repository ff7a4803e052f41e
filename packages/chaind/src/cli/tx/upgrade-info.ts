// The client-side check of `tx upgrade software-upgrade --upgrade-info` (reference §7; the SDK's
// plan.ParseInfo + Info.ValidateFull): the info is non-blank; a URL is fetched and its content taken as
// the info; the info is JSON {"binaries": {"any" | "os/arch": url}}; every URL carries a checksum
// (unless not required), is downloaded to a temp dir, matches its checksum, and holds the daemon binary
// (`bin/<daemon>` or `<daemon>` at the root of a tar(.gz) archive, or is the binary itself). A plan
// that passes is one chainvisor can install on every platform it lists, before governance votes on it.
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { list as listTar } from 'tar';
import { UserError } from '../common.ts';
import { reason } from '../query/rpc.ts';

/** The largest binary archive downloaded (a Node.js release with its dependencies fits easily). */
export const MAX_BINARY_BYTES = 1024 * 1024 * 1024;
/** The largest plan info fetched from a URL. */
export const MAX_INFO_BYTES = 1024 * 1024;
export const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** The checksum algorithms accepted, with their hex lengths (md5 and sha1 are not: they can be forged). */
const ALGOS: Readonly<Record<string, number>> = { sha256: 64, sha512: 128 };
const PLATFORM = /^[a-z0-9_.-]+\/[a-z0-9_.-]+$/i;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

export interface InfoCheckOptions {
  /** The executable the archives must hold (bin/<daemon> or <daemon>). */
  readonly daemonName: string;
  readonly checksumRequired: boolean;
  readonly maxBinaryBytes?: number;
  readonly timeoutMs?: number;
}

const invalid = (detail: string): UserError => new UserError(`invalid --upgrade-info: ${detail}`);

interface Checksum {
  algo: string;
  hex: string;
}

/** The checksum=<algo>:<hex> parameter of a URL; undefined when absent (and not required). `what` names the URL. */
function checksumOf(url: URL, what: string, required: boolean): Checksum | undefined {
  const c = url.searchParams.get('checksum');
  if (c === null || c === '') {
    if (required) throw invalid(`${what} has no checksum=<algo>:<hex> parameter: ${url.href} (or pass --no-checksum-required)`);
    return undefined;
  }
  const m = /^([a-z0-9]+):([0-9a-f]+)$/i.exec(c);
  if (m === null) throw invalid(`the checksum ${JSON.stringify(c)} of ${what} is not <algo>:<hex>: ${url.href}`);
  const algo = m[1].toLowerCase();
  const len = ALGOS[algo];
  if (len === undefined) throw invalid(`the checksum algorithm ${JSON.stringify(m[1])} of ${what} is not accepted (use sha256 or sha512): ${url.href}`);
  if (m[2].length !== len) throw invalid(`the ${algo} checksum of ${what} must have ${len} hex digits, not ${m[2].length}: ${url.href}`);
  return { algo, hex: m[2].toLowerCase() };
}

function httpUrl(s: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw invalid(`${what} is not a valid URL: ${s}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid(`${what} must be an http:// or https:// URL: ${s}`);
  return u;
}

/**
 * The stateless part (the SDK's BinaryDownloadURLMap.ValidateBasic): `text` is JSON with a non-empty
 * "binaries" object, keys "any" or "os/arch", values http(s) URLs with an accepted checksum (when
 * required). Returns the entries sorted by platform, each with its parsed URL and checksum.
 */
export function parseBinaries(text: string, checksumRequired: boolean, source = ''): { platform: string; url: URL; checksum?: Checksum }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalid(`could not parse plan info${source}: ${(e as Error).message} (expected {"binaries":{"os/arch":"url?checksum=sha256:…"}}, or pass --no-validate)`);
  }
  const binaries = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { binaries?: unknown }).binaries : undefined;
  if (binaries === undefined || binaries === null) throw invalid(`no "binaries" entries found${source}`);
  if (typeof binaries !== 'object' || Array.isArray(binaries)) throw invalid(`"binaries" must be an object of platform → URL${source}`);
  const entries = Object.entries(binaries as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) throw invalid(`no "binaries" entries found${source}`);
  return entries.map(([platform, url]) => {
    if (platform !== 'any' && !PLATFORM.test(platform)) throw invalid(`platform key ${JSON.stringify(platform)} must be "any" or "os/arch"`);
    if (typeof url !== 'string') throw invalid(`the URL for ${platform} must be a string`);
    const u = httpUrl(url, `the URL for ${platform}`);
    return { platform, url: u, checksum: checksumOf(u, `the URL for ${platform}`, checksumRequired) };
  });
}

/** Thrown while downloading: the caller adds which platform and URL. */
class DownloadError extends Error {}

const sizeText = (n: number): string => (n >= 1024 * 1024 ? `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB` : `${n} bytes`);

/** Streams `url` into `dest`, at most `maxBytes`; the hex digest of `algo` when given. */
async function download(url: URL, dest: string, maxBytes: number, timeoutMs: number, algo: string | undefined): Promise<string | undefined> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (e) {
    throw new DownloadError(`download failed: ${reason(e, timeoutMs)}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new DownloadError(`download failed: HTTP ${res.status}${res.statusText !== '' ? ` ${res.statusText}` : ''}`);
  }
  const declared = Number(res.headers.get('content-length') ?? 'NaN');
  const tooLarge = (): DownloadError => new DownloadError(`larger than the ${sizeText(maxBytes)} download limit`);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (res.body === null) throw new DownloadError('download failed: empty response');
  const hash: Hash | undefined = algo === undefined ? undefined : createHash(algo);
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
      size += chunk.length;
      if (size > maxBytes) return cb(tooLarge());
      hash?.update(chunk);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>), meter, createWriteStream(dest));
  } catch (e) {
    if (e instanceof DownloadError) throw e;
    throw new DownloadError(`download failed: ${reason(e, timeoutMs)}`);
  }
  return hash?.digest('hex');
}

function verify(checksum: Checksum | undefined, digest: string | undefined): void {
  if (checksum === undefined) return;
  if (digest !== checksum.hex) throw new DownloadError(`checksum mismatch: expected ${checksum.algo}:${checksum.hex}, got ${checksum.algo}:${digest ?? ''}`);
}

const REGULAR = new Set(['File', 'OldFile', 'ContiguousFile']);

/** Checks that the downloaded file holds the daemon: a tar(.gz) with bin/<daemon> or <daemon>, or the binary itself. */
async function checkHoldsDaemon(file: string, daemon: string): Promise<void> {
  const head = Buffer.alloc(512);
  const fh = await open(file, 'r');
  let n: number;
  try {
    ({ bytesRead: n } = await fh.read(head, 0, 512, 0));
  } finally {
    await fh.close();
  }
  if (n === 0) throw new DownloadError('the download is empty');
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  const tar = n >= 262 && head.toString('latin1', 257, 262) === 'ustar';
  if (head.toString('latin1', 0, 4) === 'PK\u0003\u0004') throw new DownloadError('zip archives are not supported: publish a .tar.gz');
  // not an archive: the SDK's downloader takes such a file as the binary itself
  if (!gzip && !tar) return;
  const wanted = new Set([`bin/${daemon}`, daemon]);
  const found = new Map<string, string>();
  try {
    await listTar({
      file,
      strict: true,
      onReadEntry: (e) => {
        const path = e.path.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
        if (wanted.has(path)) found.set(path, e.type);
      },
    });
  } catch (e) {
    throw new DownloadError(`not a valid tar${gzip ? '.gz' : ''} archive: ${(e as Error).message}`);
  }
  for (const path of [`bin/${daemon}`, daemon]) {
    const type = found.get(path);
    if (type === undefined) continue;
    if (REGULAR.has(type)) return;
    throw new DownloadError(`${path} in the archive is a ${type}, not a regular file`);
  }
  throw new DownloadError(`the archive does not contain bin/${daemon} or ${daemon}`);
}

/** The full check (the SDK's ParseInfo + ValidateFull): fetches and downloads; a UserError naming what failed. */
export async function checkUpgradeInfo(info: string, o: InfoCheckOptions): Promise<void> {
  const s = info.trim();
  if (s === '') throw invalid('plan info must not be blank');
  if (o.daemonName === '' || /[/\\]/.test(o.daemonName)) throw new UserError(`invalid --daemon-name ${JSON.stringify(o.daemonName)}: expected a file name`);
  const timeoutMs = o.timeoutMs ?? DOWNLOAD_TIMEOUT_MS;
  const dir = await mkdtemp(join(tmpdir(), 'chaind-upgrade-info-'));
  try {
    let text = s;
    let source = '';
    if (URL_LIKE.test(s)) {
      const url = httpUrl(s, 'the info URL');
      const checksum = checksumOf(url, 'the info URL', o.checksumRequired);
      const dest = join(dir, 'plan-info.json');
      try {
        verify(checksum, await download(url, dest, MAX_INFO_BYTES, timeoutMs, checksum?.algo));
      } catch (e) {
        if (e instanceof DownloadError) throw invalid(`the info URL ${url.href}: ${e.message}`);
        throw e;
      }
      text = (await readFile(dest, 'utf8')).trim();
      if (text === '') throw invalid(`no content returned by ${url.href}`);
      source = ` fetched from ${url.href}`;
    }
    const entries = parseBinaries(text, o.checksumRequired, source);
    for (const [i, { platform, url, checksum }] of entries.entries()) {
      const dest = join(dir, `binary-${i}`);
      try {
        verify(checksum, await download(url, dest, o.maxBinaryBytes ?? MAX_BINARY_BYTES, timeoutMs, checksum?.algo));
        await checkHoldsDaemon(dest, o.daemonName);
      } catch (e) {
        if (e instanceof DownloadError) throw invalid(`the binary for ${platform} (${url.href}): ${e.message}`);
        throw e;
      } finally {
        await rm(dest, { force: true });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
