import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UpgradeInfoError } from './errors.ts';
import { UpgradeNameError } from './errors.ts';
import { leftoversIn } from './leftovers.ts';
import { upgradeFolderName } from './names.ts';
import { clip, quote } from './quote.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

/**
 * `<home>/data/upgrade-info.json`: what the old binary leaves at the halt, for chainvisor and for the new binary:
 * `{"name":"v2","time":"0001-01-01T00:00:00Z","height":20,"info":"..."}` (height: a number or a numeric string).
 */
export interface UpgradeInfo {
  readonly name: string;
  readonly height: bigint;
  readonly info: string;
}

/** As read from a file, with the file's exact text (chainvisor copies it to upgrades/<name>/upgrade-info.json). */
export interface UpgradeInfoFile extends UpgradeInfo {
  readonly raw: string;
}

export const UPGRADE_INFO_FILE = 'upgrade-info.json';

export function upgradeInfoPath(home: string): string {
  return join(home, 'data', UPGRADE_INFO_FILE);
}

/**
 * The largest upgrade-info.json read. A plan arrives in a tx (mempool max_tx_bytes, 1 MiB by default) and JSON
 * escaping can grow its info at most sixfold, so the node never writes a file near this; a larger file (a
 * broken release, a mixed-up disk) is refused rather than read whole — chainvisor rereads it every poll.
 */
export const DEFAULT_UPGRADE_INFO_MAX_BYTES = 16 * 1024 * 1024;

/** How much of the file a reader takes. */
export interface UpgradeInfoLimit {
  readonly maxBytes: number;
  /** the setting that sets maxBytes, named in a refusal (chainvisor: DAEMON_UPGRADE_INFO_MAX_BYTES) */
  readonly setting?: string;
}

const DEFAULT_LIMIT: UpgradeInfoLimit = { maxBytes: DEFAULT_UPGRADE_INFO_MAX_BYTES };

/** The largest height: Cosmos heights are int64. */
const MAX_HEIGHT = (1n << 63n) - 1n;

/**
 * The file's exact bytes: `height` a JSON number, `time` the zero time, as the Cosmos SDK writes it. A height
 * past 2^53 is written as a numeric string (which cosmovisor also reads): JSON.parse would round the number,
 * and the new binary would refuse the file its predecessor wrote.
 */
export function encodeUpgradeInfo(u: UpgradeInfo): string {
  const h = u.height.toString();
  const height = u.height > BigInt(Number.MAX_SAFE_INTEGER) ? `"${h}"` : h;
  return `{"name":${JSON.stringify(u.name)},"time":"0001-01-01T00:00:00Z","height":${height},"info":${JSON.stringify(u.info)}}`;
}

/**
 * Writes the file atomically: temp file, fsync, rename, fsync of the folder — so a reader (chainvisor)
 * never sees half a file, and a crash right after the halt cannot lose it. A file read earlier
 * (`UpgradeInfoFile`) is written back with its exact text.
 */
