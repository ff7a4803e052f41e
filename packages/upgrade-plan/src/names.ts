/** Why `name` is not a safe single folder/file name, or undefined when it is. */
export function checkFolderName(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name === '.' || name === '..') return `${JSON.stringify(name)} is not a folder name`;
  if (name.includes('/') || name.includes('\\')) return `${JSON.stringify(name)} contains a path separator`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return `${JSON.stringify(name)} contains a control character`;
  if (Buffer.byteLength(name, 'utf8') > 128) return `is ${Buffer.byteLength(name, 'utf8')} bytes long, the limit is 128`;
  return undefined;
}
