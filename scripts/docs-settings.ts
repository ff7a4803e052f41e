// npm run docs:settings: rewrites the settings tables generated from their declarations: docs/chainvisor.md's from
// SETTINGS (packages/chainvisor/src/config.ts), docs/operator-guide.md's config.toml and app.toml tables from
// NODE_SETTINGS and APP_SETTINGS (packages/chaind/src/config/).
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTables } from '@chaind/chaind/settings-doc';
import { withSettingsTable } from '@chaind/chainvisor/settings-doc';

for (const [doc, regenerate] of [
  ['chainvisor.md', withSettingsTable],
  ['operator-guide.md', withConfigTables],
] as const) {
  const file = new URL(`../docs/${doc}`, import.meta.url);
  const before = readFileSync(file, 'utf8');
  const after = regenerate(before);
  writeFileSync(file, after);
  console.log(before === after ? `docs/${doc}: the settings tables were current` : `docs/${doc}: the settings tables rewritten`);
}
