import { UpgradeNameError } from './errors.ts';

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

/** The refusal of an upgrade folder name, or undefined when it is safe. */
export function unsafeUpgradeName(folder: string): string | undefined {
  const why = folderNameProblem(folder);
  return why === undefined ? undefined : `unsafe upgrade name: ${JSON.stringify(folder)} ${why}`;
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
  return other === undefined ? undefined : `unsafe upgrade name: folder ${JSON.stringify(folder)} collides with the existing upgrades/${other} (the same folder on a case-insensitive file system)`;
}

/** The folder of upgrade `name` under upgrades/: lower-cased (cosmovisor's convention) unless recase is disabled; refused when unsafe. */
export function upgradeFolderName(name: string, disableRecase = false): string {
  const folder = disableRecase ? name : name.toLowerCase();
  const unsafe = unsafeUpgradeName(folder);
  if (unsafe !== undefined) throw new UpgradeNameError(unsafe);
  return folder;
}
