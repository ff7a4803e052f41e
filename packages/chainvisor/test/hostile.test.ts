// Hostile and broken upgrades seen from `chainvisor run`: the old binary halts like chaind (writes
// data/upgrade-info.json whose info points at a loopback mirror, exits 10), and what the mirror serves is
// wrong in one way per case. Each case: non-zero exit with one clear ERR line, `current` still on genesis,
// data/ exactly as the node left it, nothing left in upgrades/; the backup taken before the download is
// kept (complete, reused when the upgrade is retried).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT, type ExitCode } from '../src/exit-codes.ts';
import { hex, serve, tgz, type RawEntry, type Served } from '@chaind/upgrade-plan/testing';
import { baseEnv, chainvisor, killAll, makeHome, snapshot, writeDaemon, type Home } from '@chaind/chainvisor/testing';

/** The v2 release's binary: answers pre-upgrade, then runs until SIGTERM. */
const NEW_BINARY = `#!${process.execPath}
const fs = require('node:fs'); const path = require('node:path');
fs.appendFileSync(path.join(process.env.DAEMON_HOME, 'launches.log'), 'new ' + process.argv.slice(2).join(' ') + '\\n');
if (process.argv[2] === 'pre-upgrade') process.exit(0);
process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);
`;
const GOOD: RawEntry[] = [
  { path: 'bin/', type: 'Directory' },
  { path: 'bin/chaind', body: NEW_BINARY, mode: 0o755 },
];
/** 1 MiB of 'a'/'b' (from a fixed LCG): gzip makes it a small archive, under tar's own decompression-ratio check. */
const FILLER = ((): Buffer => {
  const b = Buffer.alloc(1 << 20);
  let x = 12345;
  for (let i = 0; i < b.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x & 0x10000 ? 0x61 : 0x62;
  }
  return b;
})();
const BOMB: RawEntry[] = [...GOOD, { path: 'share/filler', body: FILLER }];

/** Some node state: what an upgrade must never touch when it fails. */
function seedData(h: Home): void {
  mkdirSync(join(h.data, 'application.db'));
  writeFileSync(join(h.data, 'application.db', 'data.mdb'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256)));
  writeFileSync(join(h.data, 'priv_validator_state.json'), '{"height":"19","round":0,"step":3}');
}

interface Case {
  readonly name: string;
  /** the plan the old binary writes before exiting 10; null: it crashes with code 3 and writes none */
  readonly plan: ((srv: Served) => { name: string; height: number; info: string }) | null;
  /** routes the mirror serves for this case */
  readonly serve?: (srv: Served) => void;
  readonly code: ExitCode;
  readonly error: (srv: Served) => string | RegExp;
  /** the backup of data/ was taken (the failure came after it) */
  readonly backup: boolean;
  /** requests the mirror should have had */
  readonly hits: number;
  /** the node writes only the first bytes of the plan and never completes it (it died mid-write) */
  readonly halfWritten?: boolean;
  /** settings for this case on top of the common ones */
  readonly env?: Record<string, string>;
}

const sha256 = (b: Buffer): string => hex('sha256', b);
const plan = (url: (base: string) => string) => (srv: Served) => ({ name: 'v2', height: 20, info: JSON.stringify({ binaries: { any: url(srv.base) } }) });
const archiveAt = (path: string, entries: RawEntry[]) => (srv: Served) => srv.file(path, tgz(entries));
const withSum = (path: string, entries: RawEntry[]) => (base: string) => `${base}${path}?checksum=sha256:${sha256(tgz(entries))}`;
const failed = (why: string): string => `download of upgrade v2 failed: ${why}; current unchanged`;

