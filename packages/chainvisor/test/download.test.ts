import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXIT } from '../src/exit-codes.ts';
import { decodeCurrentPlan } from '../src/prepare.ts';
import { tgz } from '@chaind/upgrade-plan/testing';
import { baseEnv, chainvisor, killAll, makeHome, planResponse, planServer, writeDaemon, type Home } from '@chaind/chainvisor/testing';

/** The release: a daemon script that answers pre-upgrade and runs until SIGTERM. */
function releaseScript(h: Home): Buffer {
  const p = join(h.root, 'release-chaind');
  writeDaemon(p, 'downloaded', "if (args[0] === 'pre-upgrade') process.exit(0); process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);");
  return readFileSync(p);
}

/** A loopback file server; every request is counted. */
async function fileServer(
  files: Record<string, Buffer>,
  pace?: { readonly chunk: number; readonly everyMs: number },
): Promise<{ url: string; server: Server; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = files[(req.url ?? '').split('?')[0]];
    if (!body) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.setHeader('content-length', body.length);
    if (!pace) {
      res.end(body);
      return;
    }
    let at = 0;
    const t = setInterval(() => {
      res.write(body.subarray(at, at + pace.chunk));
      at += pace.chunk;
      if (at >= body.length) {
        clearInterval(t);
        res.end();
      }
    }, pace.everyMs);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits };
}

