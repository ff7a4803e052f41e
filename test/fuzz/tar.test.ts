// Fuzz: release archives into the extractor chainvisor unpacks a download with (unpackRelease → extractTar,
// @chaind/upgrade-plan), and through chainvisor's whole install (installRelease from a loopback mirror).
// Mutations of a valid .tar.gz: bit flips and truncation of the gzip or the tar inside it; hostile entries
// (`..`, absolute paths, symlinks and hard links out of the target, writes through a symlink, device files
// and FIFOs, sizes the body does not hold, many entries, gzip bombs past the configured limits).
// Invariants, on real files in a temp folder: either a complete extraction strictly inside the target, or
// a FetchError of a known kind with one clear line; either way nothing created or changed outside the
// target, and after a failed install no release (nor a temp folder) where chainvisor would look.
// Never a crash, never a hang.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ChaindError } from '@chaind/errors';
import { installRelease, type FetchPolicy } from '@chaind/chainvisor/fetch';
import { FetchError, unpackRelease, type ExtractLimits, type PreparedDownload } from '@chaind/upgrade-plan';
import { hex, rawTar, serve, type RawEntry, type Served } from '@chaind/upgrade-plan/testing';
import { fuzzParameters } from '../kit/fuzz.ts';

/** Cases per CI run (× FUZZ_SCALE under `npm run fuzz`). */
const RUNS = { hostile: 250, flips: 150, install: 40 };
/** One case may take this long before it counts as a hang. */
const CASE_TIMEOUT_MS = 15_000;

/** Small caps, as an operator may set them (DAEMON_MAX_EXTRACT_BYTES / _ENTRIES), so bombs reach them quickly. */
const LIMITS: ExtractLimits = { maxBytes: 256 * 1024, maxEntries: 64, settings: { bytes: 'DAEMON_MAX_EXTRACT_BYTES', entries: 'DAEMON_MAX_EXTRACT_ENTRIES' } };
const KINDS = new Set(['bad-archive', 'unsafe-archive', 'too-large', 'no-binary', 'unsupported-archive', 'empty']);

let root: string;
/** Where absolute paths in archives point: it must stay empty. */
let escape: string;
before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'fuzz-tar-')));
  escape = join(root, 'escape');
  await mkdir(escape);
});
after(() => rm(root, { recursive: true, force: true }));

const BIN = '#!/bin/sh\necho chaind v2\n';
/** A release as chainvisor expects one. */
const VALID: readonly RawEntry[] = [
  { path: 'bin/', type: 'Directory' },
  { path: 'bin/chaind', body: BIN, mode: 0o755 },
  { path: 'lib/', type: 'Directory' },
  { path: 'lib/app.js', body: 'console.log(1)\n' },
  { path: 'lib/current', type: 'SymbolicLink', linkpath: 'app.js' },
  { path: 'lib/hard', type: 'Link', linkpath: 'lib/app.js' },
];

/** A header's type flag set to `flag` (types tar has no name for, too), its checksum recomputed. */
function withType(tar: Buffer, headerAt: number, flag: string): Buffer {
  const b = Buffer.from(tar);
  b.write(flag, headerAt + 156, 1, 'latin1');
  return withSize(b, headerAt, 0);
}

/** A header's size field set to `size` (octal, or base-256 past 8 GiB), its checksum recomputed. */
function withSize(tar: Buffer, headerAt: number, size: number): Buffer {
  const b = Buffer.from(tar);
  const h = b.subarray(headerAt, headerAt + 512);
  if (size < 8 ** 11) h.write(size.toString(8).padStart(11, '0') + '\0', 124, 12, 'latin1');
  else {
    h.fill(0, 124, 136);
    h[124] = 0x80;
    let v = BigInt(size);
    for (let i = 135; i > 124; i--, v >>= 8n) h[i] = Number(v & 0xffn);
  }
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const x of h) sum += x;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'latin1');
  return b;
}

