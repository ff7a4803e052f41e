// The ABCI server over real loopback TCP and real unix sockets, driven by AbciClient and by raw sockets.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, type TestContext, test } from 'node:test';
import type { Request, Response } from 'cosmjs-types/tendermint/abci/types';
import {
  AbciClient,
  type AbciConnectionHandler,
  AbciListenError,
  DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
  type AbciServer,
  type AbciServerOptions,
  encodeFrame,
  encodeRequestFrame,
  listenAbci,
} from '../src/index.ts';
import { collectLog, connectRaw, tempSocket, withTimeout } from './kit.ts';
import { errorMessage } from '@chaind/errors';

type Transport = 'tcp' | 'unix';

/** A server on a free loopback port or in a fresh folder, closed (and its folder removed) after the test. */
async function start(t: TestContext, transport: Transport, options: Omit<AbciServerOptions, 'address'>): Promise<AbciServer> {
  let address = 'tcp://127.0.0.1:0';
  if (transport === 'unix') {
    const sock = await tempSocket();
    t.after(() => sock.cleanup());
    address = sock.address;
  }
  const server = await listenAbci({ ...options, address });
  t.after(() => server.close());
  return server;
}

const echoAnswer = (req: Request): Response => {
  if (req.echo) return { echo: { message: req.echo.message } };
  throw new Error(`unexpected request ${Object.keys(req).join(',')}`);
};

/** A handler that echoes, and records how its connection ended. */
function echoHandler(): AbciConnectionHandler & { readonly ended: Promise<Error | undefined> } {
  let resolve: (err: Error | undefined) => void = () => {};
  const ended = new Promise<Error | undefined>((r) => (resolve = r));
  return { handle: echoAnswer, closed: (err) => resolve(err), ended };
}

const frame = (req: Request): Uint8Array => encodeRequestFrame(req);
const echo = (message: string): Request => ({ echo: { message } });
/**
 * A peer that sends `requests` echoes at once and reads nothing for 300 ms: the server must have handled
 * fewer than half (it stopped reading once its answers filled the socket); then the peer reads and gets
 * every answer, in order.
 */
async function peerThatReadsNothing(
  t: TestContext,
  transport: Transport,
  o: { readonly requests: number; readonly answerBytes: number; readonly async: boolean },
): Promise<void> {
  let handled = 0;
  const body = 'x'.repeat(o.answerBytes);
  const answer = (req: Request): Response => {
    handled++;
    return { echo: { message: `${req.echo?.message}:${body}` } };
  };
  const server = await start(t, transport, {
    connect: () => ({ handle: o.async ? async (req) => answer(req) : answer }),
  });
  const raw = await connectRaw(server.address);
  t.after(() => raw.close());
  raw.socket.pause();
  const n = o.requests;
  raw.write(Buffer.concat(Array.from({ length: n }, (_, i) => frame(echo(String(i))))));
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(handled < n / 2, `the server handled ${handled} of ${n} requests (answers of ${o.answerBytes} bytes) of a peer that reads nothing`);
  raw.socket.resume();
  const rs = await raw.responses(n, 20_000);
  assert.deepEqual(
    rs.map((r) => r.echo?.message.split(':')[0]),
    Array.from({ length: n }, (_, i) => String(i)),
  );
  assert.equal(handled, n);
}

const kindsOf = (rs: Response[]): string[] =>
  rs.map((r) =>
    Object.keys(r)
      .filter((k) => r[k as keyof Response] !== undefined)
      .join('+'),
  );

