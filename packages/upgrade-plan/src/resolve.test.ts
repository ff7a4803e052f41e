import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hex, refused, serve, type Served } from '../test/kit/index.ts';
import { FetchError, isLoopbackHost, planBinaries, platformKey, resolveRelease, type DownloadPolicy } from './index.ts';

const SHA256 = 'ab'.repeat(32);
const SHA512 = 'cd'.repeat(64);
const own = platformKey();
const policy: DownloadPolicy = { mustHaveChecksum: true, allowInsecureHttp: false, allowLoopbackHttp: true, maxBytes: 1 << 30, stallTimeoutMs: 60_000 };
const info = (binaries: Record<string, unknown>): string => JSON.stringify({ binaries });

describe('platform keys', () => {
  it('uses Go names for OS and architecture', () => {
    assert.equal(platformKey('linux', 'x64'), 'linux/amd64');
    assert.equal(platformKey('darwin', 'arm64'), 'darwin/arm64');
    assert.equal(platformKey('win32', 'ia32'), 'windows/386');
  });
  it('knows the loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.8.9.1', 'localhost', '[::1]', '[::ffff:7f00:1]']) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['10.0.0.1', 'example.com', '[::2]', '128.0.0.1', 'localhost.example.com']) assert.equal(isLoopbackHost(h), false, h);
  });
});

