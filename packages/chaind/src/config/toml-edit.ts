// One setting changed in a TOML file chaind wrote, keeping its comments and order (smol-toml renders the
// value): `chaind testnet init` sets the ports and peers of each home's config.toml and app.toml this way.
import { stringify } from 'smol-toml';

export type TomlValue = string | number | boolean;

/** `key = value` in `[section]` ('' = the top level): the line replaced, or added at the section's end (the section too). */
export function setTomlValue(text: string, section: string, key: string, value: TomlValue): string {
  const line = stringify({ [key]: value }).trim();
  const lines = text.split('\n');
  const header = (l: string): boolean => /^\s*\[/.test(l);
  const start = section === '' ? 0 : lines.findIndex((l) => l.trim() === `[${section}]`) + 1;
  if (section !== '' && start === 0) return `${text.trimEnd()}\n\n[${section}]\n${line}\n`;
  let end = lines.findIndex((l, i) => i >= start && header(l));
  if (end < 0) end = lines.length;
  const keyRe = new RegExp(`^\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=`);
  const at = lines.findIndex((l, i) => i >= start && i < end && keyRe.test(l));
  if (at >= 0) {
    lines[at] = line;
    return lines.join('\n');
  }
  // before the blank lines that end the section
  let insert = end;
  while (insert > start && lines[insert - 1].trim() === '') insert--;
  lines.splice(insert, 0, line);
  return lines.join('\n');
}
