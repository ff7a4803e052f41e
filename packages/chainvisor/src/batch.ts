// Batch upgrades (cosmovisor v1.6+): `add-batch-upgrade` installs several releases and writes
// data/upgrade-info.json.batch, a JSON array of upgrade-info objects; `run` moves its lowest entry into
// data/upgrade-info.json while the node is below that height, so the usual upgrade-info.json path carries it out.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { encodeUpgradeInfo, parseUpgradeInfo, type UpgradeInfo } from '@chaind/upgrade-plan';
import { ChainvisorError, EXIT } from './exit-codes.ts';
import { syncDirSync, syncFileSync } from './fsync.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

/** Beside data/upgrade-info.json, as cosmovisor names it. */
export const BATCH_FILE_SUFFIX = '.batch';

export function batchFilePath(upgradeInfoFile: string): string {
  return upgradeInfoFile + BATCH_FILE_SUFFIX;
}

/** One requested upgrade: `name`, the release at `path`, at `height`. */
export interface BatchEntry {
  readonly name: string;
  readonly path: string;
  readonly height: bigint;
}

/** A bad `--upgrade-list` item or `--upgrade-file` line (exit code 2: nothing was written). */
function bad(where: string, why: string): ChainvisorError {
  return new ChainvisorError(EXIT.CONFIG, `${where}: ${why}; nothing installed`);
}

function entry(where: string, fields: readonly string[], form: string): BatchEntry {
  if (fields.length !== 3) throw bad(where, `expected ${form}, got ${fields.length} field${fields.length === 1 ? '' : 's'}`);
  const [name, path, height] = fields;
  if (name === '') throw bad(where, 'the upgrade name is empty');
  if (path === '') throw bad(where, 'the path is empty');
  if (!/^\d+$/.test(height) || BigInt(height) <= 0n || BigInt(height) > 2n ** 63n - 1n)
    throw bad(where, `the height must be a positive integer, got ${JSON.stringify(height)}`);
  return { name, path, height: BigInt(height) };
}

/** `--upgrade-list name:path:height,name:path:height…` (the path may not hold `:` or `,`, as in cosmovisor). */
export function parseUpgradeList(list: string): BatchEntry[] {
  const items = list.split(',');
  return items.map((item, i) => entry(`--upgrade-list item ${i + 1} (${JSON.stringify(item)})`, item.split(':'), 'name:path:height'));
}

/**
 * Splits CSV text into records as Go's encoding/csv does for cosmovisor: `"…"` quoting with `""` for a quote,
 * blank lines skipped, leading spaces of a field trimmed. Returns each record with its 1-based line number.
 */
export function splitCsv(text: string): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let blank = true;
    for (;;) {
      while (text[i] === ' ' || text[i] === '\t') i++;
      let f = '';
      if (text[i] === '"') {
        blank = false;
        i++;
        for (;;) {
          if (i >= text.length) throw new ChainvisorError(EXIT.CONFIG, `line ${start}: a quoted field is not closed; nothing installed`);
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              f += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (text[i] === '\n') line++;
          f += text[i++];
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r')
          throw new ChainvisorError(EXIT.CONFIG, `line ${line}: extraneous text after a quoted field; nothing installed`);
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) f += text[i++];
        if (f !== '') blank = false;
      }
      fields.push(f);
      if (text[i] === ',') {
        blank = false;
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    if (!blank) out.push({ line: start, fields });
  }
  return out;
}

/** `--upgrade-file`: a headerless CSV file of `name,path,height` lines. */
export function parseUpgradeCsv(text: string, file: string): BatchEntry[] {
  let records;
  try {
    records = splitCsv(text);
  } catch (e) {
    if (e instanceof ChainvisorError) throw new ChainvisorError(EXIT.CONFIG, `${file} ${e.message}`);
    throw e;
  }
  if (records.length === 0) throw bad(file, 'no upgrades in it');
  return records.map((r) => entry(`${file} line ${r.line}`, r.fields, 'name,path,height'));
}

/** Refuses a batch naming one upgrade folder or one height twice. `folderOf` maps a name to its folder. */
export function checkBatch(entries: readonly BatchEntry[], folderOf: (name: string) => string): string[] {
  const folders = new Map<string, string>();
  const heights = new Map<bigint, string>();
  return entries.map((e) => {
    const folder = folderOf(e.name);
    const other = folders.get(folder);
    if (other !== undefined)
      throw new ChainvisorError(
        EXIT.CONFIG,
        `upgrades ${JSON.stringify(other)} and ${JSON.stringify(e.name)} both map to the folder upgrades/${folder}; nothing installed`,
      );
    const at = heights.get(e.height);
    if (at !== undefined)
      throw new ChainvisorError(EXIT.CONFIG, `upgrades ${JSON.stringify(at)} and ${JSON.stringify(e.name)} are both at height ${e.height}; nothing installed`);
    folders.set(folder, e.name);
    heights.set(e.height, e.name);
    return folder;
  });
}

/** The batch file's text: the upgrade-info objects in the form the node writes upgrade-info.json. */
export function encodeBatch(infos: readonly UpgradeInfo[]): string {
  return infos.length === 0 ? '[]\n' : `[\n${infos.map((u) => '  ' + encodeUpgradeInfo(u)).join(',\n')}\n]\n`;
}

/**
 * The batch file's rule: a JSON array whose elements each pass the upgrade-info.json rule; returned sorted by height
 * (as cosmovisor sorts it). `null` (what cosmovisor writes for an empty batch) is an empty batch.
 */
export function parseBatch(text: string): { ok: true; infos: UpgradeInfo[] } | { ok: false; why: string } {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    return { ok: false, why: `not JSON (${errorMessage(e)})` };
  }
  if (o === null) return { ok: true, infos: [] };
  if (!Array.isArray(o)) return { ok: false, why: 'expected a JSON array of upgrade-info objects' };
  const infos: UpgradeInfo[] = [];
  for (const [i, el] of (o as unknown[]).entries()) {
    const r = parseUpgradeInfo(JSON.stringify(el));
    if (r.state !== 'ok') return { ok: false, why: `entry ${i + 1}: ${r.why}` };
    infos.push({ name: r.info.name, height: r.info.height, info: r.info.info });
  }
  infos.sort((a, b) => (a.height < b.height ? -1 : a.height > b.height ? 1 : 0));
  return { ok: true, infos };
}

export type BatchRead =
  | { readonly state: 'absent' }
  | { readonly state: 'invalid'; readonly why: string }
  | { readonly state: 'ok'; readonly infos: UpgradeInfo[] };

export function readBatch(path: string): BatchRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { state: 'absent' };
    return { state: 'invalid', why: `cannot read: ${errorMessage(e)}` };
  }
  const r = parseBatch(text);
  return r.ok ? { state: 'ok', infos: r.infos } : { state: 'invalid', why: r.why };
}

/** Writes the batch file atomically: a flushed temp file renamed over it, then the folder flushed. */
export function writeBatch(path: string, infos: readonly UpgradeInfo[]): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, encodeBatch(infos), { mode: 0o600 });
  syncFileSync(tmp);
  renameSync(tmp, path);
  syncDirSync(dirname(path));
}
