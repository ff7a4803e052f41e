// The connection states of the ABCI server (server.ts's ConnectionState) that its process tests
// (packages/abci/test/server.test.ts) do not reach: an async answer settling while the socket is full.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connectRaw, tempSocket } from '@chaind/abci/testing';
import { encodeRequestFrame } from './messages.ts';
import { listenAbci } from './server.ts';

for (const transport of ['tcp', 'unix'] as const) {
  describe(`ABCI server connection over ${transport}`, () => {
    test('an async answer that comes while the peer reads nothing lets no further request in; the peer then gets everything', async (t) => {
      let address = 'tcp://127.0.0.1:0';
      if (transport === 'unix') {
        const sock = await tempSocket();
        t.after(() => sock.cleanup());
        address = sock.address;
      }
      let handled = 0;
      // smaller than the socket's high-water mark, so only the write made as the next request starts fills it
      const body = 'x'.repeat(8 << 10);
      const server = await listenAbci({
        address,
        connect: () => ({
          handle: async (req) => {
            handled++;
            return { echo: { message: `${req.echo?.message}:${body}` } };
          },
        }),
      });
      t.after(() => server.close());
      const raw = await connectRaw(server.address);
      t.after(() => raw.close());
      raw.socket.pause();
      const n = 4096; // 32 MiB of answers: more than the kernel buffers of a loopback connection
      raw.write(Buffer.concat(Array.from({ length: n }, (_, i) => encodeRequestFrame({ echo: { message: String(i) } }))));
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(handled < n / 2, `the server handled ${handled} of ${n} requests of a peer that reads nothing`);
      raw.socket.resume();
      const rs = await raw.responses(n, 20_000);
      assert.deepEqual(
        rs.map((r) => r.echo?.message.split(':')[0]),
        Array.from({ length: n }, (_, i) => String(i)),
      );
      assert.equal(handled, n);
    });
  });
}
