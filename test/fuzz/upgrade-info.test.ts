// Fuzz: the upgrade plan's two text inputs, through their one home in @chaind/upgrade-plan.
// - data/upgrade-info.json, as the node reads it at start-up (readUpgradeInfo) and chainvisor while it
//   polls (readUpgradeInfoFile): random JSON, valid files with fields of the wrong type, huge or
//   non-decimal heights, odd names, missing and extra fields, truncated and bit-flipped files, huge files.
// - plan info strings, as the proposer's check (planBinaries) and chainvisor (resolveRelease) take them:
//   random strings, binaries maps with odd URLs, schemes, checksums and `?checksum=`, info URLs served
//   by a loopback mirror.
// Invariants: a valid parse whose re-serialisation parses back to the same value, or the package's
// ChaindError with one clear line; never a TypeError/RangeError, never a hang.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ChaindError } from '@chaind/errors';
import {
  encodeUpgradeInfo,
  FetchError,
  planBinaries,
  platformKey,
  prepareDownload,
  readUpgradeInfo,
  readUpgradeInfoFile,
  resolveRelease,
  UpgradeInfoError,
  writeUpgradeInfo,
  type DownloadPolicy,
  type ReleaseSource,
} from '@chaind/upgrade-plan';
import { hex, serve, type Served } from '@chaind/upgrade-plan/testing';
import { fuzzParameters } from '../kit/fuzz.ts';

/** Cases per CI run (× FUZZ_SCALE under `npm run fuzz`). */
const RUNS = { file: 400, hugeFile: 4, info: 500, infoUrl: 60 };

/** An error message an operator can read in a log line: one line, and not a dump of the input. */
const MAX_MESSAGE = 2048;
function assertClear(message: string, what: string): void {
  assert.ok(message.length > 0, `${what}: empty message`);
  assert.ok(!/[\r\n]/.test(message), `${what}: not one line: ${JSON.stringify(message.slice(0, 300))}`);
  assert.ok(message.length <= MAX_MESSAGE, `${what}: a ${message.length}-character message: ${JSON.stringify(message.slice(0, 300))}…`);
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'fuzz-upgrade-info-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

// ---------------------------------------------------------------- upgrade-info.json

const names = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('v2', 'V2', '', ' ', '.', '..', 'a/b', 'a\\b', '../x', 'a\u0000b', 'İ', 'ß', 'a b%', '\ud800', 'x'.repeat(129), 'é'.repeat(100)),
);
const heights = fc.oneof(
  fc.integer({ min: -5, max: 1_000_000 }),
  fc.bigInt({ min: 0n, max: 1n << 70n }).map((h) => h.toString()),
  fc.maxSafeNat().map((h) => h + 0), // numbers near 2^53
  fc.double(),
  fc.constantFrom('12', '0', '-1', ' 12', '12 ', '0x10', '1e3', '1.0', '１２', '9007199254740993', '99999999999999999999', 1e21, -0, '', null, true, [12], {
    h: 12,
  }),
);
const infos = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(undefined, 12, null, ['x'], { binaries: {} }));
const extra = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** A file as the node would write it, then changed: fields of other types, missing, extra, reordered. */
const mutatedObjects = fc
  .record({ name: names, height: heights, info: infos, time: fc.constantFrom('0001-01-01T00:00:00Z', 5, undefined), extra }, { requiredKeys: [] })
  .map(({ extra: more, ...r }) => {
    const o: Record<string, unknown> = { ...more };
    for (const [k, v] of Object.entries(r)) if (v !== undefined) o[k] = v;
    return JSON.stringify(o);
  });
const valid = fc
  .record({ name: fc.string({ minLength: 1, maxLength: 20 }), height: fc.bigInt({ min: 1n, max: 1n << 40n }), info: fc.string({ maxLength: 60 }) })
  .map(encodeUpgradeInfo);
/** A valid file cut short (the node killed mid-write without the atomic rename) or with bytes flipped. */
const damaged = fc.oneof(
  fc.tuple(valid, fc.nat()).map(([t, n]) => Buffer.from(t.slice(0, n % Math.max(1, t.length)))),
  fc.tuple(valid, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 4 })).map(([t, flips]) => {
    const b = Buffer.from(t);
    for (const [at, bit] of flips) b[at % b.length] ^= 1 << bit;
    return b;
  }),
);
const fileContents: fc.Arbitrary<string | Buffer> = fc.oneof(
  { arbitrary: mutatedObjects, weight: 4 },
  { arbitrary: damaged, weight: 3 },
  { arbitrary: fc.json({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 60 }), weight: 1 },
  // numerals JSON.stringify cannot write
  { arbitrary: fc.constantFrom('1e400', '9007199254740993', '12.0', '1E2', '-0', '00012', '12e-0').map((h) => `{"name":"v2","height":${h}}`), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)), weight: 1 },
);

