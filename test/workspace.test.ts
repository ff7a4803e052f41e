// The workspace as a newcomer meets it: the bins that `npm ci` installs. That `npm run lint` passes on the
// repository is checked by test/new-upgrade.test.ts, on a copy that also holds a freshly scaffolded upgrade.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInGroup } from '@chaind/chaind/testing';

// a bound for a hang, not a speed
const run = (cmd: string, args: string[]) => runInGroup(cmd, args, { timeoutMs: 120_000 });

test('npx chaind and npx chainvisor run from the workspace', async () => {
  const c = await run('npx', ['--no-install', 'chaind', 'version', '-o', 'json']);
  assert.equal(c.code, 0, c.stderr);
  // the release name, as Cosmos binaries print their tag
  assert.match(JSON.parse(c.stdout).version, /^v\d+$/);
  // cosmovisor's form; the daemon's version needs DAEMON_HOME and DAEMON_NAME
  const v = await run('npx', ['--no-install', 'chainvisor', 'version', '--cosmovisor-only']);
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout.trim(), /^chainvisor version: \d+\.\d+\.\d+$/);
  const bad = await run('npx', ['--no-install', 'chaind', 'no-such-command']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /unknown command 'no-such-command'/);
});