const CASES: Case[] = [
  {
    name: 'checksum mismatch',
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: plan((b) => `${b}/chaind-v2.tar.gz?checksum=sha256:${'0'.repeat(64)}`),
    code: EXIT.UPGRADE_FAILED,
    error: (s) => failed(`checksum mismatch for ${s.base}/chaind-v2.tar.gz: expected sha256 ${'0'.repeat(64)}, got ${sha256(tgz(GOOD))}`),
    backup: true,
    hits: 1,
  },
  {
    name: 'missing checksum',
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: plan((b) => `${b}/chaind-v2.tar.gz`),
    code: EXIT.UPGRADE_FAILED,
    error: (s) =>
      failed(
        `refusing to download ${s.base}/chaind-v2.tar.gz: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)`,
      ),
    backup: true,
    hits: 0,
  },
  {
    name: 'md5 checksum',
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: plan((b) => `${b}/chaind-v2.tar.gz?checksum=md5:${hex('md5', tgz(GOOD))}`),
    code: EXIT.UPGRADE_FAILED,
    error: (s) => failed(`refusing md5 checksum for ${s.base}/chaind-v2.tar.gz: md5 is too weak, use sha256 or sha512`),
    backup: true,
    hits: 0,
  },
  {
    name: 'sha1 checksum',
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: plan((b) => `${b}/chaind-v2.tar.gz?checksum=sha1:${hex('sha1', tgz(GOOD))}`),
    code: EXIT.UPGRADE_FAILED,
    error: (s) => failed(`refusing sha1 checksum for ${s.base}/chaind-v2.tar.gz: sha1 is too weak, use sha256 or sha512`),
    backup: true,
    hits: 0,
  },
  {
    name: '404',
    plan: plan(withSum('/missing.tar.gz', GOOD)),
    code: EXIT.UPGRADE_FAILED,
    error: (s) => failed(`download of ${s.base}/missing.tar.gz failed: HTTP 404 Not Found`),
    backup: true,
    hits: 1,
  },
  {
    name: 'truncated archive (fewer bytes than Content-Length, then the connection closes)',
    serve: (srv) =>
      srv.route('/chaind-v2.tar.gz', (_req, res) => {
        const body = tgz(GOOD);
        res.writeHead(200, { 'content-length': body.length });
        res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
      }),
    plan: plan(withSum('/chaind-v2.tar.gz', GOOD)),
    code: EXIT.UPGRADE_FAILED,
    error: (s) =>
      new RegExp(
        `^download of upgrade v2 failed: download of ${s.base}/chaind-v2\\.tar\\.gz was cut short: received \\d+ of ${tgz(GOOD).length} bytes \\(.+\\); current unchanged$`,
      ),
    backup: true,
    hits: 1,
  },
  {
    name: 'stalled mirror (headers and half the archive, then silence with the connection open)',
    serve: (srv) =>
      srv.route('/chaind-v2.tar.gz', (_req, res) => {
        const body = tgz(GOOD);
        res.writeHead(200, { 'content-length': body.length });
        res.write(body.subarray(0, body.length >> 1));
      }),
    plan: plan(withSum('/chaind-v2.tar.gz', GOOD)),
    env: { DAEMON_DOWNLOAD_STALL_TIMEOUT: '300ms' },
    code: EXIT.UPGRADE_FAILED,
    error: (s) => failed(`download of ${s.base}/chaind-v2.tar.gz stalled: no data for 300ms (received ${tgz(GOOD).length >> 1} of ${tgz(GOOD).length} bytes)`),
    backup: true,
    hits: 1,
  },
  ...(
    [
      ['archive with ../ entries', [...GOOD, { path: '../../../evil', body: 'x' }], 'entry "../../../evil" has a ".." path segment'],
      [
        'archive with an absolute path entry',
        [...GOOD, { path: '/tmp/chainvisor-evil-abs', body: 'x' }],
        'entry "/tmp/chainvisor-evil-abs" has an absolute path',
      ],
      [
        'archive with a hard link to a symlink (whose relative target would be read from the root)',
        [...GOOD, { path: 'bin/l', type: 'SymbolicLink', linkpath: '../x' }, { path: 'h', type: 'Link', linkpath: 'bin/l' }],
        'entry "h" is a hard link to the symbolic link bin/l',
      ],
      [
        'archive with a hard link through a symlinked folder',
        [...GOOD, { path: 'l', type: 'SymbolicLink', linkpath: 'bin' }, { path: 'h', type: 'Link', linkpath: 'l/chaind' }],
        'entry "h" is a hard link to l/chaind, which goes through the symbolic link l',
      ],
      [
        'archive with a symlink chain that escapes once its second link exists',
        [...GOOD, { path: 'l2', type: 'SymbolicLink', linkpath: 'bin/l1/..' }, { path: 'bin/l1', type: 'SymbolicLink', linkpath: '..' }],
        'entry "l2" is a symbolic link to bin/l1/.., which points outside the release folder',
      ],
      [
        'archive whose bin/chaind is a symlink',
        [
          { path: 'bin/real', body: NEW_BINARY, mode: 0o755 },
          { path: 'bin/chaind', type: 'SymbolicLink', linkpath: 'real' },
        ],
        '',
      ],
    ] as const
  ).map(
    ([name, entries, entry]): Case => ({
      name,
      serve: archiveAt('/chaind-v2.tar.gz', [...entries]),
      plan: plan(withSum('/chaind-v2.tar.gz', [...entries])),
      code: EXIT.UPGRADE_FAILED,
      error: () =>
        failed(
          entry
            ? `unsafe archive chaind-v2.tar.gz: ${entry}`
            : 'release chaind-v2.tar.gz: bin/chaind is a symbolic link; the daemon binary must be a regular file',
        ),
      backup: true,
      hits: 1,
    }),
  ),
  {
    name: 'archive bomb: a small tar.gz that unpacks past DAEMON_MAX_EXTRACT_BYTES',
    serve: archiveAt('/chaind-v2.tar.gz', BOMB),
    plan: plan(withSum('/chaind-v2.tar.gz', BOMB)),
    env: { DAEMON_MAX_EXTRACT_BYTES: '65536' },
    code: EXIT.UPGRADE_FAILED,
    error: () => failed('archive chaind-v2.tar.gz refused: it unpacks to more than 65536 bytes (limit set by DAEMON_MAX_EXTRACT_BYTES)'),
    backup: true,
    hits: 1,
  },
  {
    name: 'plain http to a loopback mirror without DAEMON_ALLOW_LOOPBACK_HTTP',
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: plan(withSum('/chaind-v2.tar.gz', GOOD)),
    env: { DAEMON_ALLOW_LOOPBACK_HTTP: 'false', DAEMON_ALLOW_INSECURE_HTTP: 'true' },
    code: EXIT.UPGRADE_FAILED,
    error: (s) =>
      failed(
        `refusing to download ${withSum('/chaind-v2.tar.gz', GOOD)(s.base)}: plain http to the loopback host 127.0.0.1 is not allowed (only https, unless a loopback mirror is allowed with DAEMON_ALLOW_LOOPBACK_HTTP=true)`,
      ),
    backup: true,
    hits: 0,
  },
  {
    name: "plan name '..'",
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: (srv) => ({ ...plan(withSum('/chaind-v2.tar.gz', GOOD))(srv), name: '..' }),
    code: EXIT.UPGRADE_INFO_INVALID,
    error: () => 'HOME/data/upgrade-info.json is invalid: unsafe upgrade name: ".." is not a valid folder name',
    backup: false,
    hits: 0,
  },
  {
    name: 'upgrade-info.json never completed (the node died mid-write)',
    serve: archiveAt('/chaind-v2.tar.gz', GOOD),
    plan: plan(withSum('/chaind-v2.tar.gz', GOOD)),
    halfWritten: true,
    code: EXIT.UPGRADE_INFO_INVALID,
    error: () => /^\S+\/data\/upgrade-info\.json is invalid: still not complete JSON \(.+\) after 2\.000s$/,
    backup: false,
    hits: 0,
  },
  {
    name: 'node crash that is not an upgrade',
    plan: null,
    code: EXIT.DAEMON_FAILED,
    error: () => 'chaind exited with code 3 and no upgrade is pending: not restarted; current and data/ left untouched',
    backup: false,
    hits: 0,
  },
];

