import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { backupData } from './backup.ts';
import { makeHome, type Home } from '@chaind/chainvisor/testing';
import { DEAD_PID } from '@chaind/upgrade-plan/testing';

describe('backup of data/', () => {
  let h: Home;
  beforeEach(() => (h = makeHome()));
  afterEach(() => h.cleanup());

  test('a full copy, never hard links: changing data.mdb in place afterwards leaves the backup intact', async () => {
    mkdirSync(join(h.data, 'state'), { recursive: true });
    writeFileSync(join(h.data, 'state', 'data.mdb'), 'before');
    writeFileSync(join(h.data, 'upgrade-info.json'), '{}');
    symlinkSync('state/data.mdb', join(h.data, 'link'));
    const r = await backupData(h.data, h.home, 'v2', 20n);
    assert.equal(r.dir, join(h.home, 'data-backup-v2-20'));
    assert.equal(r.files, 2);
    assert.equal(r.bytes, 8);
    assert.equal(r.existed, false);
    assert.notEqual(statSync(join(r.dir, 'state', 'data.mdb')).ino, statSync(join(h.data, 'state', 'data.mdb')).ino);
    writeFileSync(join(h.data, 'state', 'data.mdb'), 'after!');
    assert.equal(readFileSync(join(r.dir, 'state', 'data.mdb'), 'utf8'), 'before');
    assert.equal(readFileSync(join(r.dir, 'link'), 'utf8'), 'before');
    assert.deepEqual(
      readdirSync(h.home).filter((n) => n.includes('.tmp-')),
      [],
    );
  });

  test('a complete backup of the same upgrade is kept, not overwritten', async () => {
    writeFileSync(join(h.data, 'x'), '1');
    await backupData(h.data, h.home, 'v2', 20n);
    writeFileSync(join(h.data, 'x'), '2');
    const r = await backupData(h.data, h.home, 'v2', 20n);
    assert.equal(r.existed, true);
    assert.equal(readFileSync(join(r.dir, 'x'), 'utf8'), '1');
  });

  test('a copy that fails midway is removed: no partial backup is left', async () => {
    writeFileSync(join(h.data, 'a'), 'x');
    // a path that fits under data/ but not under the longer backup folder name: ENAMETOOLONG (root or not)
    let deep = h.data;
    while (deep.length < 4096 - 250) deep = join(deep, 'd'.repeat(200));
    mkdirSync(deep, { recursive: true });
    // the file's path is 4090 characters, within PATH_MAX (4096 with its NUL); its copy's path is 20 longer
    writeFileSync(join(deep, 'f'.repeat(4090 - deep.length - 1)), 'y');
    await assert.rejects(backupData(h.data, h.home, 'v2', 20n), { code: 'ENAMETOOLONG' });
    assert.deepEqual(
      readdirSync(h.home).filter((n) => n.startsWith('data-backup')),
      [],
    );
  });

  test("a partial copy left by a killed run (SIGKILL mid-backup) is removed by the next backup; a live run's is left alone", async () => {
    writeFileSync(join(h.data, 'x'), '1');
    mkdirSync(join(h.home, `data-backup-v2-20.tmp-${DEAD_PID}`, 'half'), { recursive: true });
    mkdirSync(join(h.home, `data-backup-v2-20.tmp-${process.ppid}`));
    const r = await backupData(h.data, h.home, 'v2', 20n);
    assert.equal(r.existed, false);
    assert.deepEqual(
      readdirSync(h.home)
        .filter((n) => n.startsWith('data-backup'))
        .sort(),
      ['data-backup-v2-20', `data-backup-v2-20.tmp-${process.ppid}`],
    );
  });

  test('a partial copy left by a killed run is removed even when the complete backup already exists', async () => {
    writeFileSync(join(h.data, 'x'), '1');
    await backupData(h.data, h.home, 'v2', 20n);
    mkdirSync(join(h.home, `data-backup-v2-20.tmp-${DEAD_PID}`));
    const r = await backupData(h.data, h.home, 'v2', 20n);
    assert.equal(r.existed, true);
    assert.deepEqual(
      readdirSync(h.home).filter((n) => n.startsWith('data-backup')),
      ['data-backup-v2-20'],
    );
  });
});
