import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { FetchError, type ReleaseSource } from '@chaind/upgrade-plan';
import { installRelease, type FetchPolicy, type InstallOptions } from '../src/fetch/index.ts';
import { hex, killGroup, serve, tarGzOf, tgz, type Served, DEAD_PID } from '@chaind/upgrade-plan/testing';

const BIN = '#!/bin/sh\necho chaind v2\n';
const logs: string[] = [];
const policy: FetchPolicy = {
  mustHaveChecksum: true,
  allowInsecureHttp: false,
  allowLoopbackHttp: true,
  maxBytes: 1 << 30,
  stallTimeoutMs: 60_000,
  progress: 'none',
  log: (m) => logs.push(m),
};

let srv: Served;
let root: string;
let upgrades: string;
let dest: string;
let n = 0;

before(async () => {
  srv = await serve();
  root = await mkdtemp(join(tmpdir(), 'chainvisor-fetch-'));
});
after(async () => {
  await srv.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  upgrades = join(root, `home${++n}`, 'cosmovisor', 'upgrades');
  dest = join(upgrades, 'v2');
  logs.length = 0;
});

const opts = (extra: Partial<InstallOptions> = {}): InstallOptions => ({ ...policy, destDir: dest, daemonName: 'chaind', ...extra });

/** Serves `body` at a fresh path and returns a source for it with its sha256. */
function offer(body: Buffer, name = 'chaind-v2.tar.gz', algo: 'sha256' | 'sha512' = 'sha256'): ReleaseSource {
  const path = `/${n}/${name}`;
  srv.file(path, body);
  return { url: `${srv.base}${path}`, platform: 'any', checksum: { algo, hex: hex(algo, body) } };
}

/** The install fails with this kind and message, and leaves neither destDir nor a temp folder behind. */
async function refused(p: Promise<unknown>, kind: string, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  });
  assert.equal(existsSync(dest), false, 'destDir must not exist after a failure');
  if (existsSync(upgrades)) assert.deepEqual(await readdir(upgrades), [], 'no temp folder left behind');
}

async function assertInstalled(binaryPath: string, body = BIN): Promise<void> {
  assert.equal(binaryPath, join(dest, 'bin', 'chaind'));
  const st = await lstat(binaryPath);
  assert.ok(st.isFile());
  assert.equal(st.mode & 0o111, 0o111, 'binary is executable');
  assert.equal(await readFile(binaryPath, 'utf8'), body);
  assert.deepEqual(await readdir(upgrades), ['v2'], 'only the installed folder, no temp folder');
}

describe('installRelease: good releases', () => {
  it('installs a tar.gz made by tar, verified with sha256', async () => {
    const body = await tarGzOf(join(root, `src${n}`), { 'bin/chaind': BIN, 'lib/native.node': 'native' });
    const src = offer(body);
    const r = await installRelease(src, opts());
    await assertInstalled(r.binaryPath);
    assert.equal(await readFile(join(dest, 'lib', 'native.node'), 'utf8'), 'native');
    assert.equal(r.bytes, body.length);
    assert.equal(r.sha256, hex('sha256', body));
    assert.ok(logs.includes(`installed ${join(dest, 'bin', 'chaind')}`));
  });

  it('installs a tar.gz verified with sha512, binary at the archive root', async () => {
    const body = await tarGzOf(join(root, `src${n}`), { chaind: BIN });
    const r = await installRelease(offer(body, 'chaind-v2.tgz', 'sha512'), opts());
    await assertInstalled(r.binaryPath);
    assert.equal(r.sha256, hex('sha256', body));
  });

  it('installs a plain binary as bin/<daemon>', async () => {
    const r = await installRelease(offer(Buffer.from(BIN), 'chaind-v2-linux-amd64'), opts());
    await assertInstalled(r.binaryPath);
  });

  it('accepts a missing checksum only when checksums are explicitly not required', async () => {
    const src = { ...offer(Buffer.from(BIN), 'chaind') };
    delete (src as { checksum?: unknown }).checksum;
    await refused(
      installRelease(src, opts()),
      'checksum-missing',
      `refusing to download ${src.url}: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)`,
    );
    assert.equal(srv.hits.includes(new URL(src.url).pathname), false, 'refused before connecting');
    const r = await installRelease(src, opts({ mustHaveChecksum: false }));
    await assertInstalled(r.binaryPath);
    assert.ok(logs.some((l) => l.startsWith(`WARNING: downloading ${src.url} without a checksum`)));
  });

  it('follows loopback redirects', async () => {
    const src = offer(Buffer.from(BIN), 'chaind');
    srv.route(`/${n}/r1`, (_req, res) => void res.writeHead(301, { location: `/${n}/r2` }).end());
    srv.route(`/${n}/r2`, (_req, res) => void res.writeHead(307, { location: src.url }).end());
    const r = await installRelease({ ...src, url: `${srv.base}/${n}/r1?archive=false` }, opts());
    await assertInstalled(r.binaryPath);
  });

  it('logs progress lines with bytes and rate when not on a terminal', async () => {
    const body = Buffer.alloc(4 << 20, 7);
    await installRelease(offer(body, 'chaind'), opts({ progress: 'lines' }));
    const lines = logs.filter((l) => l.startsWith('downloading chaind: '));
    assert.ok(lines.length >= 1, logs.join('\n'));
    assert.match(lines.at(-1) as string, /^downloading chaind: 4\.0 MiB of 4\.0 MiB \(100%\) at [\d.]+ MiB\/s$/);
  });

  it('refuses an existing destDir unless asked to replace it', async () => {
    await mkdir(join(dest, 'bin'), { recursive: true });
    await writeFile(join(dest, 'bin', 'chaind'), 'old');
    const src = offer(Buffer.from(BIN), 'chaind');
    await assert.rejects(installRelease(src, opts()), (e: unknown) => {
      assert.ok(e instanceof FetchError);
      assert.equal(e.kind, 'exists');
      assert.equal(e.message, `${dest} already exists; remove it or ask for it to be replaced`);
      return true;
    });
    assert.equal(await readFile(join(dest, 'bin', 'chaind'), 'utf8'), 'old');
    const r = await installRelease(src, opts({ replace: true }));
    await assertInstalled(r.binaryPath);
  });
});