for (const transport of ['tcp', 'unix'] as const) {
  describe(`ABCI server over ${transport}`, () => {
    test('answers Echo, and Flush in its place among many pipelined requests', async (t) => {
      const server = await start(t, transport, { connect: () => echoHandler() });
      const client = await AbciClient.connect(server.address);
      t.after(() => client.close());
      assert.deepEqual(await client.request('echo', { message: 'hello' }), { message: 'hello' });

      // 300 requests in flight, a Flush after every 7th: each answer comes back to its own request, and a
      // Flush resolves once every request before it has been answered
      let answered = 0;
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 300; i++) {
        calls.push(client.send(echo(`m${i}`)).then((r) => assert.equal(r.echo?.message, `m${answered++}`)));
        if (i % 7 === 6) calls.push(client.flush().then(() => assert.ok(answered >= i + 1, `flush after m${i} resolved with ${answered} answers`)));
      }
      calls.push(client.flush());
      await Promise.all(calls);
      assert.equal(answered, 300);

      // the same over a raw socket, all in one write: responses in request order
      const raw = await connectRaw(server.address);
      t.after(() => raw.close());
      raw.write(Buffer.concat([frame(echo('a')), frame({ flush: {} }), frame(echo('b')), frame(echo('c')), frame({ flush: {} })]));
      const rs = await raw.responses(5);
      assert.deepEqual(kindsOf(rs), ['echo', 'flush', 'echo', 'echo', 'flush']);
      assert.deepEqual(
        rs.filter((r) => r.echo).map((r) => r.echo?.message),
        ['a', 'b', 'c'],
      );
    });

    test('an async handler is awaited: one request at a time, answers in request order', async (t) => {
      let running = 0;
      let most = 0;
      const server = await start(t, transport, {
        connect: () => ({
          handle: async (req) => {
            most = Math.max(most, ++running);
            const n = Number(req.echo?.message);
            await new Promise((r) => setTimeout(r, (10 - n) * 3)); // later requests finish sooner
            running--;
            return { echo: { message: String(n) } };
          },
        }),
      });
      const client = await AbciClient.connect(server.address);
      t.after(() => client.close());
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => client.send(echo(String(i)))).concat([client.flush().then(() => ({}))]));
      assert.deepEqual(
        answers.slice(0, 10).map((r) => (r as Response).echo?.message),
        Array.from({ length: 10 }, (_, i) => String(i)),
      );
      assert.equal(most, 1, 'two requests of one connection were handled at once');
    });

    test('answers already computed go out while a later async answer is pending', async (t) => {
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => (release = r));
      const server = await start(t, transport, {
        connect: () => ({
          handle: (req) => (req.echo?.message === 'slow' ? gate.then(() => echoAnswer(req)) : echoAnswer(req)),
        }),
      });
      const raw = await connectRaw(server.address);
      t.after(() => raw.close());
      raw.write(Buffer.concat([frame(echo('fast')), frame(echo('slow')), frame({ flush: {} })]));
      assert.deepEqual(
        (await raw.responses(1)).map((r) => r.echo?.message),
        ['fast'],
      );
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(raw.available, 0, 'the Flush was answered before the request ahead of it');
      release();
      assert.deepEqual(kindsOf(await raw.responses(2)), ['echo', 'flush']);
    });

    test('connections are served concurrently: a stalled handler on one does not hold up another', async (t) => {
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => (release = r));
      t.after(() => release());
      const server = await start(t, transport, {
        connect: (conn) => ({ handle: (req) => (conn.id === 1 ? gate.then(() => echoAnswer(req)) : echoAnswer(req)) }),
      });
      const first = await AbciClient.connect(server.address);
      t.after(() => first.close());
      const stalled = first.request('echo', { message: 'one' });
      await new Promise((r) => setTimeout(r, 20));
      const second = await AbciClient.connect(server.address);
      t.after(() => second.close());
      assert.deepEqual(await withTimeout(second.request('echo', { message: 'two' }), 2000, 'the second connection'), { message: 'two' });
      release();
      assert.deepEqual(await stalled, { message: 'one' });
    });

    test('an undecodable request gets an Exception, then the connection closes; the server goes on', async (t) => {
      const handler = echoHandler();
      const log = collectLog();
      const server = await start(t, transport, { connect: () => handler, log: log.log });
      const raw = await connectRaw(server.address);
      // a good request, then a well-framed body that is not protobuf (a field with wire type 7), then another
      raw.write(Buffer.concat([frame(echo('before')), encodeFrame(Uint8Array.of(0xff, 0x01)), frame(echo('after'))]));
      const rs = await raw.responses(2);
      assert.equal(rs[0].echo?.message, 'before');
      assert.match(rs[1].exception?.error ?? '', /^cannot decode the request \(2 bytes\): invalid wire type 7/);
      await withTimeout(raw.ended, 2000, 'the server to close the connection');
      assert.equal(raw.available, 0, 'a request after the bad one was answered');
      assert.match((await handler.ended)?.message ?? '', /cannot decode the request/);
      assert.ok(log.lines.some((l) => l.level === 'error' && /sending an exception/.test(l.msg)));

      const client = await AbciClient.connect(server.address);
      t.after(() => client.close());
      assert.deepEqual(await client.request('echo', { message: 'still here' }), { message: 'still here' });
    });

    test('a request with no method set, and an empty message, get an Exception', async (t) => {
      const server = await start(t, transport, { connect: () => echoHandler() });
      for (const body of [Uint8Array.of(0x22, 0x00) /* field 4, reserved */, new Uint8Array(0)]) {
        const raw = await connectRaw(server.address);
        raw.write(encodeFrame(body));
        const [res] = await raw.responses(1);
        assert.match(res.exception?.error ?? '', /the request names no ABCI method/);
        await withTimeout(raw.ended, 2000, 'the close');
      }
    });

    test('a handler that throws, rejects or answers {exception}: an Exception with its message, then the connection closes', async (t) => {
      for (const fail of [
        (): Response => {
          throw new Error('state machine broke');
        },
        (): Promise<Response> => Promise.reject(new Error('state machine broke')),
        (): Response => ({ exception: { error: 'state machine broke' } }),
      ]) {
        let closedWith: Error | undefined;
        const server = await start(t, transport, { connect: () => ({ handle: fail, closed: (err) => (closedWith = err) }) });
        const client = await AbciClient.connect(server.address);
        await assert.rejects(client.request('echo', { message: 'x' }), /the server sent an exception: state machine broke/);
        assert.match((await client.closed)?.message ?? '', /state machine broke/);
        await withTimeout(
          (async () => {
            while (server.connections > 0) await new Promise((r) => setTimeout(r, 5));
          })(),
          2000,
          'the connection to end',
        );
        assert.match(closedWith?.message ?? '', /^(the handler answered the request echo with an exception: )?state machine broke$/);
      }
    });

    test('an answer of the wrong method is refused with an Exception naming both', async (t) => {
      const server = await start(t, transport, {
        connect: () => ({ handle: () => ({ info: { data: '', version: '', appVersion: 0n, lastBlockHeight: 0n, lastBlockAppHash: new Uint8Array() } }) }),
      });
      const client = await AbciClient.connect(server.address);
      await assert.rejects(client.request('echo', { message: 'x' }), /the handler answered the request echo with info/);
    });

    test('a connection closed mid-message ends that connection only, and says so', async (t) => {
      const handler = echoHandler();
      const server = await start(t, transport, { connect: () => handler });
      const raw = await connectRaw(server.address);
      const whole = frame(echo('cut short'));
      raw.write(whole.subarray(0, whole.length - 3));
      await new Promise((r) => setTimeout(r, 20));
      raw.socket.end();
      const err = await withTimeout(handler.ended, 2000, 'closed()');
      assert.match(err?.message ?? '', /closed mid-message \(\d+ bytes of an unfinished frame\)/);
      const client = await AbciClient.connect(server.address);
      t.after(() => client.close());
      assert.deepEqual(await client.request('echo', { message: 'ok' }), { message: 'ok' });
    });

    test('a peer that half-closes after its requests still gets every answer; then a clean close', async (t) => {
      const handler = echoHandler();
      const server = await start(t, transport, { connect: () => handler });
      const raw = await connectRaw(server.address);
      raw.write(Buffer.concat([frame(echo('1')), frame(echo('2')), frame({ flush: {} })]));
      raw.socket.end();
      assert.deepEqual(kindsOf(await raw.responses(3)), ['echo', 'echo', 'flush']);
      await withTimeout(raw.ended, 2000, 'the close');
      assert.equal(await handler.ended, undefined);
    });

    test('a length above maxMessageBytes gets an Exception with the length and the limit, then a close', async (t) => {
      const handler = echoHandler();
      const server = await start(t, transport, { connect: () => handler, maxMessageBytes: 1000 });
      const raw = await connectRaw(server.address);
      raw.write(Buffer.concat([frame(echo('small')), encodeFrame(new Uint8Array(1001))]));
      const rs = await raw.responses(2);
      assert.equal(rs[0].echo?.message, 'small');
      assert.match(rs[1].exception?.error ?? '', /message length 1001 bytes is above the limit of 1000 bytes \(maxMessageBytes\)/);
      await withTimeout(raw.ended, 2000, 'the close');
      assert.match((await handler.ended)?.message ?? '', /above the limit/);
    });

    test('connections beyond maxConnections are closed at once and logged; a freed place is taken again', async (t) => {
      const log = collectLog();
      const server = await start(t, transport, { connect: () => echoHandler(), maxConnections: 2, log: log.log });
      const a = await AbciClient.connect(server.address);
      const b = await AbciClient.connect(server.address);
      t.after(() => b.close());
      await a.request('echo', { message: 'a' });
      await b.request('echo', { message: 'b' });
      const refused = await connectRaw(server.address);
      refused.write(frame(echo('c')));
      await withTimeout(refused.ended, 2000, 'the refused connection to close');
      assert.equal(refused.receivedBytes, 0);
      assert.ok(log.lines.some((l) => l.level === 'warn' && /refused: 2 connections are open \(maxConnections\)/.test(l.msg)));
      assert.equal(server.connections, 2);

      await a.close();
      await withTimeout(
        (async () => {
          while (server.connections > 1) await new Promise((r) => setTimeout(r, 5));
        })(),
        2000,
        'the server to see the close',
      );
      const c = await AbciClient.connect(server.address);
      t.after(() => c.close());
      assert.deepEqual(await c.request('echo', { message: 'c' }), { message: 'c' });
    });

    test('a peer that does not read stops the server reading from it (bounded buffering), then gets everything', async (t) => {
      await peerThatReadsNothing(t, transport, { requests: 64, answerBytes: 1 << 20, async: false });
    });

    test('an async answer that comes while the peer reads nothing lets no further request in; the peer then gets everything', async (t) => {
      // answers smaller than the socket's high-water mark: only the write made as the next request starts
      // fills it, while an answer is pending (server.ts's awaiting{socketFull}, then draining)
      await peerThatReadsNothing(t, transport, { requests: 4096, answerBytes: 8 << 10, async: true });
    });

    test('close() ends the open connections (handlers see why) and stops listening', async (t) => {
      const handler = echoHandler();
      const server = await start(t, transport, { connect: () => handler });
      const client = await AbciClient.connect(server.address);
      await client.request('echo', { message: 'x' });
      await server.close();
      assert.match((await handler.ended)?.message ?? '', /the ABCI server was closed/);
      assert.match((await client.closed)?.message ?? '', /the server closed the connection|connection/);
      assert.equal(server.connections, 0);
      await assert.rejects(AbciClient.connect(server.address), /cannot connect to/);
      if (transport === 'unix') assert.equal(existsSync(server.address.slice('unix://'.length)), false, 'the socket file is still there');
    });
  });
}

