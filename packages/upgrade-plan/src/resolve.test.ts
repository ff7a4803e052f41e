import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FetchError, isLoopbackHost, platformKey, resolveRelease, type FetchPolicy } from './index.ts';
import { serve, type Served } from '../test/testkit.ts';

const SHA256 = 'ab'.repeat(32);
const SHA512 = 'cd'.repeat(64);
const own = platformKey();
const policy: FetchPolicy = { mustHaveChecksum: true, allowInsecureHttp: false, maxBytes: 1 << 30, stallTimeoutMs: 60_000, progress: 'none', log: () => {} };
const info = (binaries: Record<string, unknown>): string => JSON.stringify({ binaries });

async function refused(p: Promise<unknown>, kind: string, message: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`);
    assert.equal(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  });
}

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
      `refusing to download file:///tmp/chaind?checksum=sha256:${SHA256}: scheme "file:" is not allowed (only https, or http to a loopback address)`,
    );
    await refused(
      resolveRelease(info({ any: 'ftp://r.example.com/c.tgz' }), policy),
      'scheme',
      'refusing to download ftp://r.example.com/c.tgz: scheme "ftp:" is not allowed (only https, or http to a loopback address)',
    );
  });

  it('refuses plain http to a non-loopback host without the opt-in, and allows it with', async () => {
    // .invalid never resolves: reaching the network would give a 'network' error instead
    const i = info({ any: `http://mirror.invalid/c.tgz?checksum=sha256:${SHA256}` });
    await refused(
      resolveRelease(i, policy),
      'scheme',
      `refusing to download http://mirror.invalid/c.tgz?checksum=sha256:${SHA256}: plain http to mirror.invalid is not allowed (only https, or http to a loopback address, unless insecure http is explicitly allowed)`,
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
    await assert.rejects(resolveRelease('{"binaries":', policy), (e: unknown) => e instanceof FetchError && e.kind === 'bad-info' && e.message.startsWith('upgrade info is not valid JSON ('));
  });

  it('refuses zip archives before downloading anything', async () => {
    await refused(
      resolveRelease(info({ any: `https://r.example.com/c.zip?checksum=sha256:${SHA256}` }), policy),
      'unsupported-archive',
      'unsupported archive type "zip" for https://r.example.com/c.zip: only tar.gz (tgz), tar and plain binaries are supported',
    );
  });
});

describe('resolveRelease with info as a URL', () => {
  let srv: Served;
  before(async () => {
    srv = await serve();
  });
  after(() => srv.close());

  it('fetches the JSON it points to', async () => {
    const body = info({ [own]: `https://r.example.com/c.tgz?checksum=sha256:${SHA256}` });
    srv.file('/upgrade-info.json', Buffer.from(body));
    srv.route('/moved.json', (_req, res) => void res.writeHead(302, { location: '/upgrade-info.json' }).end());
    const src = await resolveRelease(`${srv.base}/moved.json`, policy);
    assert.deepEqual(src, { url: 'https://r.example.com/c.tgz', platform: own, checksum: { algo: 'sha256', hex: SHA256 } });
  });

  it('reports a missing info document', async () => {
    await refused(resolveRelease(`${srv.base}/nope.json`, policy), 'http-status', `download of ${srv.base}/nope.json failed: HTTP 404 Not Found`);
  });

  it('refuses an info URL to a non-loopback http host without connecting', async () => {
    await refused(
      resolveRelease('http://mirror.invalid/info.json', policy),
      'scheme',
      'refusing to download http://mirror.invalid/info.json: plain http to mirror.invalid is not allowed (only https, or http to a loopback address, unless insecure http is explicitly allowed)',
    );
  });

  it('fails an info server that never answers, or stops mid-document, after the stall timeout', { timeout: 10_000 }, async () => {
    srv.route('/silent.json', () => {}); // accepts the request, sends nothing, keeps the socket open
    srv.route('/stuck.json', (_req, res) => {
      res.writeHead(200);
      res.write('{"binaries":'); // then nothing
    });
    const quick = { ...policy, stallTimeoutMs: 300 };
    await refused(resolveRelease(`${srv.base}/silent.json`, quick), 'stalled', `download of ${srv.base}/silent.json stalled: no response for 300ms`);
    await refused(resolveRelease(`${srv.base}/stuck.json`, quick), 'stalled', `download of ${srv.base}/stuck.json stalled: no data for 300ms (received 12 bytes)`);
  });

  it('reports info at a URL that is not JSON', async () => {
    srv.file('/garbage.json', Buffer.from('<html>'));
    await assert.rejects(resolveRelease(`${srv.base}/garbage.json`, policy), (e: unknown) => {
      assert.ok(e instanceof FetchError);
      assert.equal(e.kind, 'bad-info');
      assert.match(e.message, new RegExp(`^upgrade info at ${srv.base}/garbage.json is not valid JSON \\(`));
      return true;
    });
  });
});
