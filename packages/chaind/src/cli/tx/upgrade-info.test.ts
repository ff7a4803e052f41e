// The --upgrade-info check of `tx upgrade software-upgrade`, against a loopback HTTP server serving good
// and bad release archives: checksums, the daemon inside, size cap, info fetched from a URL.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create as createTar } from 'tar';
import { fails, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';
import { checkUpgradeInfo, parseBinaries } from './upgrade-info.ts';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex');
const HEX64 = 'ab'.repeat(32);

test('parseBinaries: the stateless checks, in the SDK order, each with its own message', () => {
  const bad = (info: string, message: RegExp, required = true): void => assert.throws(() => parseBinaries(info, required), message);
  bad('free text', /^UserError: invalid --upgrade-info: could not parse plan info: .*or pass --no-validate\)$/);
  bad('{"name":"v2"}', /^UserError: invalid --upgrade-info: no "binaries" entries found$/);
  bad('{"binaries":{}}', /^UserError: invalid --upgrade-info: no "binaries" entries found$/);
  bad('{"binaries":[]}', /"binaries" must be an object of platform → URL/);
  bad('{"binaries":{"linux":"https://x/y?checksum=sha256:00"}}', /platform key "linux" must be "any" or "os\/arch"/);
  bad('{"binaries":{"any":"ftp://x/y"}}', /the URL for any must be an http:\/\/ or https:\/\/ URL: ftp:\/\/x\/y$/);
  bad('{"binaries":{"any":"https://x/y"}}', /the URL for any has no checksum=<algo>:<hex> parameter: https:\/\/x\/y \(or pass --no-checksum-required\)$/);
  bad('{"binaries":{"any":"https://x/y?checksum=sha256"}}', /the checksum "sha256" of the URL for any is not <algo>:<hex>/);
  bad(`{"binaries":{"any":"https://x/y?checksum=md5:${'a'.repeat(32)}"}}`, /the checksum algorithm "md5" of the URL for any is not accepted \(use sha256 or sha512\)/);
  bad('{"binaries":{"any":"https://x/y?checksum=sha256:abcd"}}', /the sha256 checksum of the URL for any must have 64 hex digits, not 4/);
  // without --checksum-required a URL may have none, but one that is there is still checked
  assert.equal(parseBinaries('{"binaries":{"any":"https://x/y"}}', false)[0].checksum, undefined);
  bad('{"binaries":{"any":"https://x/y?checksum=sha1:00"}}', /algorithm "sha1" .* not accepted/, false);
  const ok = parseBinaries(`{"binaries":{"linux/amd64":"https://x/b?checksum=SHA256:${HEX64.toUpperCase()}","darwin/arm64":"https://x/a?checksum=sha256:${HEX64}"}}`, true);
  assert.deepEqual(
    ok.map((e) => [e.platform, e.checksum]),
    [
      ['darwin/arm64', { algo: 'sha256', hex: HEX64 }],
      ['linux/amd64', { algo: 'sha256', hex: HEX64 }],
    ],
  );
});

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
  const check = (info: string, o: { daemonName?: string; checksumRequired?: boolean; maxBinaryBytes?: number } = {}): Promise<void> =>
    checkUpgradeInfo(info, { daemonName: o.daemonName ?? 'chaind', checksumRequired: o.checksumRequired ?? true, maxBinaryBytes: o.maxBinaryBytes });
  const rejects = (p: Promise<void>, message: string): Promise<void> => assert.rejects(p, (e: Error) => {
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

  test('bad downloads: each one line naming the platform and URL', async () => {
    const v2 = url('/v2.tar.gz');
    const wrong = `${base}/v2.tar.gz?checksum=sha256:${HEX64}`;
    await rejects(
      check(infoOf({ 'linux/amd64': wrong })),
      `invalid --upgrade-info: the binary for linux/amd64 (${wrong}): checksum mismatch: expected sha256:${HEX64}, got sha256:${sha256(files.get('/v2.tar.gz') ?? Buffer.alloc(0))}`,
    );
    const missing = `${base}/nope.tar.gz?checksum=sha256:${HEX64}`;
    await rejects(check(infoOf({ 'linux/amd64': v2, 'windows/amd64': missing })), `invalid --upgrade-info: the binary for windows/amd64 (${missing}): download failed: HTTP 404 Not Found`);
    await rejects(check(infoOf({ any: url('/otherd.tar.gz') })), `invalid --upgrade-info: the binary for any (${url('/otherd.tar.gz')}): the archive does not contain bin/chaind or chaind`);
    await rejects(check(infoOf({ any: url('/link.tar.gz') })), `invalid --upgrade-info: the binary for any (${url('/link.tar.gz')}): bin/chaind in the archive is a SymbolicLink, not a regular file`);
    await assert.rejects(check(infoOf({ any: url('/corrupt.tar.gz') })), /^UserError: invalid --upgrade-info: the binary for any \(.*\/corrupt\.tar\.gz\?checksum=sha256:[0-9a-f]{64}\): not a valid tar\.gz archive: .+$/);
    await rejects(check(infoOf({ any: url('/release.zip') })), `invalid --upgrade-info: the binary for any (${url('/release.zip')}): zip archives are not supported: publish a .tar.gz`);
    await rejects(check(infoOf({ any: url('/empty') })), `invalid --upgrade-info: the binary for any (${url('/empty')}): the download is empty`);
    await rejects(check(infoOf({ any: url('/big') }), { maxBinaryBytes: 1000 }), `invalid --upgrade-info: the binary for any (${url('/big')}): larger than the 1000 bytes download limit`);
    const closed = await new Promise<number>((res) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => res(p));
      });
    });
    const refused = `http://127.0.0.1:${closed}/v2.tar.gz?checksum=sha256:${HEX64}`;
    await rejects(check(infoOf({ any: refused })), `invalid --upgrade-info: the binary for any (${refused}): download failed: connection refused`);
  });

  test('an info URL is fetched and checked as the info itself', async () => {
    await check(url('/info.json'));
    await rejects(check(`${base}/info.json`), `invalid --upgrade-info: the info URL has no checksum=<algo>:<hex> parameter: ${base}/info.json (or pass --no-checksum-required)`);
    await check(`${base}/info.json`, { checksumRequired: false });
    await rejects(check(`${base}/gone.json`, { checksumRequired: false }), `invalid --upgrade-info: the info URL ${base}/gone.json: download failed: HTTP 404 Not Found`);
    await assert.rejects(check(url('/v2.tar.gz')), /^UserError: invalid --upgrade-info: could not parse plan info fetched from http:\/\/127\.0\.0\.1:\d+\/v2\.tar\.gz\?checksum=sha256:[0-9a-f]{64}: /);
    await rejects(check('   '), 'invalid --upgrade-info: plan info must not be blank');
  });

  test('the CLI runs the check before anything else touches the keyring or the node', async () => {
    const home = tmpDir();
    const flags = ['--upgrade-height', '100', '--title', 't', '--from', 'nobody', '--keyring-backend', 'test', '--home', home, '--node', 'tcp://127.0.0.1:1', '-y'];
    const bad = infoOf({ 'linux/amd64': url('/otherd.tar.gz') });
    await fails(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', bad, ...flags], [
      `Error: invalid --upgrade-info: the binary for linux/amd64 (${url('/otherd.tar.gz')}): the archive does not contain bin/chaind or chaind`,
    ]);
    // the same info with --daemon-name otherd passes, and the command goes on to the signing key
    await fails(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', bad, '--daemon-name', 'otherd', ...flags], [/key "nobody" not found/]);
    // --no-validate skips the downloads
    await fails(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', 'free text', '--no-validate', ...flags], [/key "nobody" not found/]);
    await fails(['tx', 'upgrade', 'software-upgrade', 'v2', '--upgrade-info', 'free text', ...flags], ['Error: invalid --upgrade-info: could not parse plan info: ']);
  });
});
