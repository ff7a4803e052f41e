// docs/operator-guide.md's config.toml and app.toml tables are the ones NODE_SETTINGS and APP_SETTINGS make.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_TABLES, withConfigTables } from './settings-doc.ts';

const GUIDE = new URL('../../../../docs/operator-guide.md', import.meta.url);

test('docs/operator-guide.md lists every config.toml and app.toml key as the tables declare it (regenerate with `npm run docs:settings`)', () => {
  const doc = readFileSync(GUIDE, 'utf8');
  assert.equal(doc, withConfigTables(doc), 'docs/operator-guide.md is behind NODE_SETTINGS / APP_SETTINGS: run `npm run docs:settings`');
});

test('a table whose markers are gone is an error naming them, not a table written somewhere else', () => {
  const [node] = CONFIG_TABLES;
  assert.throws(() => withConfigTables(`# guide\n${node.begin}\n`), { message: `a settings table's markers are missing: ${node.begin} … ${node.end}` });
});