describe('resolveRelease with info as JSON', () => {
  it("picks this platform's URL and takes the checksum parameter out of it", async () => {
    const src = await resolveRelease(
      info({ [own]: `https://releases.example.com/chaind-v2.tar.gz?checksum=sha256:${SHA256}`, any: 'https://x.example.com/other' }),
      policy,
    );
    assert.deepEqual(src, { url: 'https://releases.example.com/chaind-v2.tar.gz', platform: own, checksum: { algo: 'sha256', hex: SHA256 } });
  });

  it('accepts sha512 (upper-case hex and type too)', async () => {
    const src = await resolveRelease(info({ [own]: `https://r.example.com/c.tgz?checksum=SHA512:${SHA512.toUpperCase()}` }), policy);
    assert.deepEqual(src.checksum, { algo: 'sha512', hex: SHA512 });
  });

  it('falls back to "any"', async () => {
    const src = await resolveRelease(info({ 'plan9/mips': 'https://a.example.com/x', any: `https://r.example.com/c.tgz?checksum=sha256:${SHA256}` }), policy);
    assert.equal(src.platform, 'any');
    assert.equal(src.url, 'https://r.example.com/c.tgz');
  });

  it('refuses when there is no entry for this platform and no "any"', async () => {
    await refused(
      resolveRelease(info({ 'plan9/mips': 'https://a.example.com/x', 'aix/ppc64': 'https://a.example.com/y' }), policy),
      'no-platform',
      `upgrade info has no binary for ${own} and no "any" entry (it lists: plan9/mips, aix/ppc64)`,
    );
  });

  it('refuses md5 and sha1 even when checksums are not required', async () => {
    const lax = { ...policy, mustHaveChecksum: false };
    await refused(
      resolveRelease(info({ any: `https://r.example.com/c.tgz?checksum=md5:${'0'.repeat(32)}` }), lax),
      'checksum-weak',
      'refusing md5 checksum for https://r.example.com/c.tgz: md5 is too weak, use sha256 or sha512',
    );
    await refused(
      resolveRelease(info({ any: `https://r.example.com/c.tgz?checksum=sha1:${'0'.repeat(40)}` }), policy),
      'checksum-weak',
      'refusing sha1 checksum for https://r.example.com/c.tgz: sha1 is too weak, use sha256 or sha512',
    );
  });

  it('refuses a malformed checksum', async () => {
    await refused(
      resolveRelease(info({ any: 'https://r.example.com/c.tgz?checksum=sha256:abc' }), policy),
      'bad-info',
      'malformed sha256 checksum for https://r.example.com/c.tgz: expected 64 hex digits, got "abc"',
    );
    await refused(
      resolveRelease(info({ any: 'https://r.example.com/c.tgz?checksum=crc32:abcd' }), policy),
      'bad-info',
      'unsupported checksum "crc32:abcd" for https://r.example.com/c.tgz: expected sha256:<hex> or sha512:<hex>',
    );
  });

  it('refuses a missing checksum by default and accepts it when explicitly not required', async () => {
    const i = info({ any: 'https://r.example.com/c.tgz' });
    await refused(
      resolveRelease(i, policy),
      'checksum-missing',
      'refusing to download https://r.example.com/c.tgz: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)',
    );
    assert.deepEqual(await resolveRelease(i, { ...policy, mustHaveChecksum: false }), { url: 'https://r.example.com/c.tgz', platform: 'any' });
  });

  it('refuses file:, ftp: and other schemes', async () => {
    await refused(
      resolveRelease(info({ any: `file:///tmp/chaind?checksum=sha256:${SHA256}` }), { ...policy, allowInsecureHttp: true }),
      'scheme',
      `refusing to download file:///tmp/chaind?checksum=sha256:${SHA256}: scheme "file:" is not allowed (only https, or plain http where explicitly allowed)`,
    );
    await refused(
      resolveRelease(info({ any: 'ftp://r.example.com/c.tgz' }), policy),
      'scheme',
      'refusing to download ftp://r.example.com/c.tgz: scheme "ftp:" is not allowed (only https, or plain http where explicitly allowed)',
    );
  });

  it('refuses plain http to a non-loopback host without the opt-in, and allows it with', async () => {
    // .invalid never resolves: reaching the network would give a 'network' error instead
    const i = info({ any: `http://mirror.invalid/c.tgz?checksum=sha256:${SHA256}` });
    await refused(
      resolveRelease(i, policy),
      'scheme',
      `refusing to download http://mirror.invalid/c.tgz?checksum=sha256:${SHA256}: plain http to mirror.invalid is not allowed (only https, unless insecure http is explicitly allowed)`,
    );
    assert.equal((await resolveRelease(i, { ...policy, allowInsecureHttp: true })).url, 'http://mirror.invalid/c.tgz');
    assert.equal((await resolveRelease(info({ any: `http://127.0.0.1:9/c.tgz?checksum=sha256:${SHA256}` }), policy)).url, 'http://127.0.0.1:9/c.tgz');
  });

  it('refuses info that is not the expected JSON', async () => {
    const expected = 'expected JSON {"binaries": {"<os>/<arch>": "<url>", …}} or a URL to such JSON';
    await refused(resolveRelease('  ', policy), 'bad-info', `upgrade info is empty; ${expected}`);
    await refused(resolveRelease('v2 release', policy), 'bad-info', `upgrade info is neither JSON nor a URL; ${expected}`);
    await refused(resolveRelease('{"binaries": [1]}', policy), 'bad-info', `upgrade info has no "binaries" object; ${expected}`);
    await refused(resolveRelease('{"binaries": {"any": 3}}', policy), 'bad-info', 'upgrade info: binaries["any"] is not a URL string');
    await refused(resolveRelease('{"binaries": {"any": "not a url"}}', policy), 'bad-info', 'upgrade info: binaries["any"] is not a valid URL: "not a url"');
    await assert.rejects(
      resolveRelease('{"binaries":', policy),
      (e: unknown) => e instanceof FetchError && e.kind === 'bad-info' && e.message.startsWith('upgrade info is not valid JSON ('),
    );
  });

  it('refuses zip, tar.xz and the other unsupported archives before downloading anything, naming the supported formats', async () => {
    for (const ext of ['zip', 'tar.xz', 'txz', 'tar.bz2', 'tar.zst', '7z']) {
      await refused(
        resolveRelease(info({ any: `https://r.example.com/c.${ext}?checksum=sha256:${SHA256}` }), policy),
        'unsupported-archive',
        `unsupported archive type "${ext}" for https://r.example.com/c.${ext}: only tar.gz (tgz), tar and plain binaries are supported`,
      );
    }
    await refused(
      resolveRelease(info({ any: `https://r.example.com/c?archive=zip&checksum=sha256:${SHA256}` }), policy),
      'unsupported-archive',
      'unsupported archive type "zip" for https://r.example.com/c: only tar.gz (tgz), tar and plain binaries are supported',
    );
  });
});

