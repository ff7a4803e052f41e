// The --upgrade-info check of `tx upgrade software-upgrade`, against a loopback HTTP server serving good
// and bad release archives: checksums, the daemon inside, size cap, info fetched from a URL. The rules
// themselves, and their stateless checks, are tested in packages/upgrade-plan.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create as createTar } from 'tar';
import { fails, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';
import { checkUpgradeInfo } from '../../src/cli/tx/upgrade-info.ts';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');
const HEX64 = 'ab'.repeat(32);

describe('downloads from a loopback HTTP server', () => {
  const files = new Map<string, Buffer>();
  let server: Server | undefined;
  let base = '';

  /** A .tar.gz of the given entries: a path → file contents, or { symlink } for a link. */
  async function archive(entries: Record<string, string | { symlink: string }>, gzip = true): Promise<Buffer> {
    const dir = tmpDir();
    const src = join(dir, 'src');
    for (const [path, v] of Object.entries(entries)) {
      mkdirSync(join(src, path, '..'), { recursive: true });
      if (typeof v === 'string') writeFileSync(join(src, path), v, { mode: 0o755 });
      else symlinkSync(v.symlink, join(src, path));
    }
    const out = join(dir, 'a.tar');
    await createTar({ gzip, cwd: src, file: out, portable: true }, Object.keys(entries));
    return readFileSync(out);
  }

  before(async () => {
    files.set('/v2.tar.gz', await archive({ 'bin/chaind': '#!/bin/sh\necho v2\n' }));
    files.set('/root.tar', await archive({ chaind: '#!/bin/sh\n', 'README.md': 'v2' }, false));
    files.set('/dotslash.tar.gz', await archive({ './bin/chaind': '#!/bin/sh\n' }));
    files.set('/otherd.tar.gz', await archive({ 'bin/otherd': '#!/bin/sh\n' }));
    files.set('/link.tar.gz', await archive({ 'bin/real': '#!/bin/sh\n', 'bin/chaind': { symlink: 'real' } }));
    files.set('/plain-binary', Buffer.from('\x7fELF pretend binary'));
    files.set('/corrupt.tar.gz', Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.alloc(60, 7)]));
    files.set('/release.zip', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(60)]));
    files.set('/release', files.get('/release.zip') ?? Buffer.alloc(0));
    files.set('/big', Buffer.alloc(5000, 1));
    files.set('/empty', Buffer.alloc(0));
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body = files.get(path);
      if (path === '/moved') {
        res.writeHead(302, { location: '/v2.tar.gz' }).end();
        return;
      }
      if (body === undefined) {
        res.writeHead(404).end('not found');
        return;
      }
      // /big lies about nothing but is sent without a length: the cap must count the bytes themselves
      if (path === '/big') res.writeHead(200, { 'transfer-encoding': 'chunked' });
      res.end(body);
    });
    await new Promise<void>((res) => server?.listen(0, '127.0.0.1', res));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const v2 = files.get('/v2.tar.gz') ?? Buffer.alloc(0);
    const info = JSON.stringify({ binaries: { 'linux/amd64': `${base}/v2.tar.gz?checksum=sha256:${sha256(v2)}` } });
    files.set('/info.json', Buffer.from(info));
  });
  after(async () => {
    await new Promise((res) => server?.close(res));
    removeTmpDirs();
  });

  const url = (path: string, algo: 'sha256' | 'sha512' = 'sha256'): string => {
    const body = files.get(path) ?? Buffer.alloc(0);
    return `${base}${path}?checksum=${algo}:${algo === 'sha256' ? sha256(body) : sha512(body)}`;
  };
  const infoOf = (binaries: Record<string, string>): string => JSON.stringify({ binaries });
  const check = (
    info: string,
    o: { daemonName?: string; checksumRequired?: boolean; maxBinaryBytes?: number; allowLoopbackHttp?: boolean } = {},
  ): Promise<void> =>
    checkUpgradeInfo(info, {
      daemonName: o.daemonName ?? 'chaind',
      checksumRequired: o.checksumRequired ?? true,
      maxBinaryBytes: o.maxBinaryBytes,
      allowLoopbackHttp: o.allowLoopbackHttp ?? true,
    });
  const rejects = (p: Promise<void>, message: string): Promise<void> =>
    assert.rejects(p, (e: Error) => {
      assert.equal(e.message, message);
      return true;
    });

  test('good archives pass: bin/<daemon>, <daemon> at the root, ./ paths, sha512, a plain binary, a redirect, --daemon-name', async () => {
    await check(infoOf({ 'linux/amd64': url('/v2.tar.gz'), 'darwin/arm64': url('/root.tar', 'sha512'), any: url('/dotslash.tar.gz') }));
    await check(infoOf({ 'linux/amd64': url('/plain-binary') }));
    await check(infoOf({ 'linux/amd64': `${base}/moved?checksum=sha256:${sha256(files.get('/v2.tar.gz') ?? Buffer.alloc(0))}` }));
    await check(infoOf({ 'linux/amd64': url('/otherd.tar.gz') }), { daemonName: 'otherd' });
    // no checksum at all, when not required
    await check(infoOf({ 'linux/amd64': `${base}/v2.tar.gz` }), { checksumRequired: false });
  });

  test('bad downloads: each one line naming the platform, and the URL or the file', async () => {
    const v2 = url('/v2.tar.gz');
    const wrong = `${base}/v2.tar.gz?checksum=sha256:${HEX64}`;
    await rejects(
      check(infoOf({ 'linux/amd64': wrong })),
      `invalid --upgrade-info: the binary for linux/amd64: checksum mismatch for ${base}/v2.tar.gz: expected sha256 ${HEX64}, got ${sha256(files.get('/v2.tar.gz') ?? Buffer.alloc(0))}`,
    );
    const missing = `${base}/nope.tar.gz?checksum=sha256:${HEX64}`;
    await rejects(
      check(infoOf({ 'linux/amd64': v2, 'windows/amd64': missing })),
      `invalid --upgrade-info: the binary for windows/amd64: download of ${base}/nope.tar.gz failed: HTTP 404 Not Found`,
    );
    await rejects(
      check(infoOf({ any: url('/otherd.tar.gz') })),
      'invalid --upgrade-info: the binary for any: release otherd.tar.gz has no daemon binary: expected bin/chaind or chaind at the archive root',
    );
    await rejects(
      check(infoOf({ any: url('/link.tar.gz') })),
      'invalid --upgrade-info: the binary for any: release link.tar.gz: bin/chaind is a symbolic link; the daemon binary must be a regular file',
    );
    await assert.rejects(
      check(infoOf({ any: url('/corrupt.tar.gz') })),
      /^UserError: invalid --upgrade-info: the binary for any: could not extract corrupt\.tar\.gz: .+$/,
    );
    // zip: refused by the URL's extension before anything is downloaded, or by its content when the URL says nothing
    await rejects(
      check(infoOf({ any: url('/release.zip') })),
      `invalid --upgrade-info: unsupported archive type "zip" for ${base}/release.zip: only tar.gz (tgz), tar and plain binaries are supported`,
    );
    await rejects(check(infoOf({ any: url('/release') })), 'invalid --upgrade-info: the binary for any: zip archives are not supported: publish a .tar.gz');
    await rejects(check(infoOf({ any: url('/empty') })), `invalid --upgrade-info: the binary for any: download of ${base}/empty is empty`);
    await rejects(
      check(infoOf({ any: url('/big') }), { maxBinaryBytes: 1000 }),
      `invalid --upgrade-info: the binary for any: download of ${base}/big aborted: more than the 1000-byte limit received`,
    );
    const closed = await new Promise<number>((res) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => res(p));
      });
    });
    const refused = `http://127.0.0.1:${closed}/v2.tar.gz?checksum=sha256:${HEX64}`;
    await assert.rejects(
      check(infoOf({ any: refused })),
      new RegExp(`^UserError: invalid --upgrade-info: the binary for any: download of http://127\\.0\\.0\\.1:${closed}/v2\\.tar\\.gz failed: .*ECONNREFUSED`),
    );
    // plain http is for loopback mirrors only, as for chainvisor
    await rejects(
      check(infoOf({ any: `http://mirror.invalid/v2.tar.gz?checksum=sha256:${HEX64}` })),
      `invalid --upgrade-info: refusing to download http://mirror.invalid/v2.tar.gz?checksum=sha256:${HEX64}: plain http to mirror.invalid is not allowed (only https, unless insecure http is explicitly allowed)`,
    );
  });

  test('an info URL is fetched and checked as the info itself', async () => {
    await check(url('/info.json'));
    await rejects(
      check(`${base}/info.json`),
      `invalid --upgrade-info: refusing to download ${base}/info.json: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)`,
    );
    await check(`${base}/info.json`, { checksumRequired: false });
    // a document that is not the one pinned (the mirror changed it) is refused like a binary that is not
    await rejects(
      check(`${base}/info.json?checksum=sha256:${HEX64}`),
      `invalid --upgrade-info: checksum mismatch for ${base}/info.json: expected sha256 ${HEX64}, got ${sha256(files.get('/info.json') ?? Buffer.alloc(0))}`,
    );
    await rejects(check(`${base}/gone.json`, { checksumRequired: false }), `invalid --upgrade-info: download of ${base}/gone.json failed: HTTP 404 Not Found`);
    await assert.rejects(
      check(url('/v2.tar.gz')),
      /^UserError: invalid --upgrade-info: upgrade info at http:\/\/127\.0\.0\.1:\d+\/v2\.tar\.gz is not valid JSON \(/,
    );
    await rejects(check('   '), 'invalid --upgrade-info: upgrade info is empty; expected JSON {"binaries": {"<os>/<arch>": "<url>", …}} or a URL to such JSON');
  });

  test('the CLI runs the check before anything else touches the keyring or the node', async () => {
    const home = tmpDir();
    const flags = [
      '--upgrade-height',
      '100',
      '--title',
      't',
      '--from',
      'nobody',
      '--keyring-backend',
      'test',
      '--home',
      home,
      '--node',
      'tcp://127.0.0.1:1',
      '-y',
      '--allow-loopback-http',
    ];
    const bad = infoOf({ 'linux/amd64': url('/otherd.tar.gz') });
    // without --allow-loopback-http, the loopback mirror is refused before any request
    await fails(
      ['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', bad, ...flags.slice(0, -1)],
      [
        `Error: invalid --upgrade-info: refusing to download ${url('/otherd.tar.gz')}: plain http to the loopback host 127.0.0.1 is not allowed (only https, unless a loopback mirror is allowed with --allow-loopback-http)`,
      ],
    );
    await fails(
      ['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', bad, ...flags],
      [
        'Error: invalid --upgrade-info: the binary for linux/amd64: release otherd.tar.gz has no daemon binary: expected bin/chaind or chaind at the archive root',
      ],
    );
    // the same info with --daemon-name otherd passes, and the command goes on to the signing key
    await fails(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', bad, '--daemon-name', 'otherd', ...flags], [/key "nobody" not found/]);
    // --no-validate skips the downloads
    await fails(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', 'free text', '--no-validate', ...flags], [/key "nobody" not found/]);
    await fails(
      ['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', 'free text', ...flags],
      ['Error: invalid --upgrade-info: upgrade info is neither JSON nor a URL; '],
    );
  });
});
