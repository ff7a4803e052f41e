import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SimulateResult } from '@chaind/sdk/gen/chain/upgrade/v1beta1/readiness';
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import { localReadinessReader } from './readiness.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const PLAN: Plan = {
  name: 'V2',
  height: 120n,
  info: '{"binaries":{"linux/amd64":"https://x/c.tar.gz?checksum=sha256:aa"}}',
  time: undefined,
  upgradedClientState: undefined,
};
const CHECKSUM = `sha256:${'aa'.repeat(32)}`;

function home(): { home: string; release: string } {
  const h = mkdtempSync(join(tmpdir(), 'chaind-readiness-'));
  dirs.push(h);
  // chainvisor's folder of a plan name is lower-cased, as cosmovisor's
  const release = join(h, 'cosmovisor', 'upgrades', 'v2');
  mkdirSync(join(release, 'bin'), { recursive: true });
  mkdirSync(join(h, 'data'), { recursive: true });
  return { home: h, release };
}

const record = (dir: string, o: Record<string, unknown>): void =>
  writeFileSync(
    join(dir, 'chainvisor-plan.json'),
    JSON.stringify({ name: 'V2', height: '120', info: PLAN.info, url: 'https://x/c.tar.gz', checksum: CHECKSUM, ...o }),
  );

test("a release chainvisor prepared for this very plan (name and info, as chainvisor matches) attests the checksum it verified; one prepared for another plan's info, nothing", () => {
  const { home: h, release } = home();
  const read = localReadinessReader(h);
  assert.deepEqual(read(PLAN), { releaseChecksum: '', simulate: SimulateResult.SIMULATE_RESULT_UNSPECIFIED }, 'an empty folder: nothing prepared');
  record(release, {});
  assert.equal(read(PLAN).releaseChecksum, CHECKSUM);
  record(release, { info: '{"binaries":{}}' });
  assert.equal(read(PLAN).releaseChecksum, '', 'prepared for the plan before it was re-proposed');
  record(release, { height: '130' });
  assert.equal(read(PLAN).releaseChecksum, CHECKSUM, 'prepared after the readiness gate moved the plan: the same plan, the same release');
  writeFileSync(join(release, 'chainvisor-plan.json'), '{not json');
  assert.equal(read(PLAN).releaseChecksum, '', 'an unreadable record counts as another plan');
});

test('a release installed by hand (no record) counts by the sha256 of its binary, hashed again when it changes', () => {
  const { home: h, release } = home();
  const read = localReadinessReader(h);
  writeFileSync(join(release, 'bin', 'chaind'), 'one');
  assert.equal(read(PLAN).releaseChecksum, `sha256:${createHash('sha256').update('one').digest('hex')}`);
  writeFileSync(join(release, 'bin', 'chaind'), 'two!');
  assert.equal(read(PLAN).releaseChecksum, `sha256:${createHash('sha256').update('two!').digest('hex')}`);
  record(release, { checksum: null });
  assert.equal(read(PLAN).releaseChecksum, `sha256:${createHash('sha256').update('two!').digest('hex')}`, 'a plan naming no checksum: the binary');
});

test("upgrade simulate's last result counts when it is of this plan's name and height", () => {
  const { home: h } = home();
  const read = localReadinessReader(h);
  const sim = (o: Record<string, unknown>): void =>
    writeFileSync(join(h, 'data', 'upgrade-simulate.json'), JSON.stringify({ name: 'V2', height: '120', passed: true, ...o }));
  sim({});
  assert.equal(read(PLAN).simulate, SimulateResult.SIMULATE_RESULT_PASSED);
  sim({ passed: false });
  assert.equal(read(PLAN).simulate, SimulateResult.SIMULATE_RESULT_FAILED);
  sim({ height: '90' });
  assert.equal(read(PLAN).simulate, SimulateResult.SIMULATE_RESULT_UNSPECIFIED, 'a simulation of an earlier plan');
  sim({ name: 'v3' });
  assert.equal(read(PLAN).simulate, SimulateResult.SIMULATE_RESULT_UNSPECIFIED);
});