describe('listening', () => {
  test('a TCP port in use: AbciListenError naming the address and the cause', async (t) => {
    const first = await listenAbci({ address: 'tcp://127.0.0.1:0', connect: () => echoHandler() });
    t.after(() => first.close());
    await assert.rejects(listenAbci({ address: first.address, connect: () => echoHandler() }), (err: unknown) => {
      assert.ok(err instanceof AbciListenError);
      assert.equal(err.code, 'abci-listen');
      assert.equal(err.message, `cannot listen on ${first.address}: address already in use (EADDRINUSE)`);
      return true;
    });
  });

  test('bad address strings and settings are refused before anything listens', async () => {
    await assert.rejects(listenAbci({ address: 'grpc://127.0.0.1:1', connect: () => echoHandler() }), { name: 'AbciAddressError', code: 'abci-address' });
    await assert.rejects(listenAbci({ address: 'tcp://127.0.0.1:0', maxConnections: 0, connect: () => echoHandler() }), {
      name: 'AbciSettingError',
      message: 'maxConnections must be an integer from 1 to 2147483647, got 0',
    });
  });

  test('a host that does not resolve, an address not of this machine', async () => {
    await assert.rejects(
      listenAbci({ address: 'tcp://no-such-host.invalid:0', connect: () => echoHandler() }),
      /cannot listen on tcp:\/\/no-such-host.invalid:0: host (not found|name lookup failed)/,
    );
    await assert.rejects(
      listenAbci({ address: 'tcp://192.0.2.1:0', connect: () => echoHandler() }),
      /address not available \(no interface of this machine has it\) \(EADDRNOTAVAIL\)/,
    );
  });

  test('unix: the socket file is the owner’s only (mode 0600, a setting), and close() removes it', async (t) => {
    const sock = await tempSocket();
    t.after(() => sock.cleanup());
    const server = await listenAbci({ address: sock.address, connect: () => echoHandler() });
    assert.equal(server.address, sock.address);
    const st = statSync(sock.path);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600);
    await server.close();
    assert.equal(existsSync(sock.path), false);
    const open = await listenAbci({ address: sock.address, unixSocketMode: 0o660, connect: () => echoHandler() });
    assert.equal(statSync(sock.path).mode & 0o777, 0o660);
    await open.close();
  });

  test('unix: a socket file left by a killed process is replaced; a live socket or another file is not touched', async (t) => {
    const sock = await tempSocket();
    t.after(() => sock.cleanup());
    // a real process bound to the path, killed without a chance to clean up
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(sock.path)}, () => console.log('ready'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
      // its own group, killed whole (abci's tests cannot import the kits above it)
      detached: true,
    });
    await withTimeout(new Promise((r) => child.stdout.once('data', r)), 10_000, 'the child to listen');
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.ok(statSync(sock.path).isSocket(), 'the killed process left its socket file');
    const log = collectLog();
    const server = await listenAbci({ address: sock.address, connect: () => echoHandler(), log: log.log });
    assert.ok(log.lines.some((l) => l.level === 'warn' && /removing a stale ABCI unix socket file/.test(l.msg)));
    const client = await AbciClient.connect(sock.address);
    assert.deepEqual(await client.request('echo', { message: 'new' }), { message: 'new' });
    await client.close();

    // a live socket: refused, and the live server keeps working
    await assert.rejects(listenAbci({ address: sock.address, connect: () => echoHandler() }), {
      name: 'AbciListenError',
      message: `cannot listen on ${sock.address}: address already in use (EADDRINUSE): another process is listening on it`,
    });
    const again = await AbciClient.connect(sock.address);
    assert.deepEqual(await again.request('echo', { message: 'live' }), { message: 'live' });
    await again.close();
    await server.close();

    // a regular file is never removed
    writeFileSync(sock.path, 'not a socket');
    await assert.rejects(
      listenAbci({ address: sock.address, connect: () => echoHandler() }),
      /address already in use \(EADDRINUSE\): a file that is not a socket is at that path/,
    );
    assert.ok(statSync(sock.path).isFile());
  });

  test('unix: a folder that does not exist is named in the error', async (t) => {
    const sock = await tempSocket();
    t.after(() => sock.cleanup());
    const address = `unix://${sock.dir}/missing/abci.sock`;
    await assert.rejects(listenAbci({ address, connect: () => echoHandler() }), (err: unknown) => {
      assert.ok(err instanceof AbciListenError);
      assert.ok(err.message.startsWith(`cannot listen on ${address}: `), err.message);
      assert.match(err.message, new RegExp(`the folder ${sock.dir}/missing does not exist$`));
      return true;
    });
  });

  test('a connect() callback that throws costs only that connection', async (t) => {
    const log = collectLog();
    let n = 0;
    const server = await listenAbci({
      address: 'tcp://127.0.0.1:0',
      log: log.log,
      connect: () => {
        if (++n === 1) throw new Error('no handler today');
        return echoHandler();
      },
    });
    t.after(() => server.close());
    const raw = await connectRaw(server.address);
    await withTimeout(raw.ended, 2000, 'the close');
    assert.ok(log.lines.some((l) => l.level === 'error' && /connect\(\) threw/.test(l.msg) && l.fields?.error === 'no handler today'));
    const client = await AbciClient.connect(server.address);
    t.after(() => client.close());
    assert.deepEqual(await client.request('echo', { message: 'second' }), { message: 'second' });
  });

  test('IPv6 loopback: the bound address and the peers are written with brackets', async (t) => {
    let remote = '';
    let server: AbciServer;
    try {
      server = await listenAbci({ address: 'tcp://[::1]:0', connect: (c) => ((remote = c.remote), echoHandler()) });
    } catch (err) {
      return t.skip(`no IPv6 loopback here: ${errorMessage(err)}`);
    }
    t.after(() => server.close());
    assert.match(server.address, /^tcp:\/\/\[::1\]:\d+$/);
    const client = await AbciClient.connect(server.address);
    t.after(() => client.close());
    assert.deepEqual(await client.request('echo', { message: 'v6' }), { message: 'v6' });
    assert.match(remote, /^\[::1\]:\d+$/);
  });

  test('the bound address names the real port of :0', async (t) => {
    const server = await listenAbci({ address: 'tcp://127.0.0.1:0', connect: () => echoHandler() });
    t.after(() => server.close());
    const m = /^tcp:\/\/127\.0\.0\.1:(\d+)$/.exec(server.address);
    assert.ok(m !== null && Number(m[1]) > 0, server.address);
    // the port really is ours: a plain listener cannot take it
    const other = createServer();
    await assert.rejects(
      new Promise((resolve, reject) => other.once('error', reject).listen(Number(m?.[1]), '127.0.0.1', () => resolve(undefined))),
      /EADDRINUSE/,
    );
  });
});

