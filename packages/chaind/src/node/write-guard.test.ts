import assert from 'node:assert/strict';
import { createServer, get, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { guardWrites, type WriteGuard, type WriteLimits } from './write-guard.ts';

const ANSWER_BYTES = 32 * 1024 * 1024;
const answer = Buffer.alloc(ANSWER_BYTES, 0x61);

interface Served {
  readonly server: Server;
  readonly port: number;
  readonly closed: { reason: string; bytes: number }[];
  readonly guard: WriteGuard;
}

const servers: Server[] = [];
const clients: Socket[] = [];
// a failed test leaves its connections open, and close() waits for them: the run would hang instead of failing
after(() => {
  for (const c of clients) c.destroy();
  return Promise.all(
    servers.map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

/** A real HTTP server on loopback answering every request with 32 MiB, its writes guarded by `limits`. */
async function serve(limits: WriteLimits): Promise<Served> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': ANSWER_BYTES });
    res.end(answer);
  });
  servers.push(server);
  const closed: { reason: string; bytes: number }[] = [];
  const guard = guardWrites(server, limits, (reason, bytes) => closed.push({ reason, bytes }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('no port');
  return { server, port: a.port, closed, guard };
}

/** A client that sends a request and never reads a byte of the answer. */
async function neverReads(port: number): Promise<Socket> {
  const s = connect({ host: '127.0.0.1', port });
  clients.push(s);
  await new Promise((r) => s.once('connect', r));
  s.pause();
  s.on('error', () => {});
  s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  return s;
}

/** Resolves when the guard has closed `n` connections (the client, not reading, would not see it). */
async function closedCount(s: Served, n: number): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (s.closed.length < n) {
    if (performance.now() > deadline) throw new Error(`the guard closed ${s.closed.length} connections within 10 s, not ${n}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
/** The whole answer, read as fast as it comes; a connection closed before its end rejects (a hang otherwise). */
const fetchAll = (port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
      res.on('close', () => (res.complete ? undefined : reject(new Error(`the connection closed after ${n} of ${ANSWER_BYTES} bytes`))));
    }).on('error', reject);
  });

describe('unread answers', () => {
  test('an answer its client does not read closes the connection after the write timeout; a client that reads gets all of it', async () => {
    // a timeout a reader starved of CPU on a busy machine (the suite runs files side by side) does not reach
    const s = await serve({ writeTimeoutMs: 2000, maxBufferBytes: 1024 * 1024 * 1024 });
    const t0 = performance.now();
    const idle = await neverReads(s.port);
    await closedCount(s, 1);
    const took = performance.now() - t0;
    assert.ok(took >= 2000, `closed after ${took} ms`);
    assert.equal(s.closed.length, 1);
    assert.equal(s.closed[0].reason, 'write timeout');
    assert.ok(s.closed[0].bytes > 0, 'the answer was waiting in the node');
    assert.equal(await fetchAll(s.port), ANSWER_BYTES);
    assert.equal(s.closed.length, 1, 'a client that reads is never closed');
    idle.destroy();
  });

  test('unread answers past the buffer limit close the connections that waited longest, and the others are served', async () => {
    const s = await serve({ writeTimeoutMs: 0, maxBufferBytes: 40 * 1024 * 1024 });
    const first = await neverReads(s.port);
    await new Promise((r) => setTimeout(r, 300));
    const second = await neverReads(s.port);
    await closedCount(s, 1);
    assert.equal(s.closed[0].reason, 'write buffer limit');
    const connections = (): Promise<number> => new Promise((r, j) => s.server.getConnections((e, n) => (e ? j(e) : r(n))));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(s.closed.length, 1, 'the two together were over the limit, one alone is not');
    assert.equal(await connections(), 1, 'the newer connection stays open');
    assert.equal(await fetchAll(s.port), ANSWER_BYTES);
    first.destroy();
    second.destroy();
  });

  test('busy while unread answers are over the limit (the server refuses requests then), not once they are gone', async () => {
    // no periodic closing: only what busy() says
    const s = await serve({ writeTimeoutMs: 0, maxBufferBytes: 8 * 1024 * 1024, checkIntervalMs: 600_000 });
    assert.equal(s.guard.busy(), false);
    const idle = await neverReads(s.port);
    for (const t0 = performance.now(); !s.guard.busy() && performance.now() - t0 < 5000; ) await new Promise((r) => setTimeout(r, 10));
    assert.equal(s.guard.busy(), true);
    idle.destroy();
    for (const t0 = performance.now(); s.guard.busy() && performance.now() - t0 < 5000; ) await new Promise((r) => setTimeout(r, 10));
    assert.equal(s.guard.busy(), false);
    assert.equal(s.closed.length, 0);
  });
});
