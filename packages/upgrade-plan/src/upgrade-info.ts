import { readFileSync } from 'node:fs';
import { checkFolderName } from './names.ts';

/**
 * data/upgrade-info.json, the one thing chainvisor shares with the node:
 * `{"name":"v2","time":"0001-01-01T00:00:00Z","height":20,"info":"..."}` (height: a number or a numeric string).
 */
export interface UpgradeInfo {
  readonly name: string;
  readonly height: bigint;
  readonly info: string;
  /** the file's exact text, copied to upgrades/<name>/upgrade-info.json */
  readonly raw: string;
}

/**
 * - absent: no file
 * - incomplete: not (yet) parseable JSON — maybe being written; retried on the next event or poll, never acted on
 * - invalid: complete JSON that fails validation (final: a half-written file cannot parse)
 * - ok: complete and valid
 */
export type ReadResult =
  | { readonly state: 'absent' }
  | { readonly state: 'incomplete'; readonly why: string }
  | { readonly state: 'invalid'; readonly why: string }
  | { readonly state: 'ok'; readonly info: UpgradeInfo };

export function parseUpgradeInfo(text: string): ReadResult {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    return { state: 'incomplete', why: `not complete JSON (${(e as Error).message})` };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { state: 'invalid', why: 'expected a JSON object' };
  const r = o as Record<string, unknown>;
  if (typeof r.name !== 'string' || r.name.length === 0) return { state: 'invalid', why: '"name" must be a non-empty string' };
  const unsafe = checkFolderName(r.name.toLowerCase());
  if (unsafe) return { state: 'invalid', why: `unsafe upgrade name: ${unsafe}` };
  let height: bigint | undefined;
  if (typeof r.height === 'number' && Number.isSafeInteger(r.height)) height = BigInt(r.height);
  else if (typeof r.height === 'string' && /^\d+$/.test(r.height)) height = BigInt(r.height);
  if (height === undefined || height <= 0n) return { state: 'invalid', why: `"height" must be a positive integer, got ${JSON.stringify(r.height)}` };
  if (r.info !== undefined && typeof r.info !== 'string') return { state: 'invalid', why: '"info" must be a string' };
  return { state: 'ok', info: { name: r.name, height, info: r.info ?? '', raw: text } };
}

export function readUpgradeInfo(path: string): ReadResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'absent' };
    return { state: 'incomplete', why: `cannot read: ${(e as Error).message}` };
  }
  return parseUpgradeInfo(text);
}
