// resolveRelease: plan.info → the URL (and checksum) of this platform's release.
import { createHash } from 'node:crypto';
import { FetchError } from './errors.ts';
import { openUrl, Stall } from './http.ts';
import { platformKey } from './platform.ts';
import {
  archiveFormat,
  assertFetchable,
  displayUrl,
  parseChecksum,
  parseUrl,
  splitMagicParams,
  type ArchiveFormat,
  type Checksum,
} from './policy.ts';

/** chainvisor's default size cap: 2 GiB */
export const DEFAULT_MAX_BYTES = 2 * 1024 ** 3;
/** chainvisor's default stall timeout: 60 s */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

export interface FetchPolicy {
  /** DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM (chainvisor's default: true). md5/sha1 are refused regardless. */
  readonly mustHaveChecksum: boolean;
  /** plain http to non-loopback hosts (127.0.0.0/8, ::1 and localhost are always allowed) */
  readonly allowInsecureHttp: boolean;
  /** size cap in bytes (chainvisor's default: 2 GiB) */
  readonly maxBytes: number;
  /** fail with 'stalled' when nothing arrives for this long: no response, or no body data (chainvisor's default: 60 s) */
  readonly stallTimeoutMs: number;
  /** 'bar' on a TTY (to stderr), 'lines' = a log line every ~10 % or 2 s */
  readonly progress: 'bar' | 'lines' | 'none';
  readonly log: (msg: string) => void;
}

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

async function fetchInfo(raw: string, o: FetchPolicy): Promise<string> {
  const given = parseUrl(raw, 'upgrade info URL');
  assertFetchable(given, o.allowInsecureHttp);
  const { url, checksum } = splitMagicParams(given);
  const shown = displayUrl(url);
  const sum = checksum === null ? null : parseChecksum(checksum, shown);
  const ac = new AbortController();
  const stall = new Stall(o.stallTimeoutMs, ac);
  const chunks: Uint8Array[] = [];
  let n = 0;
  stall.kick();
  try {
    // the 60 s cap stays: a document this small that trickles in for longer is not worth waiting for
    const { res } = await openUrl(url, o.allowInsecureHttp, AbortSignal.any([ac.signal, AbortSignal.timeout(60_000)]), stall);
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
  return body.toString('utf8');
}

const EXPECTED = 'expected JSON {"binaries": {"<os>/<arch>": "<url>", …}} or a URL to such JSON';

/**
 * plan.info → where to get this platform's release. Info is JSON {"binaries": {"linux/amd64": url,
 * "any": url}} or an http(s) URL to such JSON (fetched, under the same scheme rules). The binary URL's
 * `checksum=<algo>:<hex>` parameter is taken out as `checksum`; md5 and sha1 are always refused, a
 * missing checksum only when o.mustHaveChecksum.
 */
export async function resolveRelease(info: string, o: FetchPolicy): Promise<ReleaseSource> {
  const text = info.trim();
  if (text === '') throw new FetchError('bad-info', `upgrade info is empty; ${EXPECTED}`);
  let doc = text;
  let from = 'upgrade info';
  if (!text.startsWith('{')) {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) throw new FetchError('bad-info', `upgrade info is neither JSON nor a URL; ${EXPECTED}`);
    doc = (await fetchInfo(text, o)).trim();
    from = `upgrade info at ${displayUrl(text)}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(doc);
  } catch (err) {
    throw new FetchError('bad-info', `${from} is not valid JSON (${(err as Error).message}); ${EXPECTED}`);
  }
  const binaries = (parsed as { binaries?: unknown } | null)?.binaries;
  if (typeof parsed !== 'object' || parsed === null || typeof binaries !== 'object' || binaries === null || Array.isArray(binaries)) {
    throw new FetchError('bad-info', `${from} has no "binaries" object; ${EXPECTED}`);
  }
  const table = binaries as Record<string, unknown>;
  const own = platformKey();
  const key = Object.hasOwn(table, own) ? own : Object.hasOwn(table, 'any') ? 'any' : null;
  if (key === null) {
    const listed = Object.keys(table);
    throw new FetchError('no-platform', `${from} has no binary for ${own} and no "any" entry (it lists: ${listed.length ? listed.join(', ') : 'nothing'})`);
  }
  const raw = table[key];
  if (typeof raw !== 'string' || raw.trim() === '') throw new FetchError('bad-info', `${from}: binaries["${key}"] is not a URL string`);
  const given = parseUrl(raw.trim(), `${from}: binaries["${key}"]`);
  assertFetchable(given, o.allowInsecureHttp);
  const { url, checksum, archive } = splitMagicParams(given);
  const shown = displayUrl(url);
  const sum = checksum === null ? undefined : parseChecksum(checksum, shown);
  if (!sum && o.mustHaveChecksum) {
    throw new FetchError('checksum-missing', `refusing to download ${shown}: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)`);
  }
  const format = archiveFormat(url, archive);
  return {
    url: url.href,
    platform: key,
    ...(sum ? { checksum: sum } : {}),
    ...(archive !== null ? { archive: format } : {}),
  };
}
