// A proxy on the ABCI socket between a CometBFT and its chaind: requests pass untouched, responses are read
// frame by frame and `rewrite` may replace one. With it a real validator misbehaves as a proposer (its
// PrepareProposal answer changed on the way to its CometBFT) without a test-only path in chaind.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Response } from 'cosmjs-types/tendermint/abci/types';
import { encodeFrame, FrameDecoder } from '@chaind/abci';

export interface AbciProxy {
  /** tcp://127.0.0.1:<port>: CometBFT's proxy_app */
  readonly address: string;
  close(): Promise<void>;
}

/** Listens on loopback; each connection is forwarded to chaind's `target` (`unix:///path` or `tcp://host:port`). */
export async function abciProxy(target: string, rewrite: (r: Response) => Response | undefined): Promise<AbciProxy> {
  const sockets = new Set<Socket>();
  const dial = (): Socket => {
    if (target.startsWith('unix://')) return connect({ path: target.slice('unix://'.length) });
    const u = new URL(target.replace('tcp://', 'http://'));
    return connect({ host: u.hostname, port: Number(u.port) });
  };
  const server: Server = createServer((comet) => {
    const app = dial();
    sockets.add(comet).add(app);
    const frames = new FrameDecoder(64 * 1024 * 1024);
    comet.on('data', (d: Buffer) => app.write(d));
    app.on('data', (d: Buffer) => {
      for (const f of frames.push(d)) {
        const changed = rewrite(Response.decode(f));
        comet.write(encodeFrame(changed === undefined ? f : Response.encode(changed).finish()));
      }
    });
    const end = (): void => {
      comet.destroy();
      app.destroy();
    };
    comet.on('close', end).on('error', end);
    app.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
