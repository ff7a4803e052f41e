// npm run docs:settings: rewrites docs/chainvisor.md's settings table from SETTINGS (packages/chainvisor/src/config.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '@chaind/chainvisor/settings-doc';

const file = new URL('../docs/chainvisor.md', import.meta.url);
const before = readFileSync(file, 'utf8');
const after = withSettingsTable(before);
writeFileSync(file, after);
console.log(before === after ? 'docs/chainvisor.md: the settings table was current' : 'docs/chainvisor.md: the settings table rewritten');
