// app.toml [abci] limits as a running `chaind start --with-comet=false` applies them: max-connections
// and max-message-bytes on its ABCI server, comet-rpc-timeout and comet-rpc-max-response-bytes on the
// calls it makes to CometBFT's JSON-RPC (here a loopback server standing in for a hostile or stuck one).
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AbciClient } from '@chaind/abci';
import { configPaths } from '../../src/config/index.ts';
import { AbciNode, freePort, makeNetworkHomes, removeTmpDirs, tmpDir } from '@chaind/chaind/testing';

/** A CometBFT RPC stand-in: `answer` decides what each call gets. */
async function fakeComet(answer: (res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('app.toml [abci] limits in a running node', { timeout: 90_000 }, () => {
  let home = '';
  const servers: Server[] = [];
  before(async () => {
    home = (await makeNetworkHomes({ chainId: 'abci-limits-1', nodes: 1, users: ['alice'], release: 'v2' })).homes[0];
  });
  after(async () => {
    await AbciNode.killAll();
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    removeTmpDirs();
  });

  /** A copy of the home whose app.toml [abci] section sets these keys (the file has each once, with its default). */
  const homeWith = (settings: Record<string, string>): string => {
    const h = tmpDir('chaind-home-');
    cpSync(home, h, { recursive: true });
    let text = readFileSync(configPaths(h).app, 'utf8');
    for (const [k, v] of Object.entries(settings)) {
      const line = new RegExp(`^${k} = .*$`, 'm');
      assert.match(text, line);
      text = text.replace(line, `${k} = ${v}`);
    }
    writeFileSync(configPaths(h).app, text);
    return h;
  };

  test('max-connections = 2: a third ABCI connection is closed at once and logged; max-message-bytes = 1000: a longer message gets an exception', async () => {
    const node = AbciNode.start(homeWith({ 'max-connections': '2', 'max-message-bytes': '1000' }));
    const address = await node.address;
    const a = await AbciClient.connect(address);
    const b = await AbciClient.connect(address);
    assert.equal((await a.request('echo', { message: 'a' })).message, 'a');
    assert.equal((await b.request('echo', { message: 'b' })).message, 'b');
    const c = await AbciClient.connect(address);
    // closed at once: the request meets a closed socket, or a reset when it arrived before the close
    await assert.rejects(c.request('echo', { message: 'c' }), /closed|ECONNRESET/);
    await node.waitForLog(/ABCI connection refused: 2 connections are open \(maxConnections\)/);
    const big = await b.send({ echo: { message: 'x'.repeat(2000) } }).then(
      (r) => r.exception?.error ?? JSON.stringify(r),
      (e: Error) => e.message,
    );
    assert.match(big, /message length \d+ bytes is above the limit of 1000 bytes \(maxMessageBytes\)/);
    // a is still served: the limits closed only the connections that broke them
    assert.equal((await a.request('echo', { message: 'again' })).message, 'again');
    await Promise.all([a, b, c].map((x) => x.close()));
    await node.kill();
  });

  const broadcast = async (rest: string): Promise<{ code: number; message: string }> => {
    const r = await fetch(`${rest}/cosmos/tx/v1beta1/txs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tx_bytes: 'AQID', mode: 'BROADCAST_MODE_SYNC' }),
    });
    return (await r.json()) as { code: number; message: string };
  };

  test('comet-rpc-max-response-bytes = 1000: a bigger answer from CometBFT is refused with a clear error; comet-rpc-timeout = "300ms": a silent one times out', async () => {
    const big = await fakeComet((res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(5000) } })),
    );
    const silent = await fakeComet(() => {});
    // an answer without a Content-Length that never ends: refused once 1000 bytes are in, not read on
    const endless = await fakeComet((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write('x'.repeat(400)), 5);
      res.on('close', () => clearInterval(t));
    });
    servers.push(big.server, silent.server, endless.server);
    for (const [comet, want] of [
      [big.url, /^CometBFT RPC answered broadcast_tx_sync with more than 1000 bytes$/],
      [endless.url, /^CometBFT RPC answered broadcast_tx_sync with more than 1000 bytes$/],
      [silent.url, /^CometBFT RPC at http:\/\/127\.0\.0\.1:\d+\/ is not reachable \(broadcast_tx_sync\): .*time/i],
    ] as const) {
      const port = await freePort();
      const node = AbciNode.start(homeWith({ 'comet-rpc-max-response-bytes': '1000', 'comet-rpc-timeout': '"300ms"' }), {
        args: ['--rpc.laddr', comet, '--api.enable=true', '--api.address', `tcp://127.0.0.1:${port}`],
      });
      await node.waitForLog(/REST server listening/);
      const t0 = Date.now();
      const r = await broadcast(`http://127.0.0.1:${port}`);
      assert.equal(r.code, 14, JSON.stringify(r));
      assert.match(r.message, want);
      assert.ok(Date.now() - t0 < 5_000, 'the timeout is the setting, not the 10 s default');
      await node.kill();
    }
  });
});
