// `npm run rehearse` as a test: the packaged v1 and v2 releases, chainvisor, a governance upgrade, the
// halt, the download and switch, v2's handler and the chain continuing (issue 6). The script checks
// each step itself and ends with "rehearsal: OK"; here its output is checked for what a user reads.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../scripts/rehearse.ts', import.meta.url));

test('npm run rehearse: v1 → v2 under chainvisor, end to end', { timeout: 330_000 }, async () => {
  // a process group, killed whole at the end: a hung rehearsal must not leave a node holding the runner open
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const killGroup = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  const timer = setTimeout(killGroup, 300_000);
  let code: number | null;
  try {
    code = await new Promise<number | null>((res) => child.once('exit', res));
  } finally {
    clearTimeout(timer);
    killGroup();
  }
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(code, 0, out.slice(-6000));
  assert.match(out, /rehearsal: OK\s*$/);
  const h = /proposing upgrade v2 at height (\d+)/.exec(out)?.[1];
  assert.ok(h, 'the proposal names its height');
  // the halt, the prepared release, the switch, the handler at that height, the summary
  assert.match(out, new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`));
  assert.match(out, /release v2 ready|downloaded \d+ bytes/);
  assert.match(out, /sha256 verified/);
  assert.match(out, /current -> upgrades\/v2/);
  assert.match(out, new RegExp(`applying upgrade "v2" at height: ${h}`));
  assert.match(out, new RegExp(`upgrade v2 at height ${h} done: downtime [0-9.]+m?s`));
  // the queries afterwards: the block record of the height, the new versions, the stores
  assert.match(out, new RegExp(`"height": "${h}"`));
  assert.match(out, /- name: chaininfo\n\s+version: "1"/);
  assert.match(out, /- name: validators\n\s+version: "2"/);
  assert.match(out, /\/store\/valset\/key 0x03 \(validators v2: total power, migrated\): 000000000000000a/);
  assert.match(out, /\/store\/validators\/key 0x03 \(the old name\): code 6: unknown store "validators"/);
});