/** The same value, as both readers must see it. */
function fields(u: { name: string; height: bigint; info: string }): { name: string; height: bigint; info: string } {
  return { name: u.name, height: u.height, info: u.info };
}

let fileNo = 0;
/** The file through both readers, and each invariant. */
function checkFile(contents: string | Buffer): void {
  const path = join(dir, `upgrade-info-${++fileNo % 8}.json`);
  writeFileSync(path, contents);
  let node: ReturnType<typeof readUpgradeInfo>;
  let nodeErr: UpgradeInfoError | undefined;
  try {
    node = readUpgradeInfo(path);
  } catch (e) {
    assert.ok(e instanceof UpgradeInfoError && e instanceof ChaindError, `the node's reader threw ${String(e)}`);
    nodeErr = e;
    assertClear(e.message, "the node's reader");
  }
  const visor = readUpgradeInfoFile(path);
  if (visor.state === 'absent') assert.fail('chainvisor saw an existing file as absent');
  if (visor.state !== 'ok') assertClear(visor.why, "chainvisor's reader");
  if (nodeErr === undefined) {
    assert.ok(node !== undefined, 'an existing file read as absent');
    assert.ok(node.height > 0n && node.height < 1n << 63n, `height ${node.height} accepted`);
    // what the node writes back (encodeUpgradeInfo) reads back the same, through both readers
    const again = join(dir, 'again.json');
    writeUpgradeInfo(again, node);
    assert.deepEqual(readUpgradeInfo(again), node);
    const v2 = readUpgradeInfoFile(again);
    assert.equal(v2.state, visor.state, 'the same value, read back, got another verdict from chainvisor');
    // chainvisor takes what the node takes, unless the name cannot be a folder
    if (visor.state === 'ok') assert.deepEqual(fields(visor.info), node);
    else assert.equal(visor.state, 'invalid', `the node took it, chainvisor found it ${visor.state}: ${visor.why}`);
  } else {
    // a file chainvisor acts on must be one the new binary accepts at start-up
    assert.notEqual(visor.state, 'ok', `chainvisor took a file the node refuses: ${nodeErr.message}`);
  }
  if (visor.state === 'ok') {
    // chainvisor copies the file's exact text into the release folder: it must read back the same
    const copy = join(dir, 'copy.json');
    writeUpgradeInfo(copy, visor.info);
    const c = readUpgradeInfoFile(copy);
    assert.ok(c.state === 'ok' && c.info.raw === visor.info.raw);
  }
}

describe('fuzz: upgrade-info.json through the one reader (node start-up and chainvisor)', () => {
  test(`random, mutated, truncated and bit-flipped files (${RUNS.file} cases)`, () => {
    fc.assert(fc.property(fileContents, checkFile), fuzzParameters(RUNS.file));
  });

  test(`huge files: megabytes of name, info or height (${RUNS.hugeFile} cases)`, () => {
    const huge = fc.tuple(fc.constantFrom('name', 'info', 'height', 'extra'), fc.integer({ min: 1 << 20, max: 2 << 20 })).map(([field, n]) => {
      const big = field === 'height' ? '9'.repeat(n) : 'x'.repeat(n);
      const o: Record<string, unknown> = { name: 'v2', time: '0001-01-01T00:00:00Z', height: 20, info: '' };
      o[field] = big;
      return JSON.stringify(o);
    });
    fc.assert(fc.property(huge, checkFile), fuzzParameters(RUNS.hugeFile));
  });

  test('regression: a height past 2^53, written by the node, reads back (the new binary would refuse its own file)', () => {
    checkFile('{"name":"v2","height":"9007199254740992"}');
    const p = join(dir, 'big-height.json');
    writeUpgradeInfo(p, { name: 'v2', height: 9007199254740993n, info: '' });
    assert.deepEqual(readUpgradeInfo(p), { name: 'v2', height: 9007199254740993n, info: '' });
  });

  test('regression: a file cut after a newline is reported on one line (the JSON error quoted the raw bytes)', () => {
    checkFile(Buffer.from([10, 0]));
  });

  test('regression: a megabyte name is refused with a short message, not the name', () => {
    checkFile(JSON.stringify({ name: 'x'.repeat(1 << 20), height: 20 }));
    const r = readUpgradeInfoFile(join(dir, `upgrade-info-${fileNo % 8}.json`));
    assert.ok(
      r.state === 'invalid' && r.why.endsWith('x" (1048578 characters) is longer than 255 bytes once path-escaped') && r.why.length < 400,
      'why' in r ? r.why.slice(0, 200) : r.state,
    );
  });

  test('regression: a height past int64 is refused', () => {
    checkFile('{"name":"v2","height":"9223372036854775808"}');
    const p = join(dir, 'huge-height.json');
    writeFileSync(p, '{"name":"v2","height":"9223372036854775808","info":""}');
    assert.throws(() => readUpgradeInfo(p), /"height" must be a positive integer, got "9223372036854775808"/);
  });
});