const safeName = fc.stringMatching(/^[a-z0-9_.-]{1,8}$/).filter((s) => s !== '.' && s !== '..');
/** A path that tries to leave the target, or a harmless one. */
const pathArb = fc.oneof(
  { arbitrary: fc.array(safeName, { minLength: 1, maxLength: 3 }).map((a) => a.join('/')), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      '../x',
      '../../x',
      'a/../../x',
      'a/../b',
      './../x',
      '..',
      '.',
      './a',
      'a//b',
      'a/./b',
      '..\\x',
      'C:x',
      'a\\..\\..\\x',
      'bin/chaind',
      'lib/current/x',
      'lib',
      'bin',
    ),
    weight: 2,
  },
  { arbitrary: safeName.map((n) => `ESCAPE/${n}`), weight: 1 },
);
const linkTargets = fc.oneof(
  fc.constantFrom(
    '..',
    '../..',
    '.',
    'x',
    'bin/chaind',
    'lib/app.js',
    'app.js',
    '../outside/sentinel',
    'ESCAPE',
    'ESCAPE/x',
    'a/../..',
    '',
    'lib/current',
    'lib',
    'lib/../..',
  ),
  pathArb,
);
const entryArb: fc.Arbitrary<RawEntry> = fc.oneof(
  { arbitrary: fc.record({ path: pathArb, body: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('')) }), weight: 4 },
  { arbitrary: pathArb.map((p): RawEntry => ({ path: `${p}/`, type: 'Directory' })), weight: 2 },
  { arbitrary: fc.record({ path: pathArb, linkpath: linkTargets }).map((e): RawEntry => ({ ...e, type: 'SymbolicLink' })), weight: 3 },
  { arbitrary: fc.record({ path: pathArb, linkpath: linkTargets }).map((e): RawEntry => ({ ...e, type: 'Link' })), weight: 2 },
  {
    arbitrary: fc.record({
      path: pathArb,
      type: fc.constantFrom('CharacterDevice', 'BlockDevice', 'FIFO', 'ContiguousFile', 'GNUDumpDir'),
    }) as fc.Arbitrary<RawEntry>,
    weight: 1,
  },
  {
    arbitrary: fc.record({ path: pathArb, mode: fc.constantFrom(0o4755, 0o2755, 0o1777, 0o777, 0o000) }).map((e): RawEntry => ({ ...e, body: 'm' })),
    weight: 1,
  },
);
/** The absolute paths of a case point into `escape`. */
const place = (s: string | undefined): string | undefined => (s === undefined ? s : s.replace(/^ESCAPE/, escape));

interface Case {
  readonly tar: Buffer;
  readonly gzip: boolean;
}
/** Hostile entries mixed into the valid release, gzip bombs and oversize headers. */
const hostile: fc.Arbitrary<Case> = fc.oneof(
  {
    arbitrary: fc.tuple(fc.array(entryArb, { maxLength: 6 }), fc.nat(), fc.boolean()).map(([extra, at, gzip]) => {
      const entries = [...VALID];
      entries.splice(
        at % (entries.length + 1),
        0,
        ...extra.map((e) => ({ ...e, path: place(e.path) as string, ...(e.linkpath !== undefined ? { linkpath: place(e.linkpath) } : {}) })),
      );
      return { tar: rawTar(entries), gzip };
    }),
    weight: 6,
  },
  // a bomb: zeros that compress a thousandfold, under and over the byte cap
  {
    arbitrary: fc.integer({ min: 1, max: 4096 }).map((kb) => ({ tar: rawTar([...VALID, { path: 'zeros', body: Buffer.alloc(kb * 1024) }]), gzip: true })),
    weight: 1,
  },
  // more entries than the cap
  {
    arbitrary: fc
      .integer({ min: 1, max: 200 })
      .map((n) => ({ tar: rawTar([...VALID, ...Array.from({ length: n }, (_, i): RawEntry => ({ path: `many/${i}`, body: '' }))]), gzip: true })),
    weight: 1,
  },
  // the binary's header with another type flag: sockets, contiguous, GNU and pax types, unknown letters
  {
    arbitrary: fc.constantFrom('3', '4', '6', '7', 'D', 'K', 'L', 'M', 'N', 'S', 'V', 'g', 'x', 'Z', '\0', '9').map((flag) => {
      const tar = rawTar([
        { path: 'bin/', type: 'Directory' },
        { path: 'bin/chaind', body: '' },
        { path: 'lib/a', body: 'a' },
      ]);
      return { tar: withType(tar, 512, flag), gzip: true };
    }),
    weight: 1,
  },
  // a header announcing more than the body holds (up to past 8 GiB)
  {
    arbitrary: fc.tuple(fc.constantFrom(1, 511, 513, 1 << 20, 2 ** 33 + 5, 2 ** 40), fc.boolean()).map(([size, gzip]) => {
      const tar = rawTar([
        { path: 'bin/', type: 'Directory' },
        { path: 'bin/chaind', body: BIN },
      ]);
      return { tar: withSize(tar, 512, size), gzip };
    }),
    weight: 1,
  },
);
/** The valid release, its bytes flipped or cut, in the gzip or in the tar inside it. */
const damaged: fc.Arbitrary<Case> = fc
  .tuple(
    fc.constantFrom('gz', 'tar'),
    fc.constantFrom('flip', 'cut', 'both'),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 4 }),
    fc.nat(),
  )
  .map(([layer, how, flips, cutAt]) => {
    const tar = rawTar(VALID);
    let b = Buffer.from(layer === 'gz' ? gzipSync(tar) : tar);
    if (how !== 'cut') for (const [at, bit] of flips) b[at % b.length] ^= 1 << bit;
    if (how !== 'flip') b = b.subarray(0, cutAt % b.length);
    // `tar` holds the bytes as served: the damaged gzip itself, or the damaged tar to be gzipped
    return { tar: b, gzip: layer === 'tar' };
  });

