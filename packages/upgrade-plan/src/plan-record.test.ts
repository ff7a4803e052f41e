import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { PLAN_RECORD, planRecordText, readPlanRecord, readPlanRecordIn, staleRelease } from './plan-record.ts';

const root = mkdtempSync(join(tmpdir(), 'plan-record-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const folder = (record?: string): string => {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  if (record !== undefined) writeFileSync(join(dir, PLAN_RECORD), record);
  return dir;
};

const INFO = '{"binaries":{"linux/amd64":"https://example.org/v2.tar.gz?checksum=sha256:aa"}}';
const recorded = planRecordText({ name: 'v2', height: 120n, info: INFO, raw: '' }, {
  url: 'https://example.org/v2.tar.gz',
  checksum: { algo: 'sha256', hex: 'AA' },
} as Parameters<typeof planRecordText>[1]);

test('a release installed by hand has no record: trusted as is', () => {
  const dir = folder();
  assert.deepEqual(readPlanRecordIn(dir), { absent: true });
  assert.equal(staleRelease(dir, INFO), null);
  assert.equal(readPlanRecord(dir), undefined);
});

test('the record chainvisor writes is read back, and matches a plan by its info byte for byte', () => {
  const dir = folder(recorded);
  assert.deepEqual(readPlanRecord(dir), { name: 'v2', height: '120', info: INFO, url: 'https://example.org/v2.tar.gz', checksum: 'sha256:aa' });
  assert.equal(staleRelease(dir, INFO), null);
  assert.match(
    staleRelease(dir, `${INFO} `) ?? '',
    /installed for the plan v2 at height 120 with another info \(sha256:aa from https:\/\/example.org\/v2.tar.gz\)/,
  );
});

test('a record that cannot be read counts as another plan', () => {
  assert.match(staleRelease(folder('{not json'), INFO) ?? '', /is not valid JSON/);
  assert.match(staleRelease(folder('{"name":"v2"}'), INFO) ?? '', /names no plan info/);
  assert.deepEqual(readPlanRecordIn(folder('null')), { unreadable: `its ${PLAN_RECORD} names no plan info` });
  assert.equal(readPlanRecord(folder('[]')), undefined);
});
