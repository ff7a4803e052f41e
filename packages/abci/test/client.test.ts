// AbciClient against a raw loopback server that answers with whatever bytes a test scripts.
import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, type TestContext, test } from 'node:test';
import type { Response } from 'cosmjs-types/tendermint/abci/types';
import { AbciClient, AbciClientError, encodeResponseFrame, FrameDecoder } from '../src/index.ts';

/** A server that hands each connection's received frame count and socket to `onFrames`. */
async function scripted(t: TestContext, onFrames: (socket: Socket, total: number) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    const decoder = new FrameDecoder(1 << 20);
    let total = 0;
    socket.on('data', (chunk: Buffer) => {
      total += decoder.push(chunk).length;
      onFrames(socket, total);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const answer = (socket: Socket, ...rs: Response[]): void => void socket.write(Buffer.concat(rs.map(encodeResponseFrame)));
const isClientError = (text: RegExp) => (err: unknown) => err instanceof AbciClientError && err.code === 'abci-client' && text.test(err.message);

describe('AbciClient', () => {
  test('a response of another method than the request at the head stops the client', async (t) => {
    const address = await scripted(t, (socket, total) => {
      if (total === 2) answer(socket, { info: { data: '', version: '', appVersion: 0n, lastBlockHeight: 0n, lastBlockAppHash: new Uint8Array() } });
    });
    const client = await AbciClient.connect(address);
    const call = client.request('echo', { message: 'x' });
    await assert.rejects(call, isClientError(/^unexpected response info to the request echo$/));
    assert.match((await client.closed)?.message ?? '', /unexpected response info to the request echo/);
    await assert.rejects(client.request('echo', { message: 'later' }), isClientError(/unexpected response info/));
  });

  test('a response when no call was made stops the client', async (t) => {
    // the server speaks first: the client has nothing to match it to
    const client = await AbciClient.connect(await scriptedPush(t, { flush: {} }));
    assert.match((await client.closed)?.message ?? '', /^unexpected response flush when no call was made$/);
  });

  test('an Exception rejects every pending call with its text and closes the connection', async (t) => {
    const address = await scripted(t, (socket, total) => {
      if (total === 4) answer(socket, { echo: { message: 'one' } }, { exception: { error: 'app halted at height 7' } });
    });
    const client = await AbciClient.connect(address);
    const first = client.send({ echo: { message: 'one' } });
    const second = client.send({ echo: { message: 'two' } });
    const third = client.send({ echo: { message: 'three' } });
    const flush = client.flush();
    assert.deepEqual((await first).echo, { message: 'one' });
    for (const p of [second, third, flush]) await assert.rejects(p, isClientError(/^the server sent an exception: app halted at height 7$/));
    assert.match((await client.closed)?.message ?? '', /app halted at height 7/);
    assert.equal(client.pending, 0);
  });

  test('the server closing the connection fails the pending calls', async (t) => {
    const address = await scripted(t, (socket) => socket.end());
    const client = await AbciClient.connect(address);
    await assert.rejects(client.request('echo', { message: 'x' }), isClientError(/the server closed the connection with 2 calls pending/));
  });

  test('close() rejects what is pending and settles closed with undefined; a request that names no method is refused', async (t) => {
    const address = await scripted(t, () => {});
    const client = await AbciClient.connect(address);
    await assert.rejects(client.send({}), { name: 'AbciProtocolError', message: /names no ABCI method/ });
    const pending = assert.rejects(client.request('echo', { message: 'never answered' }), isClientError(/^the client was closed$/));
    await client.close();
    await pending;
    assert.equal(await client.closed, undefined);
  });

  test('connecting to nothing: AbciClientError naming the address', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    await assert.rejects(
      AbciClient.connect(`127.0.0.1:${port}`),
      isClientError(new RegExp(`^cannot connect to tcp://127.0.0.1:${port}: connect ECONNREFUSED`)),
    );
    await assert.rejects(
      AbciClient.connect('unix:///nonexistent/abci.sock'),
      isClientError(/^cannot connect to unix:\/\/\/nonexistent\/abci.sock: connect ENOENT/),
    );
  });
});

/** A server that sends `res` to each connection as soon as it is accepted. */
async function scriptedPush(t: TestContext, res: Response): Promise<string> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    answer(socket, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
