import { UpgradeNameError } from './errors.ts';
import { clip, quote } from './quote.ts';

/** The longest name, in UTF-8 bytes, that may become a folder under chainvisor's upgrades/. */
export const MAX_NAME_BYTES = 128;

/**
 * Why `name` cannot be a single folder (or file) name, as words that follow the quoted name
 * (`"a/b" must not contain path separators`); undefined when it can. The chain refuses such plan names
 * at submission, chainvisor such upgrade and daemon names, so neither can reach outside its folder.
 */
export function folderNameProblem(name: string): string | undefined {
  if (name.trim().length === 0) return 'is empty';
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes`;
  if (name === '.' || name === '..') return 'is not a valid folder name';
  if (name.includes('/') || name.includes('\\')) return 'must not contain path separators';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'must not contain control characters';
  return undefined;
}

/**
 * A folder name as a case-insensitive file system (macOS's default APFS, Windows) compares it: Unicode NFC,
 * then upper- and lower-cased (so ß and SS, K and the Kelvin sign, fold alike).
 */
export function foldName(name: string): string {
  return name.normalize('NFC').toUpperCase().toLowerCase();
}

/**
 * The refusal of `folder` when it differs from an existing upgrades/ folder only by case (or Unicode form):
 * on a case-insensitive file system they are one folder, so one upgrade would run the other's binary.
 * Undefined when there is no such folder (an exact match is the same upgrade).
 */
export function folderCollision(folder: string, existing: readonly string[]): string | undefined {
  const f = foldName(folder);
  const other = existing.find((e) => e !== folder && foldName(e) === f);
  return other === undefined
    ? undefined
    : `unsafe upgrade name: folder ${quote(folder)} collides with the existing upgrades/${clip(other)} (the same folder on a case-insensitive file system)`;
}

/**
 * Go's strings.ToLower: each code point's simple lower case (JavaScript's toLowerCase of a whole string
 * differs for the dotted capital I and a word-final sigma).
 */
export function goToLower(name: string): string {
  let out = '';
  for (const ch of name) out += ch === '\u0130' ? 'i' : ch.toLowerCase();
  return out;
}

/** Bytes Go's url.PathEscape leaves as they are: unreserved characters, and the reserved ones a path segment may hold. */
const PATH_SEGMENT_SAFE = /^[A-Za-z0-9\-_.~$&+:=@]$/;

/** Go's url.PathEscape: every other UTF-8 byte as %XX (upper-case hex), so a name is one folder name. */
export function goPathEscape(name: string): string {
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && PATH_SEGMENT_SAFE.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The longest folder name most file systems take (NAME_MAX). */
const MAX_FOLDER_BYTES = 255;

/**
 * The folder of upgrade `name` under upgrades/, as cosmovisor names it: lower-cased (unless recase is
 * disabled), then path-escaped, so a name with a space, `%`, `/` or non-ASCII maps to the same folder in
 * both tools. Refused when that is still not a usable folder name ("", ".", "..", too long).
 */
export function upgradeFolderName(name: string, disableRecase = false): string {
  const folder = goPathEscape(disableRecase ? name : goToLower(name));
  const why =
    folder === ''
      ? 'is empty'
      : folder === '.' || folder === '..'
        ? 'is not a valid folder name'
        : folder.length > MAX_FOLDER_BYTES
          ? `is longer than ${MAX_FOLDER_BYTES} bytes once path-escaped`
          : undefined;
  if (why !== undefined) throw new UpgradeNameError(`unsafe upgrade name: ${quote(name)} ${why}`);
  return folder;
}
