// HTTP(S) GET through Node's global fetch, with redirects followed by hand so each hop is checked, and a
// streamed download that hashes while it writes.
import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { FetchError } from './errors.ts';
import { displayUrl, redirectTargetRefusal, schemeRefusal, type HttpPolicy } from './policy.ts';
import { quote } from './quote.ts';
import { errorMessage } from '@chaind/errors';

/** Told about a download as it goes (chainvisor draws a bar or logs lines; the proposer's check shows nothing). */
export interface Progress {
  update(bytes: number): void;
  /** ok = the download completed (a failed one leaves the bar where it stopped) */
  done(ok: boolean): void;
}

export const MAX_REDIRECTS = 5;
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** The innermost cause of a fetch failure (undici wraps socket errors in TypeError('fetch failed')). */
function causeOf(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return errorMessage(e);
}

/** A duration as the settings write it: 60s, 300ms. */
function showMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * Aborts a request when `ms` pass with nothing received. A server that accepts the connection and then
 * goes silent would otherwise hold the halted validator for undici's 5-minute idle timeouts, with a
 * cryptic message; this says what happened, after the operator's DAEMON_DOWNLOAD_STALL_TIMEOUT.
 * The owner must call stop() on every exit path, so no timer outlives the request.
 */
export class Stall {
  /** true once the timer fired: the abort that follows is a stall, not some other failure */
  fired = false;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    readonly ms: number,
    private readonly ac: AbortController,
  ) {}
  /** (Re)starts the count: before the request, on each response and on each body chunk. */
  kick(): void {
    // refresh() re-arms the same timer: cheaper than a new one per chunk
    if (this.timer) this.timer.refresh();
    else {
      this.timer = setTimeout(() => {
        this.fired = true;
        this.ac.abort();
      }, this.ms);
    }
  }
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
  /** The 'stalled' error for a request that got no answer at all. */
  noResponse(url: URL): FetchError {
    return new FetchError('stalled', `download of ${displayUrl(url)} stalled: no response for ${showMs(this.ms)}`);
  }
  /** The 'stalled' error for a body that stopped arriving. */
  noData(shown: string, received: number, total: number | null): FetchError {
    const of = total === null ? '' : ` of ${total}`;
    return new FetchError('stalled', `download of ${shown} stalled: no data for ${showMs(this.ms)} (received ${received}${of} bytes)`);
  }
}

export interface Opened {
  readonly res: Response;
  readonly url: URL;
}

/**
 * GETs `url`, following at most MAX_REDIRECTS redirects. Every hop must pass the same scheme policy as
 * the first URL, a redirect to a loopback or private address is refused unless a loopback mirror is allowed,
 * and an https → http downgrade is refused unless insecure http is allowed. Non-2xx
 * final answers are 'http-status' errors. With `stall` (whose controller aborts `signal`), a hop that gets no
 * answer within its timeout is 'stalled'; each answer restarts the count.
 */