describe('installRelease: download failures', () => {
  it('refuses a checksum mismatch', async () => {
    const src = offer(Buffer.from(BIN), 'chaind');
    const wrong = 'ab'.repeat(32);
    await refused(
      installRelease({ ...src, checksum: { algo: 'sha256', hex: wrong } }, opts()),
      'checksum-mismatch',
      `checksum mismatch for ${src.url}: expected sha256 ${wrong}, got ${hex('sha256', Buffer.from(BIN))}`,
    );
  });

  it('refuses md5 and sha1 checksums in the URL', async () => {
    const src = offer(Buffer.from(BIN), 'chaind');
    const { checksum: _c, ...bare } = src;
    await refused(
      installRelease({ ...bare, url: `${src.url}?checksum=md5:${hex('md5', Buffer.from(BIN))}` }, opts({ mustHaveChecksum: false })),
      'checksum-weak',
      `refusing md5 checksum for ${src.url}: md5 is too weak, use sha256 or sha512`,
    );
    await refused(
      installRelease({ ...bare, url: `${src.url}?checksum=sha1:${hex('sha1', Buffer.from(BIN))}` }, opts()),
      'checksum-weak',
      `refusing sha1 checksum for ${src.url}: sha1 is too weak, use sha256 or sha512`,
    );
  });

  it('reports a 404', async () => {
    const src: ReleaseSource = { url: `${srv.base}/missing.tar.gz`, platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } };
    await refused(installRelease(src, opts()), 'http-status', `download of ${srv.base}/missing.tar.gz failed: HTTP 404 Not Found`);
  });

  it('reports a body shorter than its Content-Length (server closes early)', async () => {
    srv.route(`/${n}/short.tar.gz`, (_req, res) => {
      res.writeHead(200, { 'content-length': 100_000 });
      res.write(Buffer.alloc(40_000, 1), () => res.socket?.destroy());
    });
    const src: ReleaseSource = { url: `${srv.base}/${n}/short.tar.gz`, platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } };
    await refused(installRelease(src, opts()), 'truncated', new RegExp(`^download of ${src.url} was cut short: received \\d+ of 100000 bytes \\(.+\\)$`));
  });

  it('reports a chunked body cut off before its end', async () => {
    srv.route(`/${n}/chunked.tar.gz`, (_req, res) => {
      res.writeHead(200);
      res.write(Buffer.alloc(30_000, 1), () => res.socket?.destroy());
    });
    const src: ReleaseSource = { url: `${srv.base}/${n}/chunked.tar.gz`, platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } };
    await refused(installRelease(src, opts()), 'truncated', new RegExp(`^download of ${src.url} was cut short: received \\d+ bytes \\(.+\\)$`));
  });

  it('refuses a download over the size cap: announced, or streamed without a length', async () => {
    const src = offer(Buffer.alloc(2 << 20, 1), 'chaind');
    await refused(
      installRelease(src, opts({ maxBytes: 1 << 20 })),
      'too-large',
      `download of ${src.url} refused: ${2 << 20} bytes announced, over the ${1 << 20}-byte limit`,
    );
    srv.route(`/${n}/stream`, (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 << 10, 2);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    await refused(
      installRelease({ ...src, url: `${srv.base}/${n}/stream` }, opts({ maxBytes: 1 << 20 })),
      'too-large',
      `download of ${srv.base}/${n}/stream aborted: more than the ${1 << 20}-byte limit received`,
    );
  });

  it('refuses redirects to other schemes', async () => {
    const src = offer(Buffer.from(BIN), 'chaind');
    for (const target of ['ftp://127.0.0.1/chaind', 'file:///etc/passwd']) {
      srv.route(`/${n}/redir`, (_req, res) => void res.writeHead(302, { location: target }).end());
      const scheme = new URL(target).protocol;
      await refused(
        installRelease({ ...src, url: `${srv.base}/${n}/redir` }, opts()),
        'redirect',
        `refusing redirect from ${srv.base}/${n}/redir to ${target}: scheme "${scheme}" is not allowed (only https, or plain http where explicitly allowed)`,
      );
    }
  });

  it('refuses a redirect to plain http on a non-loopback host', async () => {
    const src = offer(Buffer.from(BIN), 'chaind');
    srv.route(`/${n}/redir`, (_req, res) => void res.writeHead(302, { location: 'http://mirror.invalid/chaind' }).end());
    await refused(
      installRelease({ ...src, url: `${srv.base}/${n}/redir` }, opts()),
      'redirect',
      `refusing redirect from ${srv.base}/${n}/redir to http://mirror.invalid/chaind: plain http to mirror.invalid is not allowed (only https, unless insecure http is explicitly allowed)`,
    );
  });

  it('gives up after 5 redirects', async () => {
    const src = offer(Buffer.from(BIN), 'chaind');
    srv.route(`/${n}/loop`, (_req, res) => void res.writeHead(302, { location: `/${n}/loop` }).end());
    await refused(
      installRelease({ ...src, url: `${srv.base}/${n}/loop` }, opts()),
      'redirect',
      `download of ${srv.base}/${n}/loop failed: more than 5 redirects`,
    );
  });

  it('refuses plain http to a non-loopback host before connecting', async () => {
    const src: ReleaseSource = { url: 'http://mirror.invalid/chaind', platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } };
    await refused(
      installRelease(src, opts()),
      'scheme',
      'refusing to download http://mirror.invalid/chaind: plain http to mirror.invalid is not allowed (only https, unless insecure http is explicitly allowed)',
    );
    // with the opt-in it does try: the .invalid name then fails to resolve
    await refused(installRelease(src, opts({ allowInsecureHttp: true })), 'network', /^download of http:\/\/mirror\.invalid\/chaind failed: /);
  });

  it('refuses zip archives before downloading', async () => {
    const src = offer(Buffer.from('PK'), 'chaind.zip');
    await refused(
      installRelease(src, opts()),
      'unsupported-archive',
      `unsupported archive type "zip" for ${src.url}: only tar.gz (tgz), tar and plain binaries are supported`,
    );
    assert.equal(srv.hits.includes(`/${n}/chaind.zip`), false);
  });
});