export function writeUpgradeInfo(path: string, u: UpgradeInfo | UpgradeInfoFile): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  // a writer killed before its rename left its temp file: nothing reads it, so it would stay forever
  for (const n of leftoversIn(dir, `${basename(path)}.tmp-`)) rmSync(join(dir, n), { force: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, 'raw' in u ? u.raw : encodeUpgradeInfo(u));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/**
 * - incomplete: not (yet) parseable JSON — maybe being written; a reader that polls retries, never acts on it
 * - invalid: complete JSON that fails validation (final: a half-written file cannot parse)
 * - ok: complete and valid
 */
export type ParseResult =
  | { readonly state: 'incomplete'; readonly why: string }
  | { readonly state: 'invalid'; readonly why: string }
  | { readonly state: 'ok'; readonly info: UpgradeInfoFile };

/** ParseResult, or absent: no file. */
export type ReadResult = { readonly state: 'absent' } | ParseResult;

/** The fields' rules. The name is not checked as a folder name here: the node never makes one of it. */
function parseFields(text: string): ParseResult {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    return { state: 'incomplete', why: `not complete JSON (${clip(errorMessage(e))})` };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { state: 'invalid', why: 'expected a JSON object' };
  const r = o as Record<string, unknown>;
  if (typeof r.name !== 'string' || r.name.length === 0) return { state: 'invalid', why: '"name" must be a non-empty string' };
  // cosmovisor also accepts a numeric string; a number must be exact (heights stay far below 2^53)
  let height: bigint | undefined;
  if (typeof r.height === 'number' && Number.isSafeInteger(r.height)) height = BigInt(r.height);
  else if (typeof r.height === 'string' && /^\d+$/.test(r.height)) height = BigInt(r.height);
  if (height === undefined || height <= 0n || height > MAX_HEIGHT)
    return { state: 'invalid', why: `"height" must be a positive integer, got ${quote(r.height)}` };
  if (r.info !== undefined && typeof r.info !== 'string') return { state: 'invalid', why: '"info" must be a string' };
  return { state: 'ok', info: { name: r.name, height, info: r.info ?? '', raw: text } };
}

/** The file's text as chainvisor takes it: the fields' rules, and a name that maps to a usable folder. */
export function parseUpgradeInfo(text: string): ParseResult {
  const r = parseFields(text);
  if (r.state !== 'ok') return r;
  try {
    upgradeFolderName(r.info.name);
  } catch (e) {
    if (e instanceof UpgradeNameError) return { state: 'invalid', why: e.message };
    throw e;
  }
  return r;
}

type Text = { readonly text: string } | { readonly absent: true } | { readonly error: string } | { readonly tooLarge: number };

const CHUNK = 64 * 1024;

/**
 * The file's text, at most `maxBytes`: the size is checked before reading, and at most one byte past the limit is
 * read, so a file that grows while being read is caught too (tooLarge: the bytes seen, at least).
 */
function readText(path: string, maxBytes: number): Text {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { absent: true };
    return { error: errorMessage(e) };
  }
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) return { tooLarge: size };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const b = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const n = readSync(fd, b, 0, b.length, null);
      if (n === 0) break;
      chunks.push(b.subarray(0, n));
      total += n;
      if (total > maxBytes) return { tooLarge: Math.max(total, size) };
    }
    return { text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (e) {
    return { error: errorMessage(e) };
  } finally {
    closeSync(fd);
  }
}

function tooLargeWhy(size: number, limit: UpgradeInfoLimit): string {
  return `it is ${size} bytes, over the limit of ${limit.maxBytes} bytes${limit.setting ? ` (set by ${limit.setting})` : ''}: not an upgrade the node wrote (a broken release or a wrong file?)`;
}

/**
 * For a reader that polls while the node may be writing (chainvisor): a file that cannot be read, or
 * does not parse yet, is incomplete rather than an error.
 */
export function readUpgradeInfoFile(path: string, limit: UpgradeInfoLimit = DEFAULT_LIMIT): ReadResult {
  const t = readText(path, limit.maxBytes);
  if ('absent' in t) return { state: 'absent' };
  // final, as an invalid file: the node replaces the file by a rename, never grows it
  if ('tooLarge' in t) return { state: 'invalid', why: tooLargeWhy(t.tooLarge, limit) };
  if ('error' in t) return { state: 'incomplete', why: `cannot read: ${t.error}` };
  return parseUpgradeInfo(t.text);
}

/** For the node at start-up: undefined when absent. A malformed file is an error naming it, never ignored. */
export function readUpgradeInfo(path: string, limit: UpgradeInfoLimit = DEFAULT_LIMIT): UpgradeInfo | undefined {
  const t = readText(path, limit.maxBytes);
  if ('absent' in t) return undefined;
  if ('tooLarge' in t) throw new UpgradeInfoError(`upgrade info file ${path} refused: ${tooLargeWhy(t.tooLarge, limit)}`);
  if ('error' in t) throw new UpgradeInfoError(`cannot read ${path}: ${t.error}`);
  const r = parseFields(t.text);
  if (r.state !== 'ok') throw new UpgradeInfoError(`malformed upgrade info file ${path}: ${r.why}`);
  return { name: r.info.name, height: r.info.height, info: r.info.info };
}
