import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `<home>/data/upgrade-info.json`: what the old binary leaves for the sidecar and for the new binary. */
export interface UpgradeInfo {
  readonly name: string;
  readonly height: bigint;
  readonly info: string;
}

export const UPGRADE_INFO_FILE = 'upgrade-info.json';

export function upgradeInfoPath(home: string): string {
  return join(home, 'data', UPGRADE_INFO_FILE);
}

/** The file's exact bytes: `height` a JSON number, `time` the zero time, as the Cosmos SDK writes it. */
export function encodeUpgradeInfo(u: UpgradeInfo): string {
  // built by hand so a bigint height is written exactly, as a number
  return `{"name":${JSON.stringify(u.name)},"time":"0001-01-01T00:00:00Z","height":${u.height.toString()},"info":${JSON.stringify(u.info)}}`;
}

/**
 * Writes the file atomically: temp file, fsync, rename, fsync of the folder — so a reader (chainvisor)
 * never sees half a file, and a crash right after the halt cannot lose it.
 */
export function writeUpgradeInfo(path: string, u: UpgradeInfo): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, encodeUpgradeInfo(u));
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

export class UpgradeInfoError extends Error {
  override readonly name = 'UpgradeInfoError';
}

/** Reads the file; undefined when absent. A malformed file is an error naming it, never ignored. */
export function readUpgradeInfo(path: string): UpgradeInfo | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UpgradeInfoError(`cannot read ${path}: ${(e as Error).message}`);
  }
  const bad = (why: string): UpgradeInfoError => new UpgradeInfoError(`malformed upgrade info file ${path}: ${why}`);
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw bad(`not JSON (${(e as Error).message})`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw bad('expected a JSON object');
  const r = o as Record<string, unknown>;
  if (typeof r.name !== 'string' || r.name.length === 0) throw bad('"name" must be a non-empty string');
  // cosmovisor also accepts a numeric string; a number must be exact (heights stay far below 2^53)
  let height: bigint;
  if (typeof r.height === 'number' && Number.isSafeInteger(r.height)) height = BigInt(r.height);
  else if (typeof r.height === 'string' && /^\d+$/.test(r.height)) height = BigInt(r.height);
  else throw bad('"height" must be a positive integer');
  if (height <= 0n) throw bad('"height" must be a positive integer');
  if (r.info !== undefined && typeof r.info !== 'string') throw bad('"info" must be a string');
  return { name: r.name, height, info: (r.info as string | undefined) ?? '' };
}
