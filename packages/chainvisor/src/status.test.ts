import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createLogger } from './log.ts';
import { statusFileWriter, statusPath, type VisorStatus } from './status.ts';
import { DEAD_PID } from '@chaind/upgrade-plan/testing';

const dir = mkdtempSync(join(tmpdir(), 'chainvisor-status-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const quiet = createLogger({ disabled: true, color: false, timeFormat: 'none' });
const read = (): VisorStatus => JSON.parse(readFileSync(statusPath(dir), 'utf8')) as VisorStatus;

test('status.json follows the states: the plan and its download, then the prepared checksum; running clears them', () => {
  const w = statusFileWriter(statusPath(dir), quiet, 60_000);
  w.state('running');
  assert.equal(read().state, 'running');
  assert.equal(read().plan, null);
  w.state('downloading', { name: 'v2', height: 40n });
  assert.deepEqual([read().state, read().plan, read().checksum, read().download], ['downloading', { name: 'v2', height: '40' }, null, null]);
  w.download(10, 100);
  assert.deepEqual(read().download, { bytes: 10, total: 100 });
  w.download(20, 100);
  assert.deepEqual(read().download, { bytes: 10, total: 100 }, 'progress is written at most once per interval');
  w.download(100, 100);
  assert.deepEqual(read().download, { bytes: 100, total: 100 }, 'the last bytes are always written');
  w.state('prepared', { name: 'v2', height: 40n, checksum: 'sha256:ab' });
  assert.deepEqual([read().state, read().checksum, read().download], ['prepared', 'sha256:ab', { bytes: 100, total: 100 }]);
  w.state('upgrading');
  assert.deepEqual([read().state, read().plan], ['upgrading', { name: 'v2', height: '40' }], 'the plan stays through the upgrade');
  w.state('running');
  assert.deepEqual([read().state, read().plan, read().checksum, read().download], ['running', null, null, null]);
  assert.equal(read().pid, process.pid);
  assert.ok(!Number.isNaN(Date.parse(read().updated)));
  assert.deepEqual(readdirSync(dir), ['status.json'], 'replaced by rename: no temporary file left');
});

test('a status file that cannot be written does not stop chainvisor', () => {
  const lines: string[] = [];
  const w = statusFileWriter(
    join(dir, 'missing', 'status.json'),
    createLogger({ disabled: false, color: false, timeFormat: 'none', write: (l) => lines.push(l) }),
  );
  assert.doesNotThrow(() => w.state('downloading', { name: 'v2', height: 1n }));
  assert.doesNotThrow(() => w.state('prepared', { name: 'v2', height: 1n }));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /cannot write the status file .*missing\/status\.json/);
});

test('a temporary status file left by a killed run (its pid gone) is removed by the next run', () => {
  const d = join(dir, 'killed');
  mkdirSync(d);
  writeFileSync(join(d, `status.json.tmp-${DEAD_PID}`), '{"state":"downl');
  statusFileWriter(statusPath(d), quiet).state('running');
  assert.deepEqual(readdirSync(d), ['status.json']);
});