/** Every path under `dir` (lstat, not following links), relative. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      if (e.isDirectory()) await walk(join(d, e.name), r);
    }
  };
  await walk(dir, '');
  return out.sort();
}

/** A complete extraction: only files, folders and links, every link resolving inside `out`. */
async function assertInside(out: string): Promise<void> {
  for (const p of await tree(out)) {
    const full = join(out, p);
    const st = await lstat(full);
    assert.ok(st.isFile() || st.isDirectory() || st.isSymbolicLink(), `${p} is not a file, folder or link`);
    if (!st.isSymbolicLink()) assert.equal(st.mode & 0o7022, 0, `${p} has mode ${st.mode.toString(8)}`);
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = await realpath(full);
      } catch {
        continue; // a dangling link inside the release: harmless
      }
      assert.ok(real === out || real.startsWith(out + sep), `${p} -> ${await readlink(full)} resolves to ${real}, outside`);
    }
  }
}

function assertClearError(e: unknown): FetchError {
  assert.ok(e instanceof FetchError && e instanceof ChaindError, `threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  assert.ok(KINDS.has(e.kind), `kind ${e.kind}: ${e.message}`);
  assert.ok(!/[\r\n]/.test(e.message) && e.message.length <= 1024, `not one clear line: ${JSON.stringify(e.message.slice(0, 300))}`);
  return e;
}

/** The valid release with its first header damaged (a flipped byte, its checksum left as it was), gzipped. */
function badFirstHeader(): Buffer {
  const tar = rawTar(VALID);
  tar[0] ^= 1;
  return gzipSync(tar);
}

/** The valid release and more entries than LIMITS allows, gzipped. */
const tooMany = (): Buffer => gzipSync(rawTar([...VALID, ...Array.from({ length: 200 }, (_, i): RawEntry => ({ path: `many/${i}`, body: '' }))]));

const SENTINEL = 'operator data\n';
let caseNo = 0;
/** A case folder: the archive, the empty target `out`, and `outside/sentinel` beside it. */
async function caseDir(bytes: Buffer): Promise<{ dir: string; file: string; out: string }> {
  const dir = join(root, `c${++caseNo}`);
  await mkdir(join(dir, 'out'), { recursive: true });
  await mkdir(join(dir, 'outside'));
  await writeFile(join(dir, 'outside', 'sentinel'), SENTINEL);
  await writeFile(join(dir, 'archive'), bytes);
  return { dir, file: join(dir, 'archive'), out: join(dir, 'out') };
}

/** Nothing outside the target was created or changed: the case folder, its sentinel, the escape folder, the root. */
async function assertNothingOutside(dir: string, expected: readonly string[]): Promise<void> {
  assert.deepEqual((await readdir(dir)).sort(), [...expected].sort(), 'something appeared beside the target');
  assert.deepEqual(await readdir(join(dir, 'outside')), ['sentinel']);
  const s = await lstat(join(dir, 'outside', 'sentinel'));
  assert.ok(s.isFile() && s.nlink === 1, 'the sentinel was linked or replaced');
  assert.equal(await readFile(join(dir, 'outside', 'sentinel'), 'utf8'), SENTINEL);
  assert.deepEqual(await readdir(escape), [], 'an absolute path was written');
  assert.deepEqual(
    (await readdir(root)).filter((n) => n !== 'escape' && !/^c\d+$/.test(n)),
    [],
    'something appeared above the case',
  );
}

const PREPARED = (format: 'tar.gz' | 'tar'): PreparedDownload => ({
  url: new URL('https://releases.example/chaind.tar.gz'),
  shown: 'https://releases.example/chaind.tar.gz',
  format,
  explicit: false,
  fileName: 'chaind.tar.gz',
});

/** One archive through unpackRelease (as chainvisor calls it), and every invariant. */
async function checkExtract(c: Case): Promise<void> {
  const bytes = c.gzip ? gzipSync(c.tar) : c.tar;
  const { dir, file, out } = await caseDir(bytes);
  try {
    // the format as the URL would name it: a gzip is "tar.gz", plain bytes "tar"
    const format = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b ? 'tar.gz' : c.gzip ? 'tar.gz' : 'tar';
    await unpackRelease(file, PREPARED(format), out, 'chaind', 'chaind.tar.gz', LIMITS);
    await assertInside(out);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    assertClearError(e);
  }
  await assertNothingOutside(dir, ['archive', 'out', 'outside']);
  await rm(dir, { recursive: true, force: true });
}

describe('fuzz: release archives into the extractor', () => {
  test(`hostile entries, bombs, oversize headers (${RUNS.hostile} cases)`, async () => {
    await fc.assert(fc.asyncProperty(hostile, checkExtract), { ...fuzzParameters<[Case]>(RUNS.hostile), timeout: CASE_TIMEOUT_MS });
  });

  test(`bit flips and truncation of a valid .tar.gz (${RUNS.flips} cases)`, async () => {
    await fc.assert(fc.asyncProperty(damaged, checkExtract), { ...fuzzParameters<[Case]>(RUNS.flips), timeout: CASE_TIMEOUT_MS });
  });
});

describe('regressions found by the tar fuzz', () => {
  test('an archive whose first header is damaged writes nothing (tar went on writing the later entries after the error)', async () => {
    const { dir, file, out } = await caseDir(badFirstHeader());
    await assert.rejects(
      unpackRelease(file, PREPARED('tar.gz'), out, 'chaind', 'chaind.tar.gz', LIMITS),
      (e: unknown) => assertClearError(e).kind === 'bad-archive',
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await tree(out), [], 'entries of a bad archive were written');
    await assertNothingOutside(dir, ['archive', 'out', 'outside']);
  });

  test('an archive past the entry cap writes nothing', async () => {
    const { file, out } = await caseDir(tooMany());
    await assert.rejects(
      unpackRelease(file, PREPARED('tar.gz'), out, 'chaind', 'chaind.tar.gz', LIMITS),
      (e: unknown) => assertClearError(e).kind === 'too-large',
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await tree(out), [], 'entries of a refused archive were written');
  });

  test('a link over a folder an earlier entry made is refused, and does not hang (node-tar never finished replacing it)', async () => {
    const tar = rawTar([{ path: 'lib/current/x', type: 'SymbolicLink', linkpath: 'lib' }, ...VALID]);
    const { dir, file, out } = await caseDir(tar);
    await assert.rejects(unpackRelease(file, PREPARED('tar'), out, 'chaind', 'chaind.tar', LIMITS), (e: unknown) => {
      assert.equal(assertClearError(e).message, 'unsafe archive chaind.tar: entry "lib/current" replaces a folder made by an earlier entry');
      return true;
    });
    assert.deepEqual(await tree(out), []);
    await assertNothingOutside(dir, ['archive', 'out', 'outside']);
  });

  for (const [first, target] of [
    ['a.', '-'],
    ['lib', 'lib/app.js'],
  ] as const) {
    test(`a hard link ${first} to ${target}, not yet in the archive, is refused before anything is written, and does not hang`, async () => {
      const tar = rawTar([{ path: first, type: 'Link', linkpath: target }, ...VALID]);
      const { file, out } = await caseDir(tar);
      await assert.rejects(unpackRelease(file, PREPARED('tar'), out, 'chaind', 'chaind.tar', LIMITS), (e: unknown) => {
        assert.equal(
          assertClearError(e).message,
          `unsafe archive chaind.tar: entry ${JSON.stringify(first)} is a hard link to ${target}, which no earlier entry made as a file`,
        );
        return true;
      });
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(await tree(out), [], 'tar wrote entries of a refused archive');
    });
  }
});

describe('fuzz: chainvisor installs a downloaded release whole or not at all', () => {
  let srv: Served;
  before(async () => {
    srv = await serve();
  });
  after(() => srv.close());
  const logs: string[] = [];
  const policy: FetchPolicy = {
    mustHaveChecksum: true,
    allowInsecureHttp: false,
    allowLoopbackHttp: true,
    maxBytes: 1 << 24,
    stallTimeoutMs: 10_000,
    progress: 'none',
    log: (m) => logs.push(m),
    extract: LIMITS,
  };

  test(`mutated archives from a loopback mirror through installRelease (${RUNS.install} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostile, damaged), async (c) => {
        const bytes = c.gzip ? gzipSync(c.tar) : c.tar;
        const { dir } = await caseDir(Buffer.alloc(0));
        const upgrades = join(dir, 'out', 'cosmovisor', 'upgrades');
        const dest = join(upgrades, 'v2');
        const path = `/r${caseNo}/chaind-v2.tar.gz`;
        srv.file(path, bytes);
        logs.length = 0;
        try {
          const r = await installRelease(
            { url: `${srv.base}${path}`, platform: 'any', checksum: { algo: 'sha256', hex: hex('sha256', bytes) } },
            { ...policy, destDir: dest, daemonName: 'chaind' },
          );
          assert.equal(r.binaryPath, join(dest, 'bin', 'chaind'));
          assert.ok((await lstat(r.binaryPath)).isFile());
          await assertInside(dest);
          assert.deepEqual(await readdir(upgrades), ['v2'], 'a temp folder left beside the release');
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          assertClearError(e);
          // where chainvisor looks for the release: nothing, not even half of one
          assert.equal(existsSync(dest), false, 'a failed install left upgrades/v2');
          if (existsSync(upgrades)) assert.deepEqual(await readdir(upgrades), [], 'a temp folder left behind');
        }
        await assertNothingOutside(dir, ['archive', 'out', 'outside']);
        await rm(dir, { recursive: true, force: true });
      }),
      { ...fuzzParameters<[Case]>(RUNS.install), timeout: CASE_TIMEOUT_MS },
    );
  });

  for (const [what, bytes, kind] of [
    ['a damaged first header', badFirstHeader, 'bad-archive'],
    ['more entries than the cap', tooMany, 'too-large'],
  ] as const) {
    test(`regression: an archive with ${what} leaves no temp folder beside upgrades/v2 (tar was still writing into it when it was removed)`, async () => {
      const gz = bytes();
      const { dir } = await caseDir(Buffer.alloc(0));
      const upgrades = join(dir, 'out', 'cosmovisor', 'upgrades');
      srv.file(`/${kind}/chaind-v2.tar.gz`, gz);
      await assert.rejects(
        installRelease(
          { url: `${srv.base}/${kind}/chaind-v2.tar.gz`, platform: 'any', checksum: { algo: 'sha256', hex: hex('sha256', gz) } },
          { ...policy, destDir: join(upgrades, 'v2'), daemonName: 'chaind' },
        ),
        (e: unknown) => assertClearError(e).kind === kind,
      );
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(await readdir(upgrades), [], 'a temp folder left behind');
    });
  }
});
