import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from './config.ts';
import { settingsTable, TABLE_BEGIN, withSettingsTable } from './settings-doc.ts';

const DOC = new URL('../../../docs/chainvisor.md', import.meta.url);

test('docs/chainvisor.md lists every setting as SETTINGS declares it (regenerate with `npm run docs:settings`)', () => {
  const doc = readFileSync(DOC, 'utf8');
  assert.equal(doc, withSettingsTable(doc), 'docs/chainvisor.md is behind SETTINGS: run `npm run docs:settings`');
});

test("the table's defaults are the ones chainvisor applies: each row's default, read back as that setting, is what an unset one gives", () => {
  const rows = new Map(
    settingsTable()
      .split('\n')
      .slice(2)
      .map((r) => r.split(' | ') as [string, string, ...string[]])
      .map(([env, def]) => [env.slice(2), def]),
  );
  const required = { DAEMON_HOME: '/srv/node', DAEMON_NAME: 'chaind' };
  const unset = loadConfig({ env: required });
  const written = Object.fromEntries(
    [...rows].filter(([env, def]) => def !== 'required' && !env.startsWith('DAEMON_DATA_BACKUP_DIR')).map(([env, def]) => [env, def === '""' ? '' : def]),
  );
  assert.deepEqual({ ...loadConfig({ env: { ...required, ...written } }), warnings: [] }, { ...unset, warnings: [] });
  assert.deepEqual(
    [...rows].filter(([, def]) => def === 'required').map(([env]) => env),
    ['DAEMON_HOME', 'DAEMON_NAME'],
  );
});

test('a table whose markers are gone is an error naming them, not a silently duplicated table', () => {
  assert.throws(() => withSettingsTable('# chainvisor\n'), new RegExp(`markers are missing: ${TABLE_BEGIN.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')}`));
});
