// Loopback ports for tests that must name a port before the process that listens on it starts.
import { createServer, type AddressInfo } from 'node:net';

/** A port free on 127.0.0.1 just now (the OS may hand it out again; take it soon). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}
