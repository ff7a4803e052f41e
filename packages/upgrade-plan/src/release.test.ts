import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hex, refused, serve, tgz, type Served } from '../test/kit/index.ts';
import { downloadRelease, locateDaemon, prepareDownload, unpackRelease, type DownloadPolicy } from './index.ts';

const BIN = '#!/bin/sh\necho chaind v2\n';
const policy: DownloadPolicy = { mustHaveChecksum: true, allowInsecureHttp: false, allowLoopbackHttp: true, maxBytes: 1 << 20, stallTimeoutMs: 60_000 };

describe('a release download: verified, unpacked, its daemon found', () => {
  let srv: Served;
  let root: string;
  let n = 0;
  before(async () => {
    srv = await serve();
    root = await mkdtemp(join(tmpdir(), 'upgrade-plan-release-'));
  });
  after(async () => {
    await srv.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Serves `body` at `path`, downloads and unpacks it as a release; the daemon's path, relative to the release folder. */
  async function fetchOne(path: string, body: Buffer, query = ''): Promise<string> {
    srv.file(path, body);
    const work = join(root, String(++n));
    const out = join(work, 'out');
    await mkdir(out, { recursive: true });
    const p = prepareDownload({ url: `${srv.base}${path}?checksum=sha256:${hex('sha256', body)}${query}`, platform: 'any' }, policy);
    await downloadRelease(p, join(work, 'download'), policy);
    await unpackRelease(join(work, 'download'), p, out, 'chaind', p.fileName);
    return (await locateDaemon(out, 'chaind', p.fileName)).slice(out.length + 1);
  }

  it('a plain binary becomes bin/<daemon>; an archive is extracted', async () => {
    assert.equal(await fetchOne('/chaind-linux-amd64', Buffer.from(BIN)), 'bin/chaind');
    assert.equal(await fetchOne('/v2.tar.gz', tgz([{ path: 'chaind', body: BIN, mode: 0o755 }])), 'chaind');
  });

  it('a URL that names no archive type is taken by its content: a gzip is extracted, a zip refused; archive=false keeps it as is', async () => {
    const archive = tgz([{ path: 'bin/chaind', body: BIN, mode: 0o755 }]);
    assert.equal(await fetchOne('/latest', archive), 'bin/chaind');
    const zip = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(60)]);
    await refused(fetchOne('/latest-zip', zip), 'unsupported-archive', 'zip archives are not supported: publish a .tar.gz');
    const kept = await fetchOne('/as-is', archive, '&archive=false');
    assert.equal(kept, 'bin/chaind');
    assert.deepEqual(await readFile(join(root, String(n), 'out', kept)), archive);
  });

  it('refuses an empty download and a checksum mismatch', async () => {
    await refused(fetchOne('/empty', Buffer.alloc(0)), 'empty', `download of ${srv.base}/empty is empty`);
    srv.file('/wrong', Buffer.from(BIN));
    const p = prepareDownload({ url: `${srv.base}/wrong`, platform: 'any', checksum: { algo: 'sha256', hex: 'ab'.repeat(32) } }, policy);
    await refused(
      downloadRelease(p, join(root, 'wrong'), policy),
      'checksum-mismatch',
      `checksum mismatch for ${srv.base}/wrong: expected sha256 ${'ab'.repeat(32)}, got ${hex('sha256', Buffer.from(BIN))}`,
    );
  });
});