describe('releases downloaded by chainvisor', () => {
  let h: Home;
  let closers: (() => void)[] = [];
  beforeEach(() => (h = makeHome()));
  afterEach(() => {
    killAll();
    for (const c of closers) c();
    closers = [];
    h.cleanup();
  });
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
  const oldHalting = (info: string): void =>
    void writeDaemon(join(h.cv, 'genesis', 'bin', 'chaind'), 'old', `writeInfo({ name: 'v2', height: 20, info: ${JSON.stringify(info)} }); process.exit(10);`);

  test('at the halt: downloaded, verified, installed, switched', async () => {
    const bin = releaseScript(h);
    const files = await fileServer({ '/chaind': bin });
    closers.push(() => files.server.close());
    oldHalting(JSON.stringify({ binaries: { any: `${files.url}/chaind?checksum=sha256:${sha(bin)}` } }));
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'false' }))
      .exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.deepEqual(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), bin);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
    assert.deepEqual(h.launches(), ['old start', `downloaded pre-upgrade --home ${h.home}`]);
  });

  test('a checksum mismatch: exit 3, nothing installed, current untouched', async () => {
    const bin = releaseScript(h);
    const files = await fileServer({ '/chaind': bin });
    closers.push(() => files.server.close());
    oldHalting(JSON.stringify({ binaries: { any: `${files.url}/chaind?checksum=sha256:${'0'.repeat(64)}` } }));
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' })).exit;
    assert.equal(code, EXIT.UPGRADE_FAILED);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR download of upgrade v2 failed: checksum mismatch for ${files.url}/chaind: expected sha256 ${'0'.repeat(64)}, got ${sha(bin)}; current unchanged`,
    );
    assert.equal(existsSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), false);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
  });

  test('the disk fills up during the download: exit 3, one clear line, nothing half-installed, current untouched', async () => {
    // 4 MiB against a 1 MiB file-size limit: the write fails with EFBIG mid-download, while more is still on its way
    const big = Buffer.concat([releaseScript(h), Buffer.from('\n//'), Buffer.alloc(4 << 20, 0x61)]);
    const files = await fileServer({ '/chaind': big }, { chunk: 256 << 10, everyMs: 25 });
    closers.push(() => files.server.close());
    oldHalting(JSON.stringify({ binaries: { any: `${files.url}/chaind?checksum=sha256:${sha(big)}` } }));
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', UNSAFE_SKIP_BACKUP: 'true' }), undefined, {
      fileSizeKiB: 1024,
    }).exit;
    assert.equal(code, EXIT.UPGRADE_FAILED, stderr);
    const last = stderr.trim().split('\n').at(-1) ?? '';
    assert.match(last, /^\[chainvisor\] ERR download of upgrade v2 failed: writing .*\/download failed: EFBIG: file too large, write; current unchanged$/);
    assert.doesNotMatch(stderr, /internal error|Unhandled|at async/);
    assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), []);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
  });

  test('a release without a checksum is refused by default', async () => {
    const bin = releaseScript(h);
    const files = await fileServer({ '/chaind': bin });
    closers.push(() => files.server.close());
    oldHalting(JSON.stringify({ binaries: { any: `${files.url}/chaind` } }));
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true' })).exit;
    assert.equal(code, EXIT.UPGRADE_FAILED);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR download of upgrade v2 failed: refusing to download ${files.url}/chaind: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum); current unchanged`,
    );
    assert.equal(files.hits.length, 0);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
  });

  test('an info URL pinned by its checksum: the document the plan pinned is used; the host swapping it gets exit 3, nothing fetched from it', async () => {
    const binA = releaseScript(h);
    const evil = join(h.root, 'evil-chaind');
    writeDaemon(evil, 'evil', "if (args[0] === 'pre-upgrade') process.exit(0); process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);");
    const binB = readFileSync(evil);
    const served: Record<string, Buffer> = { '/a': binA, '/b': binB };
    const files = await fileServer(served);
    closers.push(() => files.server.close());
    const docA = Buffer.from(JSON.stringify({ binaries: { any: `${files.url}/a?checksum=sha256:${sha(binA)}` } }));
    const docB = Buffer.from(JSON.stringify({ binaries: { any: `${files.url}/b?checksum=sha256:${sha(binB)}` } }));
    const env = baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'false', UNSAFE_SKIP_BACKUP: 'true' });
    // the governance proposal pinned document A
    oldHalting(`${files.url}/info.json?checksum=sha256:${sha(docA)}`);

    // the host swaps in B, which names another binary with its own, correct checksum
    served['/info.json'] = docB;
    const swapped = await chainvisor(['run', 'start'], env).exit;
    assert.equal(swapped.code, EXIT.UPGRADE_FAILED, swapped.stderr);
    assert.equal(
      swapped.stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR download of upgrade v2 failed: checksum mismatch for ${files.url}/info.json: expected sha256 ${sha(docA)}, got ${sha(docB)}; current unchanged`,
    );
    assert.equal(files.hits.includes('/b'), false, "the swapped document's binary is never fetched");
    assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), []);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');

    // the document the chain pinned: its binary runs
    served['/info.json'] = docA;
    const pinned = await chainvisor(['run', 'start'], env).exit;
    assert.equal(pinned.code, EXIT.OK, pinned.stderr);
    assert.deepEqual(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), binA);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
  });

  test('an info URL without a checksum is refused before anything is fetched, though its binaries carry checksums', async () => {
    const bin = releaseScript(h);
    const served: Record<string, Buffer> = { '/chaind': bin };
    const files = await fileServer(served);
    closers.push(() => files.server.close());
    served['/info.json'] = Buffer.from(JSON.stringify({ binaries: { any: `${files.url}/chaind?checksum=sha256:${sha(bin)}` } }));
    oldHalting(`${files.url}/info.json`);
    const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'false' }))
      .exit;
    assert.equal(code, EXIT.UPGRADE_FAILED, stderr);
    assert.equal(
      stderr.trim().split('\n').at(-1),
      `[chainvisor] ERR download of upgrade v2 failed: refusing to download ${files.url}/info.json: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum); current unchanged`,
    );
    assert.deepEqual(files.hits, []);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
  });

  test('CurrentPlan answers decode to the plan', () => {
    assert.equal(decodeCurrentPlan(planResponse()), undefined);
    assert.deepEqual(decodeCurrentPlan(planResponse({ name: 'v2', info: 'x', height: 20n })), { name: 'v2', info: 'x', height: 20n });
  });

  test('prepare-upgrade: no plan → exit 0; a plan → the release installed ahead of the halt; again → skipped', async () => {
    const bin = releaseScript(h);
    const files = await fileServer({ '/chaind': bin });
    closers.push(() => files.server.close());
    let plan: Uint8Array = planResponse();
    const grpc = await planServer(() => plan);
    closers.push(() => grpc.server.forceShutdown());
    const env = baseEnv(h, { DAEMON_GRPC_ADDRESS: grpc.address });
    const none = await chainvisor(['prepare-upgrade'], env).exit;
    assert.equal(none.code, EXIT.OK, none.stderr);
    assert.equal(none.stderr, '[chainvisor] INF No active upgrade plan found\n');

    plan = planResponse({ name: 'V2', height: 20n, info: JSON.stringify({ binaries: { any: `${files.url}/chaind?checksum=sha256:${sha(bin)}` } }) });
    const ready = await chainvisor(['prepare-upgrade'], env).exit;
    assert.equal(ready.code, EXIT.OK, ready.stderr);
    assert.match(ready.stderr, /\[chainvisor\] INF release V2 ready\n$/);
    const dest = join(h.cv, 'upgrades', 'v2', 'bin', 'chaind');
    assert.deepEqual(readFileSync(dest), bin);
    assert.ok((statSync(dest).mode & 0o111) !== 0);

    const hits = files.hits.length;
    const again = await chainvisor(['prepare-upgrade'], env).exit;
    assert.equal(again.code, EXIT.OK, again.stderr);
    assert.equal(again.stderr, `[chainvisor] INF release V2 ready (already installed at ${dest})\n`);
    assert.equal(files.hits.length, hits);
  });

  test('prepare-upgrade with the download host unreachable: exit 3, one line naming the URL and the cause, nothing installed', async () => {
    // a loopback port nothing listens on: refused at once
    const closed = await new Promise<number>((res) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => res(port));
      });
    });
    const url = `http://127.0.0.1:${closed}/chaind?checksum=sha256:${'0'.repeat(64)}`;
    const grpc = await planServer(() => planResponse({ name: 'v2', height: 20n, info: JSON.stringify({ binaries: { any: url } }) }));
    closers.push(() => grpc.server.forceShutdown());
    const r = await chainvisor(['prepare-upgrade'], baseEnv(h, { DAEMON_GRPC_ADDRESS: grpc.address })).exit;
    assert.equal(r.code, EXIT.UPGRADE_FAILED, r.stderr);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    assert.match(
      last,
      new RegExp(`^\\[chainvisor\\] ERR plan v2: download of http://127\\.0\\.0\\.1:${closed}/chaind\\S* failed: .*ECONNREFUSED.*; nothing installed$`),
    );
    assert.doesNotMatch(r.stderr, /internal error| {4}at /, 'no stack trace');
    assert.equal(existsSync(join(h.cv, 'upgrades', 'v2')), false);
  });

  test('prepare-upgrade with the node unreachable: exit 8, the cause on one line (no empty "Resolution note:")', async () => {
    const r = await chainvisor(['prepare-upgrade'], baseEnv(h, { DAEMON_GRPC_ADDRESS: '127.0.0.1:9' })).exit;
    assert.equal(r.code, EXIT.NODE_UNREACHABLE);
    assert.match(
      r.stderr,
      /^\[chainvisor\] ERR CurrentPlan query to 127\.0\.0\.1:9 failed: No connection established\. Last error: connect ECONNREFUSED 127\.0\.0\.1:9\n$/,
    );
  });

  test('DAEMON_PREPARE_UPGRADE=true: prepared while the node runs, so at the halt only the switch remains', async () => {
    const bin = releaseScript(h);
    const files = await fileServer({ '/chaind': bin });
    closers.push(() => files.server.close());
    const info = JSON.stringify({ binaries: { any: `${files.url}/chaind?checksum=sha256:${sha(bin)}` } });
    const grpc = await planServer(() => planResponse({ name: 'v2', height: 20n, info }));
    closers.push(() => grpc.server.forceShutdown());
    // the old binary halts once told to (after the release is ready)
    writeDaemon(
      join(h.cv, 'genesis', 'bin', 'chaind'),
      'old',
      `const go = path.join(home, 'halt'); setInterval(() => { if (fs.existsSync(go)) { writeInfo({ name: 'v2', height: 20, info: ${JSON.stringify(info)} }); process.exit(10); } }, 20);`,
    );
    const r = chainvisor(
      ['run', 'start'],
      baseEnv(h, { DAEMON_PREPARE_UPGRADE: 'true', DAEMON_GRPC_ADDRESS: grpc.address, DAEMON_RESTART_AFTER_UPGRADE: 'false' }),
    );
    await r.waitFor(/INF release v2 ready$/);
    const hits = files.hits.length;
    writeFileSync(join(h.home, 'halt'), '');
    const { code, stderr } = await r.exit;
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stderr, /INF using the installed binary .*upgrades\/v2\/bin\/chaind\n/);
    assert.equal(files.hits.length, hits);
    assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
  });

  test('DAEMON_PREPARE_UPGRADE=true and an archive bomb: the refusal is logged, the node keeps committing blocks, nothing left in upgrades/', async () => {
    // 1 MiB of 'a'/'b' (a fixed LCG): a small gzip, under tar's own decompression-ratio check, past a 64 KiB cap
    const filler = Buffer.alloc(1 << 20);
    let x = 12345;
    for (let i = 0; i < filler.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      filler[i] = x & 0x10000 ? 0x61 : 0x62;
    }
    const bomb = tgz([
      { path: 'bin/', type: 'Directory' },
      { path: 'bin/chaind', body: releaseScript(h), mode: 0o755 },
      { path: 'share/filler', body: filler },
    ]);
    assert.ok(bomb.length < filler.length / 4);
    const files = await fileServer({ '/chaind-v2.tar.gz': bomb });
    closers.push(() => files.server.close());
    const info = JSON.stringify({ binaries: { any: `${files.url}/chaind-v2.tar.gz?checksum=sha256:${sha(bomb)}` } });
    const grpc = await planServer(() => planResponse({ name: 'v2', height: 20n, info }));
    closers.push(() => grpc.server.forceShutdown());
    // the running node: a block every 20 ms, as a line in blocks.log
    writeDaemon(
      join(h.cv, 'genesis', 'bin', 'chaind'),
      'old',
      "setInterval(() => fs.appendFileSync(path.join(home, 'blocks.log'), 'b\\n'), 20); process.on('SIGTERM', () => process.exit(0));",
    );
    const blocks = (): number => (existsSync(join(h.home, 'blocks.log')) ? readFileSync(join(h.home, 'blocks.log'), 'utf8').length : 0);
    const r = chainvisor(
      ['run', 'start'],
      baseEnv(h, { DAEMON_PREPARE_UPGRADE: 'true', DAEMON_GRPC_ADDRESS: grpc.address, DAEMON_MAX_EXTRACT_BYTES: '65536' }),
    );
    await r.waitFor(
      /WRN prepare-upgrade failed, not retried before the halt: plan v2: archive chaind-v2\.tar\.gz refused: it unpacks to more than 65536 bytes \(limit set by DAEMON_MAX_EXTRACT_BYTES\); nothing installed$/,
    );
    assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), [], 'nothing left in upgrades/');
    const before = blocks();
    await new Promise((res) => setTimeout(res, 300));
    assert.ok(blocks() > before, 'the node keeps committing blocks');
    assert.equal(r.child.exitCode, null, 'chainvisor still runs');
    assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');
    assert.equal(files.hits.length, 1);
  });

  describe('a plan re-proposed under the same name with another release', () => {
    /** The old binary polls for `halt` and reads the plan's info from it: written whole, then renamed, so it never reads a half-written file. */
    function haltWith(info: string): void {
      writeFileSync(join(h.home, 'halt.tmp'), info);
      renameSync(join(h.home, 'halt.tmp'), join(h.home, 'halt'));
    }

    /** Two releases of v2 that say which one runs; the plan server answers whatever `plan.info` holds now. */
    async function twoReleases(): Promise<{ infoA: string; infoB: string; binA: Buffer; binB: Buffer; plan: { info: string }; grpc: string }> {
      const make = (who: string): Buffer => {
        const p = join(h.root, `release-${who}`);
        writeDaemon(p, who, "if (args[0] === 'pre-upgrade') process.exit(0); process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);");
        return readFileSync(p);
      };
      const binA = make('release-A');
      const binB = make('release-B');
      const files = await fileServer({ '/a/chaind': binA, '/b/chaind': binB });
      closers.push(() => files.server.close());
      const infoA = JSON.stringify({ binaries: { any: `${files.url}/a/chaind?checksum=sha256:${sha(binA)}` } });
      const infoB = JSON.stringify({ binaries: { any: `${files.url}/b/chaind?checksum=sha256:${sha(binB)}` } });
      const plan = { info: infoA };
      const grpc = await planServer(() => planResponse({ name: 'v2', height: 20n, info: plan.info }));
      closers.push(() => grpc.server.forceShutdown());
      return { infoA, infoB, binA, binB, plan, grpc: grpc.address };
    }

    test('prepared for the first plan, then re-proposed: the new release is what runs at the halt', async () => {
      const { infoB, binA, binB, plan, grpc } = await twoReleases();
      // the old binary halts once told to, with the plan it then has (the re-proposed one)
      writeDaemon(
        join(h.cv, 'genesis', 'bin', 'chaind'),
        'old',
        `const go = path.join(home, 'halt'); setInterval(() => { if (fs.existsSync(go)) { writeInfo({ name: 'v2', height: 20, info: fs.readFileSync(go, 'utf8') }); process.exit(10); } }, 20);`,
      );
      const r = chainvisor(
        ['run', 'start'],
        baseEnv(h, {
          DAEMON_PREPARE_UPGRADE: 'true',
          DAEMON_GRPC_ADDRESS: grpc,
          DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
          DAEMON_RESTART_AFTER_UPGRADE: 'false',
        }),
      );
      await r.waitFor(/INF release v2 ready$/);
      const prepared = readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind'));
      // governance cancels v2 and schedules it again with another binary; the node halts right away
      plan.info = infoB;
      haltWith(infoB);
      const { code, stderr } = await r.exit;
      assert.equal(code, EXIT.OK, stderr);
      assert.deepEqual(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), binB);
      assert.deepEqual(h.launches(), ['old start', `release-B pre-upgrade --home ${h.home}`]);
      assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
      assert.deepEqual(prepared, binA, 'the first plan had been prepared');
      assert.equal((JSON.parse(readFileSync(join(h.cv, 'upgrades', 'v2', 'chainvisor-plan.json'), 'utf8')) as { info: string }).info, infoB);
    });

    test('DAEMON_PREPARE_UPGRADE keeps polling: the re-proposed plan is prepared before the halt', { timeout: 30_000 }, async () => {
      const { infoB, binB, plan, grpc } = await twoReleases();
      writeDaemon(
        join(h.cv, 'genesis', 'bin', 'chaind'),
        'old',
        `const go = path.join(home, 'halt'); setInterval(() => { if (fs.existsSync(go)) { writeInfo({ name: 'v2', height: 20, info: fs.readFileSync(go, 'utf8') }); process.exit(10); } }, 20);`,
      );
      const r = chainvisor(['run', 'start'], baseEnv(h, { DAEMON_PREPARE_UPGRADE: 'true', DAEMON_GRPC_ADDRESS: grpc, DAEMON_RESTART_AFTER_UPGRADE: 'false' }));
      await r.waitFor(/INF release v2 ready$/);
      plan.info = infoB;
      await r.waitFor(/WRN the release in .*upgrades\/v2 is not the one of plan v2: .*: replacing it$/);
      await r.waitFor(/INF downloading upgrade v2 for any$/);
      // the second `ready` comes after the replacement
      while ((r.stderr().match(/INF release v2 ready$/gm) ?? []).length < 2) await new Promise((res) => setTimeout(res, 20));
      haltWith(infoB);
      const { code, stderr } = await r.exit;
      assert.equal(code, EXIT.OK, stderr);
      assert.match(stderr, /INF using the installed binary .*upgrades\/v2\/bin\/chaind\n/);
      assert.deepEqual(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), binB);
      assert.deepEqual(h.launches(), ['old start', `release-B pre-upgrade --home ${h.home}`]);
    });

    test('prepare-upgrade replaces the release prepared for the earlier plan', async () => {
      const { infoB, binA, binB, plan, grpc } = await twoReleases();
      const env = baseEnv(h, { DAEMON_GRPC_ADDRESS: grpc });
      const first = await chainvisor(['prepare-upgrade'], env).exit;
      assert.equal(first.code, EXIT.OK, first.stderr);
      assert.deepEqual(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), binA);
      plan.info = infoB;
      const again = await chainvisor(['prepare-upgrade'], env).exit;
      assert.equal(again.code, EXIT.OK, again.stderr);
      assert.match(
        again.stderr,
        /WRN the release in .*upgrades\/v2 is not the one of plan v2: it was installed for the plan v2 at height 20 with another info \(sha256:[0-9a-f]{64} from http:\/\/127\.0\.0\.1:\d+\/a\/chaind\): replacing it\n/,
      );
      assert.deepEqual(readFileSync(join(h.cv, 'upgrades', 'v2', 'bin', 'chaind')), binB);
      assert.deepEqual(readdirSync(join(h.cv, 'upgrades')), ['v2'], 'no temp folder left');
    });

    test('with downloads off, the stale release is refused at the halt: exit 3, never run, current unchanged', async () => {
      const { infoB, plan, grpc } = await twoReleases();
      const prepared = await chainvisor(['prepare-upgrade'], baseEnv(h, { DAEMON_GRPC_ADDRESS: grpc })).exit;
      assert.equal(prepared.code, EXIT.OK, prepared.stderr);
      const stale = readFileSync(join(h.cv, 'upgrades', 'v2', 'chainvisor-plan.json'));
      plan.info = infoB;
      oldHalting(infoB);
      const { code, stderr } = await chainvisor(['run', 'start'], baseEnv(h, { UNSAFE_SKIP_BACKUP: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
      assert.equal(code, EXIT.UPGRADE_FAILED, stderr);
      assert.match(
        stderr.trim().split('\n').at(-1) ?? '',
        /^\[chainvisor\] ERR the release in .*upgrades\/v2 is not the one of plan v2: it was installed for the plan v2 at height 20 with another info \(.*\); not run, and it cannot be replaced \(DAEMON_ALLOW_DOWNLOAD_BINARIES is false\): install the plan's release with `chainvisor add-upgrade v2 <path> --force`$/,
      );
      assert.deepEqual(h.launches(), ['old start']);
      assert.equal(readlinkSync(join(h.cv, 'current')), 'genesis');

      // the remedy the line names: the operator installs the release by hand, which is then trusted as is
      const added = await chainvisor(['add-upgrade', 'v2', join(h.root, 'release-release-B'), '--force'], baseEnv(h)).exit;
      assert.equal(added.code, EXIT.OK, added.stderr);
      assert.equal(existsSync(join(h.cv, 'upgrades', 'v2', 'chainvisor-plan.json')), false);
      // a release folder that carries a downloaded release's record (copied from another home) is installed without it
      const copied = join(h.root, 'copied');
      mkdirSync(join(copied, 'bin'), { recursive: true });
      writeFileSync(join(copied, 'bin', 'chaind'), readFileSync(join(h.root, 'release-release-B')), { mode: 0o755 });
      writeFileSync(join(copied, 'chainvisor-plan.json'), stale);
      const folder = await chainvisor(['add-upgrade', 'v2', copied, '--force'], baseEnv(h)).exit;
      assert.equal(folder.code, EXIT.OK, folder.stderr);
      assert.equal(existsSync(join(h.cv, 'upgrades', 'v2', 'chainvisor-plan.json')), false);
      const again = await chainvisor(['run', 'start'], baseEnv(h, { UNSAFE_SKIP_BACKUP: 'true', DAEMON_RESTART_AFTER_UPGRADE: 'false' })).exit;
      assert.equal(again.code, EXIT.OK, again.stderr);
      // the plan is still pending at start: upgraded straight away, the old binary not started again
      assert.deepEqual(h.launches(), ['old start', `release-B pre-upgrade --home ${h.home}`]);
      assert.equal(readlinkSync(join(h.cv, 'current')), 'upgrades/v2');
    });
  });
});
