// Whether the backup of data/ is flushed to disk before it is published: a power cut cannot be staged here, so the
// system calls of a real chainvisor upgrade are observed under strace (skipped where strace is missing or blocked).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { baseEnv, BIN, makeHome, snapshot, writeDaemon, type Home } from '@chaind/chainvisor/testing';

const straceWorks = spawnSync('strace', ['-f', '-qq', '-e', 'trace=fsync', '-o', '/dev/null', process.execPath, '-e', '0']).status === 0;

describe('backup of data/ on disk', { skip: straceWorks ? false : 'strace is not available here' }, () => {
  let h: Home;
  beforeEach(() => (h = makeHome()));
  afterEach(() => h.cleanup());

  test('every file and folder of the backup is flushed before its rename, the parent folder after it', async () => {
    mkdirSync(join(h.data, 'application.db'), { recursive: true });
    mkdirSync(join(h.data, 'cs.wal', 'deep'), { recursive: true });
    writeFileSync(join(h.data, 'application.db', 'data.mdb'), Buffer.alloc(1 << 20, 7));
    writeFileSync(join(h.data, 'cs.wal', 'deep', 'wal'), 'w');
    writeFileSync(join(h.data, 'priv_validator_state.json'), '{}');
    symlinkSync('application.db/data.mdb', join(h.data, 'link'));
    writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'old', "writeInfo({ name: 'v2', height: 20, info: '' }); process.exit(10);");
    writeDaemon(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'new', 'process.exit(0);');
    const trace = join(h.root, 'strace.txt');
    // -y: each fd printed with its path
    const child = spawn(
      'strace',
      ['-f', '-y', '-qq', '-e', 'trace=fsync,fdatasync,rename,renameat,renameat2', '-o', trace, process.execPath, BIN, 'run', 'start'],
      {
        env: { PATH: process.env.PATH ?? '', ...baseEnv(h, { DAEMON_RESTART_AFTER_UPGRADE: 'false' }) },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    assert.equal(code, 0, stderr);
    const dest = join(h.home, 'data-backup-v2-20');
    assert.deepEqual(snapshot(dest), { ...snapshot(h.data), 'upgrade-info.json': readFileSync(join(dest, 'upgrade-info.json')).toString('base64') });

    const lines = readFileSync(trace, 'utf8').split('\n');
    const renameAt = lines.findIndex((l) => /rename/.test(l) && l.includes(`"${dest}"`));
    assert.ok(renameAt > 0, `no rename to ${dest} in the trace`);
    const tmp = /"([^"]+\.tmp-\d+)"/.exec(lines[renameAt])![1];
    const synced = (from: number, to: number): Set<string> =>
      new Set(lines.slice(from, to).flatMap((l) => [...l.matchAll(/f(?:data)?sync\(\d+<([^>]+)>/g)].map((m) => m[1])));
    const before = synced(0, renameAt);
    const expected = [
      '',
      'application.db',
      'application.db/data.mdb',
      'cs.wal',
      'cs.wal/deep',
      'cs.wal/deep/wal',
      'priv_validator_state.json',
      'upgrade-info.json',
    ];
    assert.deepEqual(
      expected.filter((p) => !before.has(p === '' ? tmp : join(tmp, p))),
      [],
      'flushed before the rename',
    );
    assert.ok(synced(renameAt, lines.length).has(h.home), 'the parent folder flushed after the rename');
  });
});
