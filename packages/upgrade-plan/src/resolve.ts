// Plan info → the releases it names: this platform's (chainvisor), or every one (the proposer's check).
import { createHash } from 'node:crypto';
import { FetchError } from './errors.ts';
import { openUrl, Stall } from './http.ts';
import { platformKey } from './platform.ts';
import { clip, quote } from './quote.ts';
import {
  archiveFormat,
  assertFetchable,
  checksumMissing,
  displayUrl,
  parseChecksum,
  parseUrl,
  splitMagicParams,
  type ArchiveFormat,
  type Checksum,
  type DownloadPolicy,
} from './policy.ts';
import { errorMessage } from '@chaind/errors';

export interface ReleaseSource {
  /** the download URL, without go-getter's `checksum` / `archive` query parameters */
  readonly url: string;
  readonly checksum?: Checksum;
  /** the binaries key used: "linux/amd64", … or "any" */
  readonly platform: string;
  /** from an `archive=` parameter; absent = decided by the URL's extension */
  readonly archive?: ArchiveFormat;
}

/** Upgrade info documents are small; a bigger answer is not one. */
const MAX_INFO_BYTES = 1 << 20;

/** The document at `raw`, and its URL as messages show it (no checksum, no user:password). */
async function fetchInfo(raw: string, o: DownloadPolicy): Promise<{ readonly text: string; readonly shown: string }> {
  const given = parseUrl(raw, 'upgrade info URL');
  assertFetchable(given, o);
  const { url, checksum } = splitMagicParams(given);
  const shown = displayUrl(url);
  const sum = checksum === null ? null : parseChecksum(checksum, shown);
  // the document names the binaries' checksums: it needs one of its own as much as they do
  if (sum === null && o.mustHaveChecksum) throw checksumMissing(shown);
  const ac = new AbortController();
  const stall = new Stall(o.stallTimeoutMs, ac);
  const chunks: Uint8Array[] = [];
  let n = 0;
  stall.kick();
  try {
    // the 60 s cap stays: a document this small that trickles in for longer is not worth waiting for
    const { res } = await openUrl(url, o, AbortSignal.any([ac.signal, AbortSignal.timeout(60_000)]), stall);
    try {
      for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
        n += c.byteLength;
        if (n > MAX_INFO_BYTES) {
          await res.body?.cancel().catch(() => {});
          throw new FetchError('too-large', `upgrade info at ${shown} is over ${MAX_INFO_BYTES} bytes`);
        }
        chunks.push(c);
        stall.kick();
      }
    } catch (err) {
      if (err instanceof FetchError) throw err;
      if (stall.fired) throw stall.noData(shown, n, null);
      throw new FetchError('truncated', `upgrade info at ${shown} was cut short after ${n} bytes`);
    }
  } finally {
    stall.stop();
  }
  const body = Buffer.concat(chunks);
  if (sum) {
    const got = createHash(sum.algo).update(body).digest('hex');
    if (got !== sum.hex) throw new FetchError('checksum-mismatch', `checksum mismatch for ${shown}: expected ${sum.algo} ${sum.hex}, got ${got}`);
  }
  return { text: body.toString('utf8'), shown };
}

const EXPECTED = 'expected JSON {"binaries": {"<os>/<arch>": "<url>", …}} or a URL to such JSON';

interface Binaries {
  readonly table: Readonly<Record<string, unknown>>;
  /** names the document in messages: "upgrade info", or "upgrade info at <url>" */
  readonly from: string;
}

/**
 * Info is JSON {"binaries": {"linux/amd64": url, "any": url}} or an http(s) URL to such JSON (fetched,
 * under the same scheme and checksum rules as a binary).
 */
async function loadBinaries(info: string, o: DownloadPolicy): Promise<Binaries> {
  const text = info.trim();
  if (text === '') throw new FetchError('bad-info', `upgrade info is empty; ${EXPECTED}`);
  let doc = text;
  let from = 'upgrade info';
  if (!text.startsWith('{')) {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) throw new FetchError('bad-info', `upgrade info is neither JSON nor a URL; ${EXPECTED}`);
    const fetched = await fetchInfo(text, o);
    doc = fetched.text.trim();
    from = `upgrade info at ${fetched.shown}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(doc);
  } catch (err) {
    throw new FetchError('bad-info', `${from} is not valid JSON (${clip(errorMessage(err))}); ${EXPECTED}`);
  }
  const binaries = (parsed as { binaries?: unknown } | null)?.binaries;
  if (typeof parsed !== 'object' || parsed === null || typeof binaries !== 'object' || binaries === null || Array.isArray(binaries)) {
    throw new FetchError('bad-info', `${from} has no "binaries" object; ${EXPECTED}`);
  }
  return { table: binaries as Record<string, unknown>, from };
}

/**
 * One entry of "binaries": an http(s) URL the policy lets us fetch. Its `checksum=<algo>:<hex>` parameter
 * is taken out as `checksum`; md5 and sha1 are always refused, a missing checksum when o.mustHaveChecksum;
 * an archive type that is not handled is refused before anything is downloaded.
 */
function releaseSource(b: Binaries, key: string, o: DownloadPolicy): ReleaseSource {
  const raw = b.table[key];
  if (typeof raw !== 'string' || raw.trim() === '') throw new FetchError('bad-info', `${b.from}: binaries[${quote(key)}] is not a URL string`);
  const given = parseUrl(raw.trim(), `${b.from}: binaries[${quote(key)}]`);
  assertFetchable(given, o);
  const { url, checksum, archive } = splitMagicParams(given);
  const shown = displayUrl(url);
  const sum = checksum === null ? undefined : parseChecksum(checksum, shown);
  if (!sum && o.mustHaveChecksum) throw checksumMissing(shown);
  const format = archiveFormat(url, archive);
  return {
    url: url.href,
    platform: key,
    ...(sum ? { checksum: sum } : {}),
    ...(archive !== null ? { archive: format } : {}),
  };
}

/** plan.info → where to get this platform's release: its own key, else "any". Other entries are not looked at. */
export async function resolveRelease(info: string, o: DownloadPolicy): Promise<ReleaseSource> {
  const b = await loadBinaries(info, o);
  const own = platformKey();
  const key = Object.hasOwn(b.table, own) ? own : Object.hasOwn(b.table, 'any') ? 'any' : null;
  if (key === null) {
    const listed = Object.keys(b.table);
    throw new FetchError(
      'no-platform',
      `${b.from} has no binary for ${own} and no "any" entry (it lists: ${listed.length ? clip(listed.join(', ')) : 'nothing'})`,
    );
  }
  return releaseSource(b, key, o);
}

const PLATFORM = /^[a-z0-9_.-]+\/[a-z0-9_.-]+$/i;

/**
 * The proposer's check (the SDK's BinaryDownloadURLMap.ValidateBasic): at least one entry, every key "any"
 * or "os/arch", every entry a release chainvisor would accept. Sorted by platform.
 */
export async function planBinaries(info: string, o: DownloadPolicy): Promise<ReleaseSource[]> {
  const b = await loadBinaries(info, o);
  const source = b.from === 'upgrade info' ? '' : ` fetched from ${b.from.slice('upgrade info at '.length)}`;
  const keys = Object.keys(b.table).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  if (keys.length === 0) throw new FetchError('bad-info', `no "binaries" entries found${source}`);
  return keys.map((key) => {
    if (key !== 'any' && !PLATFORM.test(key)) throw new FetchError('bad-info', `platform key ${quote(key)} must be "any" or "os/arch"`);
    return releaseSource(b, key, o);
  });
}
