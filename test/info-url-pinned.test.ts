// Issue 18, finding 2, end to end: a real chaind dev chain under a real `chainvisor run`, a governance
// upgrade whose plan.info is a URL on a loopback mirror. The info document names the binaries' checksums,
// so the URL must pin the document itself (checksum=); a mirror that swaps the document after the vote,
// or a URL that pins nothing, must not choose the binary: chainvisor refuses at the halt, `current` stays.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { hex, serve, tgz, type RawEntry, type Served } from '@chaind/upgrade-plan/testing';
import { cleanupVisorChains, createVisorChain, passAndWait, proposeV2, waitForHeight, type Visor, type VisorChain } from './kit/visor-chain.ts';

/** Downloads allowed; the mirror is on loopback, which plain http may reach only when allowed. */
const ENV = { DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true', DAEMON_ALLOW_LOOPBACK_HTTP: 'true' };
/** chainvisor's exit code for a failed upgrade (docs/chainvisor.md) */
const UPGRADE_FAILED = 3;

/** A release whose bin/chaind only says who it is: it must never be installed, let alone run. */
const release = (who: string): Buffer => {
  const entries: RawEntry[] = [
    { path: 'bin/', type: 'Directory' },
    { path: 'bin/chaind', body: `#!/bin/sh\necho ${who}\n`, mode: 0o755 },
  ];
  return tgz(entries);
};
const sha256 = (b: Buffer | string): string => hex('sha256', Buffer.from(b));
const infoDoc = (url: string): string => JSON.stringify({ binaries: { any: url } });
const NO_CHECKSUM = 'no checksum given (add ?checksum=sha256:<hex> to the URL, or explicitly allow downloads without a checksum)';

/** chainvisor's end: the upgrade refused with one ERR line, the node never replaced. */
async function assertRefused(c: VisorChain, v: Visor, h: number, why: string): Promise<void> {
  const { code, output } = await v.exit;
  assert.equal(code, UPGRADE_FAILED, output.slice(-4000));
  assert.match(output, new RegExp(`UPGRADE "v2" NEEDED at height: ${h}`));
  const errors = output.split('\n').filter((l) => l.startsWith('[chainvisor] ERR '));
  assert.deepEqual(errors, [`[chainvisor] ERR download of upgrade v2 failed: ${why}; current unchanged`]);
  assert.equal(readlinkSync(join(c.cv, 'current')), 'genesis');
  assert.deepEqual(readdirSync(join(c.cv, 'upgrades')), [], 'nothing installed');
}

describe('plan.info as a URL under a real chainvisor and node: the document must be pinned', () => {
  let srv: Served | undefined;
  afterEach(async () => {
    cleanupVisorChains();
    await srv?.close();
    srv = undefined;
  });

  test('the mirror swaps the pinned document after the vote: refused at the halt (checksum mismatch), B never fetched', { timeout: 240_000 }, async () => {
    const s = (srv = await serve());
    const [a, b] = [release('A'), release('B')];
    s.file('/a.tar.gz', a);
    s.file('/b.tar.gz', b);
    const docA = infoDoc(`${s.base}/a.tar.gz?checksum=sha256:${sha256(a)}`);
    const docB = infoDoc(`${s.base}/b.tar.gz?checksum=sha256:${sha256(b)}`);
    s.file('/info.json', Buffer.from(docA));
    const c = await createVisorChain(ENV);
    const v = c.run();
    await waitForHeight(c, v, 2);
    const h = (await c.height()) + 25;
    const info = `${s.base}/info.json?checksum=sha256:${sha256(docA)}`;

    // the proposer's CLI fetches the pinned document and downloads A: it passes
    const submitted = await proposeV2(c, h, info);
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.equal((JSON.parse(submitted.stdout) as { code: number }).code, 0, submitted.stdout);
    await passAndWait(c, h);
    // after the vote, before the halt: whoever controls the mirror serves B, with B's own correct checksum
    s.file('/info.json', Buffer.from(docB));
    const before = s.hits.length;

    await assertRefused(c, v, h, `checksum mismatch for ${s.base}/info.json: expected sha256 ${sha256(docA)}, got ${sha256(docB)}`);
    assert.deepEqual(s.hits.slice(before), ['/info.json'], 'chainvisor fetched the document once (without the checksum parameter) and never B');
    assert.equal(existsSync(join(c.cv, 'upgrades', 'v2')), false);
  });

  test(
    'an info URL without a checksum: the CLI refuses it; proposed anyway (--no-validate), chainvisor refuses it at the halt without fetching',
    { timeout: 240_000 },
    async () => {
      const s = (srv = await serve());
      const a = release('A');
      s.file('/a.tar.gz', a);
      s.file('/info.json', Buffer.from(infoDoc(`${s.base}/a.tar.gz?checksum=sha256:${sha256(a)}`)));
      const c = await createVisorChain(ENV);
      const v = c.run();
      await waitForHeight(c, v, 2);
      const h = (await c.height()) + 25;
      const info = `${s.base}/info.json`;

      const refused = await proposeV2(c, h, info);
      assert.equal(refused.code, 1, refused.stdout);
      assert.equal(refused.stderr.trim(), `Error: invalid --upgrade-info: refusing to download ${s.base}/info.json: ${NO_CHECKSUM}`);
      assert.deepEqual(s.hits, [], 'the CLI refused before connecting');

      const submitted = await proposeV2(c, h, info, ['--no-validate']);
      assert.equal(submitted.code, 0, submitted.stderr);
      await passAndWait(c, h);

      await assertRefused(c, v, h, `refusing to download ${s.base}/info.json: ${NO_CHECKSUM}`);
      assert.deepEqual(s.hits, [], 'nothing was fetched');
    },
  );
});