/** The keepalive timer of the server's end of a loopback TCP connection, from /proc/net/tcp: seconds until it fires, or undefined when no keepalive timer runs. */
function serverKeepalive(serverPort: number, peerPort: number): number | undefined {
  const hexPort = (p: number): string => p.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6 || !f[1].endsWith(`:${hexPort(serverPort)}`) || !f[2].endsWith(`:${hexPort(peerPort)}`)) continue;
    // tr:tm->when: timer kind 2 is sk_timer, the keepalive timer of an established socket; `when` is in USER_HZ (100) ticks
    const [tr, when] = f[5].split(':');
    return tr === '02' ? parseInt(when, 16) / 100 : undefined;
  }
  throw new Error(`no /proc/net/tcp row for 127.0.0.1:${serverPort} <- :${peerPort}`);
}

describe(
  'TCP keepalive (a peer whose host vanished without a FIN is found and closed)',
  { skip: process.platform !== 'linux' && 'reads /proc/net/tcp' },
  () => {
    for (const [what, delay, atMost] of [
      ['by default, after DEFAULT_KEEPALIVE_INITIAL_DELAY_MS', undefined, DEFAULT_KEEPALIVE_INITIAL_DELAY_MS / 1000],
      ['keepAliveInitialDelayMs: 3000', 3_000, 3],
    ] as const) {
      test(`accepted connections have a keepalive timer, ${what} of silence`, async (t) => {
        const server = await listenAbci({ address: 'tcp://127.0.0.1:0', keepAliveInitialDelayMs: delay, connect: () => echoHandler() });
        t.after(() => server.close());
        const peer = await connectRaw(server.address);
        t.after(() => peer.close());
        peer.write(frame(echo('x')));
        await peer.responses(1);
        await new Promise((r) => setTimeout(r, 100));
        const left = serverKeepalive(Number(server.address.split(':').pop()), peer.socket.localPort ?? 0);
        assert.ok(left !== undefined, 'a keepalive timer runs');
        assert.ok(left > atMost - 2 && left <= atMost, `fires in ${left} s, expected about ${atMost} s`);
      });
    }

    test('keepAliveInitialDelayMs is checked like the other settings', async () => {
      await assert.rejects(listenAbci({ address: 'tcp://127.0.0.1:0', keepAliveInitialDelayMs: 0, connect: () => echoHandler() }), {
        name: 'AbciSettingError',
      });
    });
  },
);
