// docs/operator-guide.md is followed literally: within one section every command names the same node
// home (`--home`, `DAEMON_HOME=`), so a reader who copies them all works on one home (issue 31 §11:
// the validator-network section switched from ~/.mynet to ~/.mychain half way).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const GUIDE = new URL('../docs/operator-guide.md', import.meta.url);

test('each section of the operator guide names one node home in its commands', () => {
  const sections = readFileSync(GUIDE, 'utf8').split(/^(?=## )/m);
  const mixed: string[] = [];
  for (const section of sections) {
    const title = section.split('\n', 1)[0];
    // the home's folder name, whichever form it is written in (~/.mynet, /home/chain/.mynet, $HOME/.mynet)
    const homes = new Set([...section.matchAll(/(?:--home[ =]|DAEMON_HOME=)\S*?\/(\.[\w-]+)/g)].map((m) => m[1]));
    if (homes.size > 1) mixed.push(`${title}: ${[...homes].join(', ')}`);
  }
  assert.deepEqual(mixed, []);
});
