// REST and gRPC against slow and greedy clients (issue 18): a slowly sent request, a silent
// connection, more connections than allowed, and an oversized gRPC message each lose their hold.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { newHome, removeTmpDirs, TestChain } from '@chaind/chaind/testing';
import { startGrpcServer, type GrpcServer } from '../grpc/server.ts';
import { startRestServer, type RestServer } from './server.ts';

/** Resolves with the milliseconds until the server closes `socket`, or rejects after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${ms} ms`));
    }, ms);
    socket.on('error', () => undefined);
    // unread data (HTTP/2's SETTINGS) would hold back the end, and the close with it
    socket.resume();
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - t0);
    });
  });
}

function open(hostPort: string): Promise<Socket> {
  const [host, port] = [hostPort.slice(0, hostPort.lastIndexOf(':')), Number(hostPort.slice(hostPort.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = connect({ host, port }, () => resolve(s));
    s.once('error', reject);
  });
}

describe('REST and gRPC connection limits', { timeout: 60_000 }, () => {
  let c: TestChain;
  let rest: RestServer;
  let grpc: GrpcServer;
  before(async () => {
    c = TestChain.open(newHome());
    rest = await startRestServer({ port: 0, app: c.app, readTimeoutMs: 1000, idleTimeoutMs: 1500, maxOpenConnections: 3 });
    grpc = await startGrpcServer({ port: 0, app: c.app, limits: { maxRecvMsgSize: 1024, maxOpenConnections: 2, maxConnectionIdleMs: 1500 } });
  });
  after(async () => {
    await rest.close();
    await grpc.close();
    await c.close();
    removeTmpDirs();
  });

  test('REST: a body sent a byte at a time is cut off at the read timeout', async () => {
    const s = await open(new URL(rest.url).host);
    s.write('POST /cosmos/tx/v1beta1/simulate HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{');
    const drip = setInterval(() => s.writable && s.write(' '), 200);
    try {
      const ms = await closedWithin(s, 8000);
      assert.ok(ms < 4000, `closed after ${ms.toFixed(0)} ms`);
    } finally {
      clearInterval(drip);
    }
  });

  test('REST: a connection that sends nothing is closed; more than max-open-connections are refused', async () => {
    const silent = await open(new URL(rest.url).host);
    assert.ok((await closedWithin(silent, 8000)) < 4000);
    const held = await Promise.all([0, 1, 2].map(() => open(new URL(rest.url).host)));
    const extra = await open(new URL(rest.url).host);
    // the server drops a connection past its limit at once
    assert.ok((await closedWithin(extra, 1000)) < 1000);
    for (const h of held) h.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const r = await fetch(`${rest.url}/cosmos/bank/v1beta1/supply`);
    assert.equal(r.status, 200, 'served again once the others closed');
  });

  test('gRPC: a message over max-recv-msg-size is RESOURCE_EXHAUSTED; a silent socket is dropped; connections are bounded', async () => {
    const client = new Client(grpc.address, credentials.createInsecure());
    try {
      const big = new Uint8Array(4096);
      await assert.rejects(
        new Promise((resolve, reject) =>
          client.makeUnaryRequest(
            '/cosmos.bank.v1beta1.Query/TotalSupply',
            (b: Uint8Array) => Buffer.from(b),
            (b: Buffer) => b,
            big,
            (err: ServiceError | null, v?: Buffer) => (err !== null ? reject(err) : resolve(v)),
          ),
        ),
        (e: ServiceError) => e.code === status.RESOURCE_EXHAUSTED,
      );
    } finally {
      client.close();
    }
    await new Promise((r) => setTimeout(r, 100));
    const silent = await open(grpc.address);
    assert.ok((await closedWithin(silent, 8000)) < 4000);
    const held = await Promise.all([0, 1].map(() => open(grpc.address)));
    const extra = await open(grpc.address);
    assert.ok((await closedWithin(extra, 1000)) < 1000);
    for (const h of held) h.destroy();
  });
});