// ---------------------------------------------------------------- plan info

const hexOf = (n: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n });
const checksums = fc.oneof(
  hexOf(64).map((h) => `sha256:${h}`),
  hexOf(128).map((h) => `sha512:${h}`),
  hexOf(32).map((h) => `md5:${h}`),
  hexOf(40).map((h) => `sha1:${h}`),
  fc
    .tuple(fc.constantFrom('sha256', 'SHA256', 'sha512', 'sha384', 'blake2b', ''), fc.integer({ min: 0, max: 140 }))
    .chain(([a, n]) => hexOf(n).map((h) => `${a}:${h}`)),
  hexOf(64),
  fc.string({ maxLength: 20 }),
);
const schemes = fc.constantFrom('https', 'http', 'HTTPS', 'file', 'ftp', 's3', 'git', 'data', 'javascript', 'gcs', 'hg', 'x-y.z+w');
const hosts = fc.constantFrom(
  'releases.example.com',
  '127.0.0.1',
  '[::1]',
  'localhost',
  '10.0.0.1',
  'user:pw@example.com',
  'example.com:8443',
  '',
  'xn--nxasmq6b',
  '%41',
  '[::ffff:127.0.0.1]',
);
const paths = fc.tuple(
  fc.constantFrom('/chaind', '/a/b/chaind-v2', '/', '', '/%2e%2e/x', '/ä ö'),
  fc.constantFrom('.tar.gz', '.tgz', '.tar', '.zip', '.tar.xz', '.gz', '', '.TAR.GZ', '%'),
);
const queries = fc.array(
  fc.oneof(
    checksums.map((c) => `checksum=${c}`),
    fc.constantFrom('tar.gz', 'tgz', 'tar', 'zip', 'none', 'false', '', 'TAR').map((a) => `archive=${a}`),
    fc.string({ maxLength: 10 }),
  ),
  { maxLength: 3 },
);
const urls = fc.oneof(
  { arbitrary: fc.tuple(schemes, hosts, paths, queries).map(([s, h, [p, e], q]) => `${s}://${h}${p}${e}${q.length ? `?${q.join('&')}` : ''}`), weight: 6 },
  { arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
  { arbitrary: fc.constantFrom(12, null, ['https://x/y'], { url: 'https://x' }, ''), weight: 1 },
);
const platformKeys = fc.oneof(
  fc.constantFrom(platformKey(), 'any', 'linux/amd64', 'darwin/arm64', 'windows/386', 'Linux/AMD64', 'linux', 'linux/amd64/v2', '/', ''),
  fc.string({ maxLength: 10 }),
);
/** Entries a proposer would write: an os/arch or "any" key, an https URL with a sha256 or sha512 checksum. */
const wellFormedUrls = fc
  .tuple(
    fc.constantFrom('https://releases.example.com', 'https://127.0.0.1:8443', 'http://127.0.0.1:9', 'https://[::1]', 'https://u:p@mirror.example'),
    paths,
    fc.oneof(
      hexOf(64).map((h) => `sha256:${h}`),
      hexOf(128).map((h) => `sha512:${h}`),
    ),
    fc.constantFrom('', '&archive=tar.gz', '&archive=none', '&x=1', '#frag'),
  )
  .map(([base, [p, e], sum, tail]) => `${base}${p}${e}?checksum=${sum}${tail}`);
const wellFormedDocs = fc
  .dictionary(
    fc.constantFrom(platformKey(), 'any', 'linux/amd64', 'darwin/arm64', 'windows/amd64', 'linux/arm64'),
    fc.oneof({ arbitrary: wellFormedUrls, weight: 5 }, { arbitrary: urls, weight: 1 }),
    { minKeys: 1, maxKeys: 4 },
  )
  .map((b) => JSON.stringify({ binaries: b }));
const binariesDocs = fc.oneof(
  { arbitrary: wellFormedDocs, weight: 6 },
  { arbitrary: fc.dictionary(platformKeys, urls, { maxKeys: 4 }).map((b) => JSON.stringify({ binaries: b })), weight: 8 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ binaries: v })), weight: 1 },
  { arbitrary: fc.json({ maxDepth: 3 }), weight: 1 },
);
/** A valid document, then bytes flipped, cut, or padded. */
const mutatedDocs = fc.tuple(binariesDocs, fc.nat(), fc.constantFrom('flip', 'cut', 'pad')).map(([d, n, how]) => {
  if (d.length === 0) return d;
  const at = n % d.length;
  if (how === 'cut') return d.slice(0, at);
  if (how === 'pad') return ` \n\t${d}\u00a0`;
  return d.slice(0, at) + String.fromCharCode(d.charCodeAt(at) ^ (1 << n % 7)) + d.slice(at + 1);
});
const infoStrings = fc.oneof(
  { arbitrary: binariesDocs, weight: 6 },
  { arbitrary: mutatedDocs, weight: 3 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
  // info that looks like a URL: refused before anything is fetched, or fetched from nowhere (see noNetwork)
  { arbitrary: urls.filter((u): u is string => typeof u === 'string'), weight: 2 },
);
const policies = fc
  .record({ mustHaveChecksum: fc.boolean(), allowInsecureHttp: fc.boolean(), allowLoopbackHttp: fc.boolean() })
  .map((p): DownloadPolicy => ({ ...p, maxBytes: 1 << 20, stallTimeoutMs: 2000 }));

/** The source as a binaries entry again: its URL with go-getter's parameters put back. */
function entryOf(s: ReleaseSource): string {
  const u = new URL(s.url);
  if (s.checksum) u.searchParams.append('checksum', `${s.checksum.algo}:${s.checksum.hex}`);
  if (s.archive !== undefined) u.searchParams.append('archive', s.archive);
  return u.href;
}

type Outcome = { readonly ok: ReleaseSource[] } | { readonly err: FetchError };
async function outcome(p: Promise<ReleaseSource | ReleaseSource[]>, what: string): Promise<Outcome> {
  try {
    const r = await p;
    return { ok: Array.isArray(r) ? r : [r] };
  } catch (e) {
    assert.ok(e instanceof FetchError && e instanceof ChaindError, `${what} threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    assertClear(e.message, what);
    return { err: e };
  }
}

/** Every plan-info invariant for one info string under one policy. */
async function checkInfo(info: string, policy: DownloadPolicy): Promise<void> {
  const all = await outcome(planBinaries(info, policy), 'planBinaries');
  const mine = await outcome(resolveRelease(info, policy), 'resolveRelease');
  if ('ok' in all) {
    // the proposer's check passed: each entry, written back, is read back the same
    for (const s of all.ok) {
      const again = await outcome(planBinaries(JSON.stringify({ binaries: { [s.platform]: entryOf(s) } }), policy), 'planBinaries (round trip)');
      assert.ok('ok' in again, `entry ${entryOf(s)} did not read back: ${'err' in again ? again.err.message : ''}`);
      assert.deepEqual(again.ok, [s]);
    }
    // and chainvisor picks this platform's entry of the same list, or says it has none
    if ('ok' in mine)
      assert.deepEqual(
        mine.ok,
        all.ok.filter((s) => s.platform === mine.ok[0].platform),
      );
    else assert.equal(mine.err.kind, 'no-platform', `chainvisor refused what the proposer's check passed: ${mine.err.message}`);
  }
  if ('ok' in mine) {
    assert.equal(mine.ok.length, 1);
    assert.ok(mine.ok[0].platform === platformKey() || mine.ok[0].platform === 'any');
    assert.match(mine.ok[0].url, /^https?:\/\//);
  }
}

/** The fuzz reaches no host but loopback: anything else fails as an unreachable host would. */
const realFetch = globalThis.fetch;
function noNetwork(): void {
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const h = u.hostname.replace(/^\[|\]$/g, '');
    if (h === '127.0.0.1' || h === '::1' || h === 'localhost') return realFetch(input, init);
    return Promise.reject(new TypeError('fetch failed', { cause: new Error(`getaddrinfo ENOTFOUND ${u.hostname} (the fuzz test reaches only loopback)`) }));
  };
}

describe("fuzz: plan info through the one parser (the proposer's check and chainvisor)", () => {
  let mirror: Served;
  before(async () => {
    noNetwork();
    mirror = await serve();
  });
  after(async () => {
    globalThis.fetch = realFetch;
    await mirror.close();
  });

  test(`random strings, binaries maps with odd URLs, schemes and checksums (${RUNS.info} cases)`, async () => {
    await fc.assert(fc.asyncProperty(infoStrings, policies, checkInfo), fuzzParameters(RUNS.info));
  });

  test(`info as a URL to a document on a loopback mirror, with and without ?checksum= (${RUNS.infoUrl} cases)`, async () => {
    let n = 0;
    const cases = fc.tuple(
      infoStrings,
      fc.constantFrom('right', 'wrong', 'none', 'md5', 'short'),
      policies,
      fc.constantFrom('', '?archive=tar', '&x=1', '#frag'),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ([doc, sum, policy, tail]) => {
        const path = `/info/${++n}.json`;
        const body = Buffer.from(doc);
        mirror.file(path, body);
        const h = hex('sha256', body);
        const q = {
          right: `?checksum=sha256:${h}`,
          wrong: `?checksum=sha256:${'0'.repeat(64)}`,
          none: '',
          md5: `?checksum=md5:${hex('md5', body)}`,
          short: `?checksum=sha256:${h.slice(1)}`,
        }[sum];
        await checkInfo(`${mirror.base}${path}${q}${q === '' && tail.startsWith('&') ? '' : tail}`, policy);
      }),
      fuzzParameters(RUNS.infoUrl),
    );
  });

  test('regression: a megabyte platform key is refused with a short message, not the key', async () => {
    await checkInfo(JSON.stringify({ binaries: { ['a'.repeat(1 << 20)]: 'https://x.example/c' } }), {
      mustHaveChecksum: false,
      allowInsecureHttp: false,
      allowLoopbackHttp: false,
      maxBytes: 1 << 20,
      stallTimeoutMs: 2000,
    });
  });

  test('regression: a newline in a binaries key or archive= is escaped in the message', async () => {
    const policy: DownloadPolicy = { mustHaveChecksum: false, allowInsecureHttp: false, allowLoopbackHttp: false, maxBytes: 1 << 20, stallTimeoutMs: 2000 };
    await checkInfo(JSON.stringify({ binaries: { 'linux\n/amd64': 'https://x.example/c' } }), policy);
    await checkInfo(JSON.stringify({ binaries: { any: 'https://x.example/c?archive=a%0Ab' } }), policy);
    await checkInfo(JSON.stringify({ binaries: { 'a\nb': 12, any: 'https://x.example/c' } }), policy);
  });

  test("regression: a malformed %-escape in a binary's path is a valid URL, not a URIError", async () => {
    const info = JSON.stringify({ binaries: { any: `https://releases.example.com/chaind%?checksum=sha256:${'0'.repeat(64)}` } });
    const policy: DownloadPolicy = { mustHaveChecksum: true, allowInsecureHttp: false, allowLoopbackHttp: false, maxBytes: 1 << 20, stallTimeoutMs: 2000 };
    await checkInfo(info, policy);
    const [s] = await planBinaries(info, policy);
    assert.equal(s.url, 'https://releases.example.com/chaind%');
    assert.equal(prepareDownload(s, policy).fileName, 'chaind%');
  });

  test(`huge info strings (${RUNS.hugeFile} cases)`, async () => {
    const huge = fc.tuple(fc.constantFrom('key', 'url', 'checksum', 'text', 'query'), fc.integer({ min: 1 << 20, max: 2 << 20 })).map(([where, n]) => {
      const big = 'a'.repeat(n);
      if (where === 'key') return JSON.stringify({ binaries: { [big]: 'https://x.example/c' } });
      if (where === 'url') return JSON.stringify({ binaries: { any: `https://${big}.example/c` } });
      if (where === 'checksum') return JSON.stringify({ binaries: { any: `https://x.example/c?checksum=sha256:${big}` } });
      if (where === 'query') return `https://x.example/info.json?checksum=sha256:${big}`;
      return big;
    });
    await fc.assert(fc.asyncProperty(huge, policies, checkInfo), fuzzParameters(RUNS.hugeFile));
  });
});
