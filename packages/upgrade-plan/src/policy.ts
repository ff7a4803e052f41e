// URL, scheme and checksum rules, the same for chainvisor's downloads and the proposer's check of a plan.
import { BlockList, isIP } from 'node:net';
import { FetchError } from './errors.ts';
import type { ExtractLimits } from './extract.ts';
import { clip, quote } from './quote.ts';

/** The knobs of those rules: chainvisor's settings, or the proposer's flags. */
export interface DownloadPolicy {
  /** refuse a URL without checksum= (chainvisor: DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM). md5/sha1 are refused regardless. */
  readonly mustHaveChecksum: boolean;
  /** plain http to non-loopback hosts (chainvisor: DAEMON_ALLOW_INSECURE_HTTP) */
  readonly allowInsecureHttp: boolean;
  /**
   * plain http to a loopback host (127.0.0.0/8, ::1, localhost: a local mirror), and redirects to loopback or
   * private addresses (chainvisor: DAEMON_ALLOW_LOOPBACK_HTTP; the proposer's --allow-loopback-http)
   */
  readonly allowLoopbackHttp: boolean;
  /**
   * how the user turns allowLoopbackHttp on, named in its refusals (chainvisor: `DAEMON_ALLOW_LOOPBACK_HTTP=true`;
   * the proposer: `--allow-loopback-http`): a refusal that does not say how to allow a local mirror sends
   * the reader to the docs
   */
  readonly loopbackSetting?: string;
  /** size cap of a release download, in bytes */
  readonly maxBytes: number;
  /** fail with 'stalled' when nothing arrives for this long: no response, or no body data */
  readonly stallTimeoutMs: number;
  /** caps on what an archive unpacks to (DEFAULT_EXTRACT_LIMITS when absent) */
  readonly extract?: ExtractLimits;
}

/** The stall timeout when none is configured: 60 s. */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

export interface Checksum {
  readonly algo: 'sha256' | 'sha512';
  readonly hex: string;
}

const HEX_LEN = { sha256: 64, sha512: 128 } as const;

/** Which hosts plain http may reach: the two opt-ins of a DownloadPolicy. */
export type HttpPolicy = Pick<DownloadPolicy, 'allowInsecureHttp' | 'allowLoopbackHttp' | 'loopbackSetting'>;

/** How a refusal says a loopback mirror may be allowed: by its setting's name when the caller gave it. */
const loopbackOptIn = (p: HttpPolicy): string =>
  p.loopbackSetting === undefined ? 'unless a loopback mirror is explicitly allowed' : `unless a loopback mirror is allowed with ${p.loopbackSetting}`;

/** 127.0.0.0/8, ::1 (and its IPv4-mapped forms) and `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(h);
  return false;
}

const LOCAL_V4 = new BlockList();
// loopback, RFC 1918, link-local (cloud metadata at 169.254.169.254), "this network", CGNAT
for (const [net, bits] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
  ['0.0.0.0', 8],
  ['100.64.0.0', 10],
] as const) {
  LOCAL_V4.addSubnet(net, bits, 'ipv4');
}
const LOCAL_V6 = new BlockList();
// ::1, ::, unique local fc00::/7, link-local fe80::/10
LOCAL_V6.addAddress('::1', 'ipv6');
LOCAL_V6.addAddress('::', 'ipv6');
LOCAL_V6.addSubnet('fc00::', 7, 'ipv6');
LOCAL_V6.addSubnet('fe80::', 10, 'ipv6');

/**
 * A loopback or private address, by the URL's literal host (`localhost` included); a DNS name that resolves
 * to one is not seen here. IPv4-mapped IPv6 (::ffff:10.0.0.1, which URL writes ::ffff:a00:1) counts as its IPv4.
 */
export function isLocalAddress(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return LOCAL_V4.check(h, 'ipv4');
  if (isIP(h) !== 6) return false;
  const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(h);
  if (mapped) {
    const v4 =
      mapped[1] ?? [parseInt(mapped[2], 16) >> 8, parseInt(mapped[2], 16) & 255, parseInt(mapped[3], 16) >> 8, parseInt(mapped[3], 16) & 255].join('.');
    return LOCAL_V4.check(v4, 'ipv4');
  }
  return LOCAL_V6.check(h, 'ipv6');
}

/** The longest URL a message shows (a presigned URL is long; a hostile one may be megabytes). */
const MAX_URL = 400;

/** The URL without user:password, for messages and logs, elided past MAX_URL characters. */
export function displayUrl(u: URL | string): string {
  let url: URL;
  try {
    url = new URL(String(u));
  } catch {
    return clip(String(u), MAX_URL);
  }
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  return clip(url.href, MAX_URL);
}

/**
 * Why `url` may not be fetched under the policy, or null when it may. Only https, and plain http where
 * explicitly allowed: to a loopback host with allowLoopbackHttp, to any other with allowInsecureHttp. No
 * file:, ftp:, s3:, git: … (cosmovisor's go-getter accepts them all).
 */
