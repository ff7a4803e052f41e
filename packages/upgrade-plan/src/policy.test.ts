import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { openUrl } from './http.ts';
import { FetchError, isLocalAddress } from './index.ts';
import { redirectTargetRefusal, schemeRefusal } from './policy.ts';

const NONE = { allowInsecureHttp: false, allowLoopbackHttp: false };

describe('plain http to loopback needs the explicit opt-in', () => {
  it('is refused by default, allowed with allowLoopbackHttp; allowInsecureHttp alone does not allow it', () => {
    for (const host of ['127.0.0.1', '127.9.9.9', '[::1]', 'localhost', 'LOCALHOST']) {
      const u = new URL(`http://${host}:8080/chaind.tar.gz`);
      assert.equal(
        schemeRefusal(u, NONE),
        `plain http to the loopback host ${u.hostname} is not allowed (only https, unless a loopback mirror is explicitly allowed)`,
      );
      assert.notEqual(schemeRefusal(u, { allowInsecureHttp: true, allowLoopbackHttp: false }), null);
      assert.equal(schemeRefusal(u, { allowInsecureHttp: false, allowLoopbackHttp: true }), null);
    }
    assert.equal(
      schemeRefusal(new URL('http://mirror.example/x'), { allowInsecureHttp: false, allowLoopbackHttp: true }),
      'plain http to mirror.example is not allowed (only https, unless insecure http is explicitly allowed)',
    );
    assert.equal(schemeRefusal(new URL('https://127.0.0.1/x'), NONE), null);
  });

  it("names the caller's setting that allows a loopback mirror, in both refusals", () => {
    const p = { ...NONE, loopbackSetting: 'DAEMON_ALLOW_LOOPBACK_HTTP=true' };
    assert.equal(
      schemeRefusal(new URL('http://127.0.0.1:8080/c.tgz'), p),
      'plain http to the loopback host 127.0.0.1 is not allowed (only https, unless a loopback mirror is allowed with DAEMON_ALLOW_LOOPBACK_HTTP=true)',
    );
    assert.equal(
      redirectTargetRefusal(new URL('https://10.0.0.1/c'), { ...NONE, loopbackSetting: '--allow-loopback-http' }),
      'a redirect to the loopback or private address 10.0.0.1 is not allowed (unless a loopback mirror is allowed with --allow-loopback-http)',
    );
  });
});

describe('isLocalAddress: loopback and private literals', () => {
  it('classifies literal hosts as URL writes them', () => {
    const local = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '[::1]',
      '[::]',
      '[fd00::2]',
      '[fc00::1]',
      '[fe80::1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:127.0.0.1]',
      'localhost',
      'a.localhost',
      '2130706433',
      '0x7f.1',
    ];
    const pub = ['8.8.8.8', '172.32.0.1', '192.0.2.2', '1.1.1.1', '[2001:db8::1]', '[::ffff:8.8.8.8]', 'mirror.example', 'localhost.example'];
    for (const h of local) assert.equal(isLocalAddress(new URL(`https://${h}/`).hostname), true, h);
    for (const h of pub) assert.equal(isLocalAddress(new URL(`https://${h}/`).hostname), false, h);
  });
});

/** A non-loopback IPv4 of this machine, so the first hop is not loopback (its address may be private: only redirects are checked). */
const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

describe('redirects to loopback or private addresses', { skip: external === undefined ? 'no non-loopback IPv4 address on this machine' : false }, () => {
  let server: Server;
  let base: string;
  let port: number;
  const hits: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to !== null) res.writeHead(302, { location: to }).end();
      else res.end('release');
    });
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    port = (server.address() as AddressInfo).port;
    base = `http://${external}:${port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
  });
  const open = (to: string, allowLoopbackHttp: boolean): Promise<unknown> =>
    openUrl(new URL(`${base}/r?to=${encodeURIComponent(to)}`), { allowInsecureHttp: true, allowLoopbackHttp }, AbortSignal.timeout(10_000));

  it('are refused without the opt-in, before any request to them', async () => {
    for (const to of [
      'https://10.0.0.1/chaind',
      'https://169.254.169.254/latest/meta-data/',
      'http://192.168.0.1/chaind',
      'https://[fd00::1]/chaind',
      `https://127.0.0.1:${port}/chaind`,
    ]) {
      const host = new URL(to).hostname;
      await assert.rejects(open(to, false), (e: unknown) => {
        assert.ok(e instanceof FetchError, String(e));
        assert.equal(e.kind, 'redirect');
        assert.equal(
          e.message,
          `refusing redirect from ${base}/r?to=${encodeURIComponent(to)} to ${new URL(to).href}: a redirect to the loopback or private address ${host} is not allowed (unless a loopback mirror is explicitly allowed)`,
        );
        return true;
      });
    }
    assert.equal(hits.length, 5, 'one request each: the first hop only');
  });

  it('are followed with the opt-in', async () => {
    const r = (await open(`http://127.0.0.1:${port}/file`, true)) as { url: URL; res: Response };
    assert.equal(await r.res.text(), 'release');
    assert.equal(r.url.href, `http://127.0.0.1:${port}/file`);
  });
});
