// `npm run rehearse` as a test: the packaged v1 and v2 releases, chainvisor, a governance upgrade, the
// halt, the download and switch, v2's handler and the chain continuing (issue 6). The script checks
// each step itself and ends with "rehearsal: OK"; here its output is checked for what a user reads.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RELEASES } from '@chaind/chaind/release';
import { runInGroup } from '@chaind/chaind/testing';
import { cleanUp, runNode } from './kit/repo.ts';

after(cleanUp);

const SCRIPT = fileURLToPath(new URL('../scripts/rehearse.ts', import.meta.url));

test('npm run rehearse: v1 → v2 under chainvisor, end to end', { timeout: 330_000 }, async () => {
  // a process group, killed whole at the end: a hung rehearsal must not leave a node holding the runner open
  const { code, out } = await runNode(['--import', 'tsx', SCRIPT], { timeoutMs: 300_000 });
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
  // warm start: v2 loaded in standby before the halt, ran pre-upgrade and became the node in that one process
  assert.match(out, /warm start: \S+upgrades\/v2\/bin\/chaind started in standby for the upgrade v2/);
  assert.match(out, /pre-upgrade: upgrade "v2" at height \d+: dry run passed/);
  assert.match(out, /bin\/chaind pre-upgrade \(in the standby\): ok/);
  assert.match(out, /: the standby \(pid \d+\) runs it/);
  // the queries afterwards: the block record of the height, the new versions, the stores
  assert.match(out, new RegExp(`"height": "${h}"`));
  assert.match(out, /- name: chaininfo\n\s+version: "1"/);
  assert.match(out, /- name: validators\n\s+version: "2"/);
  assert.match(out, /\/store\/valset\/key 0x03 \(validators v2: total power, migrated\): 000000000000000a/);
  assert.match(out, /\/store\/validators\/key 0x03 \(the old name\): code 6: unknown store "validators"/);
});

test('npm run rehearse --from/--to: unknown releases and a backward path are refused at once, before any build', async () => {
  const run = (...args: string[]) => runInGroup(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { timeoutMs: 60_000 });
  const unknown = await run('--from', RELEASES[0], '--to', 'v999');
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, new RegExp(`^rehearse: unknown release --to "v999": the releases are ${RELEASES.join(', ')}`));
  assert.match(unknown.stderr, /usage: npm run rehearse -- \[--from <release>\] \[--to <release>\]/);
  const backward = await run('--from', RELEASES[1], '--to', RELEASES[0]);
  assert.equal(backward.code, 2, backward.stderr);
  assert.match(backward.stderr, new RegExp(`^rehearse: --to ${RELEASES[0]} is not after --from ${RELEASES[1]}`));
  // nothing was built or started: the script said nothing but the refusal
  assert.equal(unknown.stdout + backward.stdout, '');
});
