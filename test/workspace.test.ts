// The workspace as a newcomer meets it: the bins that `npm ci` installs, the type-check and the linter.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

// a bound for a hang, not a speed: lint (tsc, eslint, prettier) takes minutes beside the rest of the suite
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 600_000 });

test('npx chaind and npx chainvisor run from the workspace', () => {
  const c = run('npx', ['--no-install', 'chaind', 'version', '-o', 'json']);
  assert.equal(c.status, 0, c.stderr);
  // the release name, as Cosmos binaries print their tag
  assert.match(JSON.parse(c.stdout).version, /^v\d+$/);
  // cosmovisor's form; the daemon's version needs DAEMON_HOME and DAEMON_NAME
  const v = run('npx', ['--no-install', 'chainvisor', 'version', '--cosmovisor-only']);
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout.trim(), /^chainvisor version: \d+\.\d+\.\d+$/);
  const bad = run('npx', ['--no-install', 'chaind', 'no-such-command']);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /unknown command 'no-such-command'/);
});

test('npm run lint passes: strict type-check, eslint (no `any`, explicit exported types) and the format', () => {
  const r = run('npm', ['run', '--silent', 'lint']);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});