describe('hostile upgrades under chainvisor run', () => {
  let h: Home;
  let srv: Served;
  beforeEach(async () => {
    h = makeHome();
    seedData(h);
    srv = await serve();
  });
  afterEach(async () => {
    killAll();
    await srv.close();
    h.cleanup();
  });
  const env = (extra: Record<string, string> = {}): Record<string, string> => baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', ...extra });

  for (const c of CASES) {
    test(c.name, async () => {
      c.serve?.(srv);
      const p = c.plan?.(srv);
      const text = p && (c.halfWritten ? JSON.stringify(p).slice(0, 15) : JSON.stringify(p));
      const write = `fs.writeFileSync(path.join(home, 'data', 'upgrade-info.json'), ${JSON.stringify(text)});`;
      writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'old', text ? `${write} process.exit(10);` : 'process.exit(3);');
      const before = snapshot(h.data);
      const { code, stderr } = await chainvisor(['run', 'start'], env(c.env)).exit;

      assert.equal(code, c.code, stderr);
      const errors = stderr.split('\n').filter((l) => l.includes(' ERR '));
      assert.equal(errors.length, 1, stderr);
      assert.equal(stderr.trim().split('\n').at(-1), errors[0], 'the error line is the last line');
      const want = c.error(srv);
      const got = errors[0].replace(/^\[chainvisor\] ERR /, '');
      if (typeof want === 'string') assert.equal(got, want.replace('HOME', h.home));
      else assert.match(got, want);

      assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
      assert.deepEqual(h.launches(), ['old start'], 'nothing but the old binary ran, once');
      const after = snapshot(h.data);
      const expected = { ...before, ...(text ? { 'upgrade-info.json': Buffer.from(text).toString('base64') } : {}) };
      assert.deepEqual(after, expected, 'data/ is as the node left it');
      assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), [], 'nothing left in upgrades/');
      assert.deepEqual(
        readdirSync(h.cv).sort(),
        ['current', 'genesis', 'status.json', 'upgrades'],
        'nothing but the status file (docs/chainvisor.md) is added',
      );
      assert.deepEqual(readdirSync(h.home).sort(), ['cosmovisor', 'data', ...(c.backup ? ['data-backup-v2-20'] : []), 'launches.log']);
      if (c.backup) assert.deepEqual(snapshot(join(h.home, 'data-backup-v2-20')), after, 'the backup is a complete copy');
      assert.equal(srv.hits.length, c.hits);
      assert.equal(existsSync('/tmp/chainvisor-evil-abs'), false);
    });
  }

  test('chainvisor killed (SIGKILL) mid-download and restarted: the restart downloads cleanly and completes the upgrade', async () => {
    const body = tgz(GOOD);
    let firstChunkSent!: () => void;
    const sent = new Promise<void>((r) => (firstChunkSent = r));
    let requests = 0;
    srv.route('/chaind-v2.tar.gz', (_req, res) => {
      res.writeHead(200, { 'content-length': body.length });
      // the first request stalls after half the archive (a slow mirror); the next one is served whole
      if (++requests === 1) res.write(body.subarray(0, body.length >> 1), () => firstChunkSent());
      else res.end(body);
    });
    const p = plan(withSum('/chaind-v2.tar.gz', GOOD))(srv);
    writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'old', `writeInfo(${JSON.stringify(p)}); process.exit(10);`);
    const dataBefore = { ...snapshot(h.data), 'upgrade-info.json': Buffer.from(JSON.stringify(p)).toString('base64') };

    const first = chainvisor(['run', 'start'], env({ DAEMON_RESTART_AFTER_UPGRADE: 'false' }));
    await first.waitFor(/INF downloading http:\/\/127\.0\.0\.1:\d+\/chaind-v2\.tar\.gz$/);
    await sent;
    const partial = (): string[] => readdirSync(join(h.cv, 'upgrades')).filter((n) => n.startsWith('.v2.partial-'));
    while (!partial().some((d) => existsSync(join(h.cv, 'upgrades', d, 'download')))) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    const killed = await first.exit;
    assert.equal(killed.code, null);
    // what a kill leaves: a partial folder, never upgrades/v2; current and data/ untouched
    assert.equal(partial().length, 1);
    assert.equal(existsSync(join(h.cv, 'upgrades', 'v2')), false);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
    assert.deepEqual(snapshot(h.data), dataBefore);

    const second = await chainvisor(['run', 'start'], env({ DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
    assert.equal(second.code, EXIT.OK, second.stderr);
    assert.match(second.stderr, /INF backup .*data-backup-v2-20 already exists: kept\n/);
    assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), ['v2'], 'the killed attempt left nothing behind');
    assert.equal(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'), 'utf8'), NEW_BINARY);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
    // the old binary was not started again by the restart: the pending upgrade came first
    assert.deepEqual(h.launches(), ['old start', `new pre-upgrade --home ${h.home}`]);
    assert.equal(requests, 2);
  });
});