export function schemeRefusal(url: URL, p: HttpPolicy): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname)) {
      if (p.allowLoopbackHttp) return null;
      return `plain http to the loopback host ${url.hostname} is not allowed (only https, ${loopbackOptIn(p)})`;
    }
    if (p.allowInsecureHttp) return null;
    return `plain http to ${url.hostname} is not allowed (only https, unless insecure http is explicitly allowed)`;
  }
  return `scheme "${url.protocol}" is not allowed (only https, or plain http where explicitly allowed)`;
}

/** Why a redirect to `next` is refused beyond the scheme rules, or null: no loopback or private target unless allowed. */
export function redirectTargetRefusal(next: URL, p: HttpPolicy): string | null {
  if (p.allowLoopbackHttp || !isLocalAddress(next.hostname)) return null;
  return `a redirect to the loopback or private address ${next.hostname} is not allowed (${loopbackOptIn(p)})`;
}

export function parseUrl(raw: string, what: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new FetchError('bad-info', `${what} is not a valid URL: ${quote(raw)}`);
  }
}

export function assertFetchable(url: URL, p: HttpPolicy): void {
  const why = schemeRefusal(url, p);
  if (why) throw new FetchError('scheme', `refusing to download ${displayUrl(url)}: ${why}`);
}

/** Parses go-getter's `checksum=<type>:<hex>` value; md5 and sha1 are refused whatever the policy. */
export function parseChecksum(value: string, where: string): Checksum {
  const i = value.indexOf(':');
  const algo = (i < 0 ? '' : value.slice(0, i)).toLowerCase();
  const hex = (i < 0 ? value : value.slice(i + 1)).toLowerCase();
  if (algo === 'md5' || algo === 'sha1') {
    throw new FetchError('checksum-weak', `refusing ${algo} checksum for ${where}: ${algo} is too weak, use sha256 or sha512`);
  }
  if (algo !== 'sha256' && algo !== 'sha512') {
    throw new FetchError('bad-info', `unsupported checksum ${quote(value)} for ${where}: expected sha256:<hex> or sha512:<hex>`);
  }
  if (hex.length !== HEX_LEN[algo] || !/^[0-9a-f]+$/.test(hex)) {
    throw new FetchError('bad-info', `malformed ${algo} checksum for ${where}: expected ${HEX_LEN[algo]} hex digits, got ${quote(hex)}`);
  }
  return { algo, hex };
}

export function checkChecksum(c: Checksum, where: string): void {
  parseChecksum(`${c.algo}:${c.hex}`, where);
}

/** The refusal of a URL without a checksum, when one is required. */
export function checksumMissing(shown: string): FetchError {
  return new FetchError(
    'checksum-missing',
    `refusing to download ${shown}: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)`,
  );
}

/**
 * Splits go-getter's magic query parameters off a URL: `checksum` (and `archive`) describe the download,
 * they are not sent to the server.
 */
export function splitMagicParams(url: URL): { url: URL; checksum: string | null; archive: string | null } {
  const clean = new URL(url.href);
  const checksum = clean.searchParams.get('checksum');
  const archive = clean.searchParams.get('archive');
  if (checksum !== null) clean.searchParams.delete('checksum');
  if (archive !== null) clean.searchParams.delete('archive');
  return { url: clean, checksum, archive };
}

export type ArchiveFormat = 'tar.gz' | 'tar' | 'none';

/** The URL's path with its %-escapes decoded; as it is when one is malformed (`chaind%`), which a server may still serve. */
export function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}

const UNSUPPORTED_EXT = ['.zip', '.tar.bz2', '.tbz2', '.tbz', '.tar.xz', '.txz', '.tar.zst', '.tzst', '.gz', '.bz2', '.xz', '.zst', '.7z', '.rar'];

/**
 * The archive format: an explicit `archive=` parameter, else the URL path's extension; no known
 * extension = a plain binary. zip and the bzip2/xz/zstd/plain-gzip variants are refused rather than
 * half-supported.
 */
export function archiveFormat(url: URL, archiveParam: string | null | undefined): ArchiveFormat {
  if (archiveParam !== null && archiveParam !== undefined) {
    const a = archiveParam.toLowerCase();
    if (a === 'tar.gz' || a === 'tgz') return 'tar.gz';
    if (a === 'tar') return 'tar';
    if (a === 'false' || a === 'none' || a === '') return 'none';
    throw new FetchError(
      'unsupported-archive',
      `unsupported archive type ${quote(archiveParam)} for ${displayUrl(url)}: only tar.gz (tgz), tar and plain binaries are supported`,
    );
  }
  const p = decodedPath(url).toLowerCase();
  if (p.endsWith('.tar.gz') || p.endsWith('.tgz')) return 'tar.gz';
  if (p.endsWith('.tar')) return 'tar';
  const ext = UNSUPPORTED_EXT.find((e) => p.endsWith(e));
  if (ext) {
    throw new FetchError(
      'unsupported-archive',
      `unsupported archive type "${ext.slice(1)}" for ${displayUrl(url)}: only tar.gz (tgz), tar and plain binaries are supported`,
    );
  }
  return 'none';
}