describe("planBinaries: the proposer's check of every entry, the same rules as chainvisor's", () => {
  const expected = 'expected JSON {"binaries": {"<os>/<arch>": "<url>", …}} or a URL to such JSON';
  const bad = (text: string, kind: string, message: string, o: DownloadPolicy = policy): Promise<void> => refused(planBinaries(text, o), kind, message);

  it('refuses, in the order of the SDK, each with its own message', async () => {
    await bad('free text', 'bad-info', `upgrade info is neither JSON nor a URL; ${expected}`);
    await bad('{"name":"v2"}', 'bad-info', `upgrade info has no "binaries" object; ${expected}`);
    await bad('{"binaries":[]}', 'bad-info', `upgrade info has no "binaries" object; ${expected}`);
    await bad('{"binaries":{}}', 'bad-info', 'no "binaries" entries found');
    await bad(info({ linux: `https://x/y?checksum=sha256:${SHA256}` }), 'bad-info', 'platform key "linux" must be "any" or "os/arch"');
    await bad(
      info({ any: 'ftp://x/y' }),
      'scheme',
      'refusing to download ftp://x/y: scheme "ftp:" is not allowed (only https, or plain http where explicitly allowed)',
    );
    await bad(
      info({ any: 'https://x/y' }),
      'checksum-missing',
      'refusing to download https://x/y: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)',
    );
    await bad(info({ any: 'https://x/y?checksum=sha256' }), 'bad-info', 'unsupported checksum "sha256" for https://x/y: expected sha256:<hex> or sha512:<hex>');
    await bad(
      info({ any: `https://x/y?checksum=md5:${'a'.repeat(32)}` }),
      'checksum-weak',
      'refusing md5 checksum for https://x/y: md5 is too weak, use sha256 or sha512',
    );
    await bad(info({ any: 'https://x/y?checksum=sha256:abcd' }), 'bad-info', 'malformed sha256 checksum for https://x/y: expected 64 hex digits, got "abcd"');
    // every entry is checked, not only this platform's
    await bad(
      info({ [own]: `https://x/y?checksum=sha256:${SHA256}`, 'plan9/mips': 'https://x/z' }),
      'checksum-missing',
      'refusing to download https://x/z: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)',
    );
  });

  it('without required checksums a URL may have none, but one that is there is still checked', async () => {
    const lax = { ...policy, mustHaveChecksum: false };
    assert.equal((await planBinaries(info({ any: 'https://x/y' }), lax))[0].checksum, undefined);
    await bad(
      info({ any: 'https://x/y?checksum=sha1:00' }),
      'checksum-weak',
      'refusing sha1 checksum for https://x/y: sha1 is too weak, use sha256 or sha512',
      lax,
    );
  });

  it('returns every entry, sorted by platform', async () => {
    const ok = await planBinaries(
      info({ 'linux/amd64': `https://x/b?checksum=SHA256:${SHA256.toUpperCase()}`, 'darwin/arm64': `https://x/a.tgz?checksum=sha256:${SHA256}` }),
      policy,
    );
    assert.deepEqual(ok, [
      { url: 'https://x/a.tgz', platform: 'darwin/arm64', checksum: { algo: 'sha256', hex: SHA256 } },
      { url: 'https://x/b', platform: 'linux/amd64', checksum: { algo: 'sha256', hex: SHA256 } },
    ]);
  });
});

