// docs/operator-guide.md's tables of config.toml's and app.toml's keys, made from NODE_SETTINGS and
// APP_SETTINGS: the docs never restate a setting by hand.
import { APP_SETTINGS } from './app-settings.ts';
import { NODE_SETTINGS } from './node-settings.ts';
import { settingsTable, type SettingsTable } from './settings.ts';

/** Each generated table: its markers in the guide and the table it is made from. */
export const CONFIG_TABLES: readonly { readonly begin: string; readonly end: string; readonly table: SettingsTable }[] = [
  {
    begin: "<!-- config.toml's keys: generated from NODE_SETTINGS in packages/chaind/src/config/node-settings.ts by `npm run docs:settings` -->",
    end: "<!-- end of config.toml's keys -->",
    table: NODE_SETTINGS,
  },
  {
    begin: "<!-- app.toml's keys: generated from APP_SETTINGS in packages/chaind/src/config/app-settings.ts by `npm run docs:settings` -->",
    end: "<!-- end of app.toml's keys -->",
    table: APP_SETTINGS,
  },
];

/** `markdown` with each table between its markers replaced by the generated one; throws when markers are missing. */
export function withConfigTables(markdown: string): string {
  return CONFIG_TABLES.reduce((md, t) => {
    const begin = md.indexOf(t.begin);
    const end = md.indexOf(t.end);
    if (begin < 0 || end < begin) throw new Error(`a settings table's markers are missing: ${t.begin} … ${t.end}`);
    return `${md.slice(0, begin + t.begin.length)}\n${settingsTable(t.table)}\n${md.slice(end)}`;
  }, markdown);
}