export async function openUrl(url: URL, policy: HttpPolicy, signal: AbortSignal, stall?: Stall): Promise<Opened> {
  let current = url;
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(current, { redirect: 'manual', signal, headers: { 'accept-encoding': 'identity' } });
    } catch (err) {
      if (stall?.fired) throw stall.noResponse(current);
      throw new FetchError('network', `download of ${displayUrl(current)} failed: ${causeOf(err)}`);
    }
    stall?.kick();
    if (REDIRECT.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      const loc = res.headers.get('location');
      if (!loc) throw new FetchError('redirect', `download of ${displayUrl(current)} failed: HTTP ${res.status} redirect without a Location header`);
      if (hop >= MAX_REDIRECTS) {
        throw new FetchError('redirect', `download of ${displayUrl(url)} failed: more than ${MAX_REDIRECTS} redirects`);
      }
      let next: URL;
      try {
        next = new URL(loc, current);
      } catch {
        throw new FetchError('redirect', `refusing redirect from ${displayUrl(current)} to ${quote(loc)}: not a valid URL`);
      }
      let why = schemeRefusal(next, policy) ?? redirectTargetRefusal(next, policy);
      if (!why && current.protocol === 'https:' && next.protocol === 'http:' && !policy.allowInsecureHttp) {
        why = 'downgrade from https to plain http is not allowed';
      }
      if (why) throw new FetchError('redirect', `refusing redirect from ${displayUrl(current)} to ${displayUrl(next)}: ${why}`);
      current = next;
      continue;
    }
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => {});
      throw new FetchError('http-status', `download of ${displayUrl(current)} failed: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
    }
    return { res, url: current };
  }
}

/** The announced body length, or null when absent or not a plain decimal. */
function contentLength(res: Response): number | null {
  const v = res.headers.get('content-length');
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v.trim()) : null;
}

export interface Downloaded {
  readonly bytes: number;
  readonly sha256: string;
  /** hex digest with the checksum's algorithm (= sha256 when that is the algorithm or there is none) */
  readonly digest: string;
  readonly downloadMs: number;
  /** time spent hashing, inside downloadMs (the hash is computed while streaming) */
  readonly hashMs: number;
}

export interface DownloadOptions {
  readonly allowInsecureHttp: boolean;
  readonly allowLoopbackHttp: boolean;
  readonly loopbackSetting?: string;
  readonly maxBytes: number;
  readonly stallTimeoutMs: number;
  readonly algo: 'sha256' | 'sha512';
  readonly progress: (total: number | null) => Progress;
}

const FLUSH_AT = 1 << 20; // write in ~1 MiB batches, overlapping the disk write with the next reads

/**
 * Streams the body of `url` to `file`, hashing as it goes. Aborts early with 'too-large' past maxBytes
 * (before reading anything when Content-Length already says so); an early end or dropped connection is
 * 'truncated'; no response, or no body data, for stallTimeoutMs is 'stalled'.
 */
export async function downloadTo(url: URL, file: string, o: DownloadOptions): Promise<Downloaded> {
  const ac = new AbortController();
  const stall = new Stall(o.stallTimeoutMs, ac);
  const t0 = performance.now();
  stall.kick();
  try {
    return await streamTo(url, file, o, ac, stall, t0);
  } finally {
    stall.stop();
  }
}

async function streamTo(url: URL, file: string, o: DownloadOptions, ac: AbortController, stall: Stall, t0: number): Promise<Downloaded> {
  const { res, url: finalUrl } = await openUrl(url, o, ac.signal, stall);
  const shown = displayUrl(finalUrl);
  const total = contentLength(res);
  if (total !== null && total > o.maxBytes) {
    ac.abort();
    throw new FetchError('too-large', `download of ${shown} refused: ${total} bytes announced, over the ${o.maxBytes}-byte limit`);
  }
  const body = res.body;
  if (!body) throw new FetchError('truncated', `download of ${shown} returned no body`);

  const sha256 = createHash('sha256');
  const other: Hash | null = o.algo === 'sha256' ? null : createHash(o.algo);
  const progress = o.progress(total);
  const fh = await open(file, 'w');
  let received = 0;
  let hashMs = 0;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  let pending: Promise<void> = Promise.resolve();
  // a failed write (disk full) is kept here, not left as a rejected promise: the loop may be waiting on the
  // network when it fails, and an unobserved rejection would kill the process
  let writeError: FetchError | undefined;
  let ok = false;
  const flush = async (): Promise<void> => {
    await pending;
    if (writeError) throw writeError;
    const chunks = batch;
    batch = [];
    batchBytes = 0;
    pending = fh.writev(chunks).then(
      () => undefined,
      (err: unknown) => {
        writeError = new FetchError('io', `writing ${file} failed: ${causeOf(err)}`);
      },
    );
  };
  try {
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        if (writeError) {
          ac.abort();
          throw writeError;
        }
        received += chunk.byteLength;
        if (received > o.maxBytes) {
          ac.abort();
          throw new FetchError('too-large', `download of ${shown} aborted: more than the ${o.maxBytes}-byte limit received`);
        }
        const h0 = performance.now();
        sha256.update(chunk);
        other?.update(chunk);
        hashMs += performance.now() - h0;
        batch.push(chunk);
        batchBytes += chunk.byteLength;
        if (batchBytes >= FLUSH_AT) {
          // a slow disk is not a silent server: the count pauses while we wait for our own write
          stall.stop();
          await flush();
        }
        progress.update(received);
        stall.kick();
      }
    } catch (err) {
      if (err instanceof FetchError) throw err;
      if (stall.fired) throw stall.noData(shown, received, total);
      const of = total === null ? '' : ` of ${total}`;
      throw new FetchError('truncated', `download of ${shown} was cut short: received ${received}${of} bytes (${causeOf(err)})`);
    }
    stall.stop();
    if (total !== null && received !== total) {
      throw new FetchError('truncated', `download of ${shown} was cut short: received ${received} of ${total} bytes`);
    }
    await flush();
    await pending;
    if (writeError) throw writeError;
    ok = true;
  } finally {
    progress.done(ok);
    await pending;
    await fh.close();
  }
  const h0 = performance.now();
  const sha = sha256.digest('hex');
  const digest = other ? other.digest('hex') : sha;
  hashMs += performance.now() - h0;
  return { bytes: received, sha256: sha, digest, downloadMs: performance.now() - t0, hashMs };
}