describe('resolveRelease with info as a URL', () => {
  let srv: Served;
  before(async () => {
    srv = await serve();
  });
  after(() => srv.close());

  // the info URL's own checksum (required like a binary's): the URLs in messages are shown without it
  const sum = (body: string): string => `?checksum=sha256:${hex('sha256', Buffer.from(body))}`;

  it('fetches the JSON it points to', async () => {
    const body = info({ [own]: `https://r.example.com/c.tgz?checksum=sha256:${SHA256}` });
    srv.file('/upgrade-info.json', Buffer.from(body));
    srv.route('/moved.json', (_req, res) => void res.writeHead(302, { location: '/upgrade-info.json' }).end());
    const src = await resolveRelease(`${srv.base}/moved.json${sum(body)}`, policy);
    assert.deepEqual(src, { url: 'https://r.example.com/c.tgz', platform: own, checksum: { algo: 'sha256', hex: SHA256 } });
  });

  it('refuses an info URL without a checksum unless checksums are explicitly not required, and checks one it has', async () => {
    const body = info({ [own]: `https://r.example.com/c.tgz?checksum=sha256:${SHA256}` });
    srv.file('/plain.json', Buffer.from(body));
    await refused(
      resolveRelease(`${srv.base}/plain.json`, policy),
      'checksum-missing',
      `refusing to download ${srv.base}/plain.json: no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)`,
    );
    assert.equal(srv.hits.includes('/plain.json'), false, 'refused before connecting');
    assert.equal((await resolveRelease(`${srv.base}/plain.json`, { ...policy, mustHaveChecksum: false })).platform, own);
    const got = hex('sha256', Buffer.from(body));
    await refused(
      resolveRelease(`${srv.base}/plain.json?checksum=sha256:${SHA256}`, policy),
      'checksum-mismatch',
      `checksum mismatch for ${srv.base}/plain.json: expected sha256 ${SHA256}, got ${got}`,
    );
  });

  it('reports a missing info document', async () => {
    await refused(resolveRelease(`${srv.base}/nope.json${sum('')}`, policy), 'http-status', `download of ${srv.base}/nope.json failed: HTTP 404 Not Found`);
  });

  it('refuses an info URL to a non-loopback http host without connecting', async () => {
    await refused(
      resolveRelease('http://mirror.invalid/info.json', policy),
      'scheme',
      'refusing to download http://mirror.invalid/info.json: plain http to mirror.invalid is not allowed (only https, unless insecure http is explicitly allowed)',
    );
  });

  it('fails an info server that never answers, or stops mid-document, after the stall timeout', { timeout: 10_000 }, async () => {
    srv.route('/silent.json', () => {}); // accepts the request, sends nothing, keeps the socket open
    srv.route('/stuck.json', (_req, res) => {
      res.writeHead(200);
      res.write('{"binaries":'); // then nothing
    });
    const quick = { ...policy, stallTimeoutMs: 300 };
    await refused(resolveRelease(`${srv.base}/silent.json${sum('')}`, quick), 'stalled', `download of ${srv.base}/silent.json stalled: no response for 300ms`);
    await refused(
      resolveRelease(`${srv.base}/stuck.json${sum('')}`, quick),
      'stalled',
      `download of ${srv.base}/stuck.json stalled: no data for 300ms (received 12 bytes)`,
    );
  });

  it('reports info at a URL that is not JSON', async () => {
    srv.file('/garbage.json', Buffer.from('<html>'));
    await assert.rejects(resolveRelease(`${srv.base}/garbage.json${sum('<html>')}`, policy), (e: unknown) => {
      assert.ok(e instanceof FetchError);
      assert.equal(e.kind, 'bad-info');
      assert.match(e.message, new RegExp(`^upgrade info at ${srv.base}/garbage.json is not valid JSON \\(`));
      return true;
    });
  });
});
