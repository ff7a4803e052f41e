import assert from 'node:assert/strict';
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { refused, tgz, type RawEntry } from '../test/kit/index.ts';
import { extractTar, type ExtractLimits } from './index.ts';

/** `n` bytes of 'a'/'b' from a fixed LCG: gzip shrinks them several-fold but not past tar's own ratio check. */
function filler(n: number): Buffer {
  const b = Buffer.alloc(n);
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x & 0x10000 ? 0x61 : 0x62;
  }
  return b;
}

describe('extractTar: limits, modes, link tricks', () => {
  let root: string;
  let n = 0;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'upgrade-plan-extract-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Writes the archive, extracts it into a fresh folder; returns that folder. */
  async function extract(entries: RawEntry[], limits?: ExtractLimits): Promise<string> {
    const work = join(root, String(++n));
    await mkdir(join(work, 'out'), { recursive: true });
    await writeFile(join(work, 'a.tar.gz'), tgz(entries));
    await extractTar(join(work, 'a.tar.gz'), join(work, 'out'), 'a.tar.gz', limits);
    return join(work, 'out');
  }
  const limits = (maxBytes: number, maxEntries: number): ExtractLimits => ({
    maxBytes,
    maxEntries,
    settings: { bytes: 'DAEMON_MAX_EXTRACT_BYTES', entries: 'DAEMON_MAX_EXTRACT_ENTRIES' },
  });

  it('refuses an archive that unpacks past the byte cap, before writing the entry that crosses it', async () => {
    const big = filler(1 << 20);
    const entries: RawEntry[] = [
      { path: 'small', body: 'x'.repeat(1000) },
      { path: 'big', body: big },
      { path: 'after', body: 'y' },
    ];
    assert.ok(tgz(entries).length < big.length / 4, 'a small archive that expands a lot');
    await refused(
      extract(entries, limits(64 * 1024, 100)),
      'too-large',
      'archive a.tar.gz refused: it unpacks to more than 65536 bytes (limit set by DAEMON_MAX_EXTRACT_BYTES)',
    );
    const out = join(root, String(n), 'out');
    assert.deepEqual(
      (await readdir(out)).filter((f) => f !== 'small'),
      [],
      'nothing of the entry past the cap, nor after it',
    );
  });

  it('refuses an archive with more entries than the cap', async () => {
    const entries: RawEntry[] = Array.from({ length: 50 }, (_, i) => ({ path: `f${i}`, body: '' }));
    await refused(
      extract(entries, limits(1 << 20, 10)),
      'too-large',
      'archive a.tar.gz refused: it unpacks to more than 10 entries (limit set by DAEMON_MAX_EXTRACT_ENTRIES)',
    );
    assert.ok((await readdir(join(root, String(n), 'out'))).length <= 10);
  });

  it('the caps are inclusive: exactly maxBytes and maxEntries unpack', async () => {
    const out = await extract(
      [
        { path: 'd/', type: 'Directory' },
        { path: 'd/a', body: 'x'.repeat(100) },
      ],
      limits(100, 2),
    );
    assert.equal((await lstat(join(out, 'd', 'a'))).size, 100);
  });

  it('drops group and world write bits (and setuid/setgid/sticky) whatever the process umask', async () => {
    const old = process.umask(0);
    try {
      const out = await extract([
        { path: 'd/', type: 'Directory', mode: 0o777 },
        { path: 'd/f', body: 'x', mode: 0o666 },
        { path: 'e/x', body: 'x', mode: 0o4777 },
      ]);
      assert.equal((await lstat(join(out, 'd'))).mode & 0o7777, 0o755);
      assert.equal((await lstat(join(out, 'd', 'f'))).mode & 0o7777, 0o644);
      assert.equal((await lstat(join(out, 'e', 'x'))).mode & 0o7777, 0o755);
      // e/ was never an entry: tar made it as x's parent
      assert.equal((await lstat(join(out, 'e'))).mode & 0o7777, 0o755);
    } finally {
      process.umask(old);
    }
  });

  it('refuses a hard link to a symlink (the copy would read its relative target from another folder)', async () => {
    await refused(
      extract([
        { path: 'd/', type: 'Directory' },
        { path: 'd/l', type: 'SymbolicLink', linkpath: '../x' },
        { path: 'x', body: 'x' },
        { path: 'h', type: 'Link', linkpath: 'd/l' },
      ]),
      'unsafe-archive',
      'unsafe archive a.tar.gz: entry "h" is a hard link to the symbolic link d/l',
    );
  });

  it('refuses a hard link through a symlinked folder', async () => {
    await refused(
      extract([
        { path: 'bin/', type: 'Directory' },
        { path: 'bin/chaind', body: 'x' },
        { path: 'l', type: 'SymbolicLink', linkpath: 'bin' },
        { path: 'h', type: 'Link', linkpath: 'l/chaind' },
      ]),
      'unsafe-archive',
      'unsafe archive a.tar.gz: entry "h" is a hard link to l/chaind, which goes through the symbolic link l',
    );
  });

  it('refuses a symlink chain that escapes only once a later link exists', async () => {
    await refused(
      extract([
        { path: 'd/', type: 'Directory' },
        { path: 'l2', type: 'SymbolicLink', linkpath: 'd/l1/..' },
        { path: 'd/l1', type: 'SymbolicLink', linkpath: '..' },
      ]),
      'unsafe-archive',
      'unsafe archive a.tar.gz: entry "l2" is a symbolic link to d/l1/.., which points outside the release folder',
    );
  });
});