describe('installRelease: hostile archives', () => {
  const bin = { path: 'bin/chaind', body: BIN, mode: 0o755 } as const;
  const unsafe = async (entries: Parameters<typeof tgz>[0], message: string): Promise<void> => {
    await refused(installRelease(offer(tgz(entries)), opts()), 'unsafe-archive', `unsafe archive chaind-v2.tar.gz: ${message}`);
    assert.equal(existsSync(join(root, 'evil')), false);
  };

  it('refuses `..` entries', async () => {
    await unsafe([bin, { path: '../../../../evil', body: 'x' }], 'entry "../../../../evil" has a ".." path segment');
    await unsafe([{ path: 'bin/../../evil', body: 'x' }, bin], 'entry "bin/../../evil" has a ".." path segment');
  });

  it('refuses absolute paths', async () => {
    await unsafe([bin, { path: `${root}/evil`, body: 'x' }], `entry "${root}/evil" has an absolute path`);
  });

  it('refuses a symlink pointing outside the folder', async () => {
    await unsafe(
      [bin, { path: 'lib/etc', type: 'SymbolicLink', linkpath: '../../etc' }],
      'entry "lib/etc" is a symbolic link to ../../etc, which points outside the release folder',
    );
    await unsafe(
      [bin, { path: 'lib/passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }],
      'entry "lib/passwd" is a symbolic link to the absolute path /etc/passwd',
    );
  });

  it('refuses a symlink that escapes through another symlink', async () => {
    await unsafe(
      [bin, { path: 'here', type: 'SymbolicLink', linkpath: '.' }, { path: 'up', type: 'SymbolicLink', linkpath: 'here/../evil' }],
      'entry "up" is a symbolic link to here/../evil, which goes through the symbolic link here',
    );
    await unsafe([bin, { path: 'lib', type: 'SymbolicLink', linkpath: 'bin' }, { path: 'lib/x', body: 'x' }], 'entry "lib/x" is inside the symbolic link lib');
  });

  it('refuses a hard link to a file outside the folder', async () => {
    await writeFile(join(root, 'outside'), 'secret');
    await unsafe(
      [bin, { path: 'lib/h', type: 'Link', linkpath: '../../../../outside' }],
      'entry "lib/h" is a hard link to ../../../../outside, which points outside the release folder',
    );
    await unsafe([bin, { path: 'lib/h', type: 'Link', linkpath: `${root}/outside` }], `entry "lib/h" is a hard link to the absolute path ${root}/outside`);
  });

  it('accepts links that stay inside', async () => {
    const r = await installRelease(
      offer(
        tgz([
          bin,
          { path: 'lib/real.so', body: 'so' },
          { path: 'lib/alias.so', type: 'SymbolicLink', linkpath: 'real.so' },
          { path: 'lib/hard.so', type: 'Link', linkpath: 'lib/real.so' },
        ]),
      ),
      opts(),
    );
    await assertInstalled(r.binaryPath);
    assert.equal(await readFile(join(dest, 'lib', 'alias.so'), 'utf8'), 'so');
    assert.equal((await stat(join(dest, 'lib', 'hard.so'))).nlink, 2);
  });

  it('refuses device and fifo entries', async () => {
    await unsafe([bin, { path: 'dev/null', type: 'CharacterDevice' }], 'entry "dev/null" is a character device');
    await unsafe([bin, { path: 'pipe', type: 'FIFO' }], 'entry "pipe" is a FIFO');
  });

  it('refuses a symlinked binary', async () => {
    await refused(
      installRelease(
        offer(
          tgz([
            { path: 'bin/real', body: BIN, mode: 0o755 },
            { path: 'bin/chaind', type: 'SymbolicLink', linkpath: 'real' },
          ]),
        ),
        opts(),
      ),
      'no-binary',
      'release chaind-v2.tar.gz: bin/chaind is a symbolic link; the daemon binary must be a regular file',
    );
  });

  it('refuses a release without the binary', async () => {
    await refused(
      installRelease(offer(tgz([{ path: 'bin/otherd', body: BIN }])), opts()),
      'no-binary',
      'release chaind-v2.tar.gz has no daemon binary: expected bin/chaind or chaind at the archive root',
    );
    await refused(
      installRelease(offer(tgz([{ path: 'bin/chaind/', type: 'Directory' }])), opts()),
      'no-binary',
      'release chaind-v2.tar.gz: bin/chaind is a folder; the daemon binary must be a regular file',
    );
  });

  it('refuses a corrupt archive', async () => {
    const good = tgz([bin]);
    const corrupt = Buffer.concat([good.subarray(0, 20), Buffer.alloc(200, 0x55)]);
    await refused(installRelease(offer(corrupt), opts()), 'bad-archive', /^could not extract chaind-v2\.tar\.gz: /);
  });

  it('drops setuid bits', async () => {
    const r = await installRelease(offer(tgz([{ ...bin, mode: 0o4755 }])), opts());
    assert.equal((await stat(r.binaryPath)).mode & 0o7777, 0o755);
  });
});

describe('installRelease: interrupted attempts', () => {
  it('a leftover temp folder from an earlier attempt does not block a retry and is cleaned up', async () => {
    await mkdir(upgrades, { recursive: true });
    for (const d of [`.v2.partial-${DEAD_PID}-abc123`, `.v2.partial-${process.pid}-zzz999`]) {
      await mkdir(join(upgrades, d, 'out', 'bin'), { recursive: true });
      await writeFile(join(upgrades, d, 'download'), 'half');
    }
    const r = await installRelease(offer(Buffer.from(BIN), 'chaind'), opts());
    await assertInstalled(r.binaryPath);
  });

  it('a process killed mid-download leaves only a temp folder; the retry installs cleanly', { timeout: 60_000 }, async () => {
    const body = Buffer.alloc(4 << 20, 3); // half of it is over the 1 MiB write batch, so some reaches the disk
    const path = `/${n}/slow`;
    let sent!: () => void;
    const halfSent = new Promise<void>((r) => (sent = r));
    srv.route(path, (_req, res) => {
      res.writeHead(200, { 'content-length': body.length });
      res.write(body.subarray(0, body.length / 2), () => sent()); // then hangs
    });
    const src: ReleaseSource = { url: `${srv.base}${path}`, platform: 'any', checksum: { algo: 'sha256', hex: hex('sha256', body) } };
    const script = `
      import { installRelease } from ${JSON.stringify(new URL('../src/fetch/index.ts', import.meta.url).href)};
      await installRelease(${JSON.stringify(src)}, { mustHaveChecksum: true, allowInsecureHttp: false, allowLoopbackHttp: true, maxBytes: 1 << 30, stallTimeoutMs: 60_000,
        progress: 'lines', log: (m) => console.log(m), destDir: ${JSON.stringify(dest)}, daemonName: 'chaind' });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
    await halfSent;
    // wait until the child has written part of the body to its temp folder
    for (;;) {
      const temps = existsSync(upgrades) ? (await readdir(upgrades)).filter((d) => d.startsWith('.v2.partial-')) : [];
      const f = temps.length ? join(upgrades, temps[0], 'download') : '';
      if (f && existsSync(f) && (await stat(f)).size > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    killGroup(child.pid);
    assert.equal(await exited, 'SIGKILL');
    assert.equal(existsSync(dest), false);
    assert.equal((await readdir(upgrades)).length, 1, 'the killed attempt left its temp folder');

    srv.file(path, body);
    const r = await installRelease(src, opts());
    await assertInstalled(r.binaryPath, body.toString('utf8'));
  });
});

describe('installRelease: stalled servers', () => {
  // the 300 ms stall timeout keeps these quick; each test's own timeout is the backstop against a hang
  const quick = (): InstallOptions => opts({ stallTimeoutMs: 300 });

  it('fails a body that stops arriving without the connection closing, and leaves nothing behind', { timeout: 10_000 }, async () => {
    srv.route(`/${n}/stuck.tar.gz`, (_req, res) => {
      res.writeHead(200, { 'content-length': 1000 });
      res.write(Buffer.alloc(100, 1)); // then nothing, and the socket stays open
    });
    const src: ReleaseSource = { url: `${srv.base}/${n}/stuck.tar.gz`, platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } };
    await refused(installRelease(src, quick()), 'stalled', `download of ${src.url} stalled: no data for 300ms (received 100 of 1000 bytes)`);
  });

  it('fails a server that accepts the request and never answers', { timeout: 10_000 }, async () => {
    srv.route(`/${n}/silent`, () => {}); // no headers, no body, no close
    const src: ReleaseSource = { url: `${srv.base}/${n}/silent`, platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } };
    await refused(installRelease(src, quick()), 'stalled', `download of ${src.url} stalled: no response for 300ms`);
  });

  it('lets a slow but steady download finish: every chunk restarts the count', { timeout: 10_000 }, async () => {
    const body = Buffer.from(BIN);
    const path = `/${n}/steady`;
    // ~700 ms in all, over twice the stall timeout, one 4-byte piece every 100 ms
    srv.route(path, (_req, res) => {
      res.writeHead(200, { 'content-length': body.length });
      let at = 0;
      const t = setInterval(() => {
        res.write(body.subarray(at, at + 4));
        at += 4;
        if (at >= body.length) {
          clearInterval(t);
          res.end();
        }
      }, 100);
      res.on('close', () => clearInterval(t));
    });
    const r = await installRelease({ url: `${srv.base}${path}`, platform: 'any', checksum: { algo: 'sha256', hex: hex('sha256', body) } }, quick());
    await assertInstalled(r.binaryPath);
    assert.equal(r.bytes, body.length);
  });
});
