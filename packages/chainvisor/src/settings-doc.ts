// docs/chainvisor.md's settings table, made from SETTINGS: the docs never restate a setting by hand.
import { SETTINGS, type Setting } from './config.ts';

export const TABLE_BEGIN = '<!-- the settings table: generated from SETTINGS in packages/chainvisor/src/config.ts by `npm run docs:settings` -->';
export const TABLE_END = '<!-- end of the settings table -->';

const shownDefault = (s: Setting): string => (s.def === undefined ? 'required' : s.def === '' ? '""' : s.def);

/** The Markdown table: variable, default, meaning, how it compares with cosmovisor. */
export function settingsTable(settings: readonly Setting[] = SETTINGS): string {
  const rows = settings.map((s) => `| ${s.env} | ${shownDefault(s)} | ${s.doc} | ${s.cosmovisor} |`);
  return ['| variable | default | meaning | vs cosmovisor |', '|---|---|---|---|', ...rows].join('\n');
}

/** `markdown` with the table between its markers replaced by the generated one; throws when the markers are missing. */
export function withSettingsTable(markdown: string, settings: readonly Setting[] = SETTINGS): string {
  const begin = markdown.indexOf(TABLE_BEGIN);
  const end = markdown.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`the settings table's markers are missing: ${TABLE_BEGIN} … ${TABLE_END}`);
  return `${markdown.slice(0, begin + TABLE_BEGIN.length)}\n${settingsTable(settings)}\n${markdown.slice(end)}`;
}
