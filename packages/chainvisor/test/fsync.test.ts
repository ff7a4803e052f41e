import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { syncDirSync, syncFileSync, syncTree } from '../src/fsync.ts';

describe('syncTree', () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), 'chainvisor-fsync-'))));
  after(() => rmSync(root, { recursive: true, force: true }));

  // opening a fifo for reading blocks until a writer comes: a walk that opened one, or followed a link to one, would hang
  it('flushes a release tree without opening fifos or following symlinks out of it', { timeout: 10_000 }, async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    const rel = join(root, 'release');
    mkdirSync(join(rel, 'bin'), { recursive: true });
    mkdirSync(join(rel, 'node_modules', 'dep', 'lib'), { recursive: true });
    writeFileSync(join(rel, 'bin', 'chaind'), '#!/bin/sh\n');
    writeFileSync(join(rel, 'node_modules', 'dep', 'lib', 'index.js'), '');
    writeFileSync(join(rel, 'bundle.js'), 'x'.repeat(1 << 20));
    symlinkSync('bundle.js', join(rel, 'alias.js'));
    symlinkSync(join(outside, 'pipe'), join(rel, 'to-pipe'));
    symlinkSync(outside, join(rel, 'to-outside'));
    symlinkSync('nowhere', join(rel, 'dangling'));
    execFileSync('mkfifo', [join(rel, 'own-pipe')]);
    await syncTree(rel);
  });

  it('names the path it cannot open', async () => {
    const missing = join(root, 'missing');
    await assert.rejects(syncTree(missing), { message: `cannot flush ${missing} to disk: ENOENT: no such file or directory, scandir '${missing}'` });
    assert.throws(() => syncFileSync(missing), { message: `cannot flush ${missing} to disk: ENOENT: no such file or directory, open '${missing}'` });
    assert.throws(() => syncDirSync(missing), /^Error: cannot flush .*missing to disk: ENOENT/);
  });
});
