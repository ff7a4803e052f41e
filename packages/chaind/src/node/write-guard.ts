// Answers waiting for clients that do not read them. Node keeps the part of an answer the socket has not
// taken in memory, so a client asking for big answers (blocks, batches of them) and never reading would
// make the node hold every one: a free request that costs megabytes. CometBFT's RPC server bounds an
// answer's write by a timeout (10 s); this does the same per connection, bounds the bytes all
// connections of a server may have waiting (closing the longest-stalled connections first), and tells
// the server to refuse new requests while they are over the bound: a burst of requests is read in one
// turn of the event loop, before any timer could run.
import type { Server, Socket } from 'node:net';
import { DEFAULT_MAX_WRITE_BUFFER_BYTES, DEFAULT_WRITE_TIMEOUT_MS } from '../config/config.ts';

export interface WriteLimits {
  /** A connection whose answer has waited this long for the client to read it is closed; 0: no timeout. */
  readonly writeTimeoutMs: number;
  /** Bytes of answers all connections together may have waiting; past it, the longest-stalled connections are closed. */
  readonly maxBufferBytes: number;
  /** How often waiting answers are looked at (default 100 ms). */
  readonly checkIntervalMs?: number;
}

export const DEFAULT_WRITE_LIMITS: WriteLimits = { writeTimeoutMs: DEFAULT_WRITE_TIMEOUT_MS, maxBufferBytes: DEFAULT_MAX_WRITE_BUFFER_BYTES };

/** What a request refused while the guard is busy is told. */
export const WRITES_BUSY = 'the node is busy: answers wait for clients that do not read them, more than the write buffer limit allows; retry shortly';

const CHECK_INTERVAL_MS = 100;

export interface WriteGuard {
  /** Whether the answers waiting now take more than the limit: a request is refused rather than answered. */
  busy(): boolean;
  stop(): void;
}

/** A connection closed by the guard: why, and how many bytes it had waiting. */
export type WriteGuardClose = (reason: 'write timeout' | 'write buffer limit', bytes: number, remote: string) => void;

/** Watches every connection `server` accepts from now on; `closed` hears of each one it closes. */
export function guardWrites(server: Server, limits: WriteLimits, closed: WriteGuardClose): WriteGuard {
  checkLimits(limits);
  /** Socket → when its waiting bytes were last seen at zero (undefined: none waiting now). */
  const stalledSince = new Map<Socket, number | undefined>();
  server.on('connection', (socket: Socket) => {
    stalledSince.set(socket, undefined);
    socket.once('close', () => stalledSince.delete(socket));
  });
  const close = (socket: Socket, reason: Parameters<WriteGuardClose>[0]): void => {
    const bytes = socket.writableLength;
    const remote = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? ''}`;
    stalledSince.delete(socket);
    socket.destroy();
    closed(reason, bytes, remote);
  };
  let summedAt = -Infinity;
  let summed = 0;
  const check = (): void => {
    const now = performance.now();
    let total = 0;
    const waiting: { socket: Socket; since: number }[] = [];
    for (const [socket, since] of stalledSince) {
      const n = socket.writableLength;
      if (n === 0) {
        if (since !== undefined) stalledSince.set(socket, undefined);
        continue;
      }
      const from = since ?? now;
      if (since === undefined) stalledSince.set(socket, now);
      if (limits.writeTimeoutMs > 0 && now - from >= limits.writeTimeoutMs) {
        close(socket, 'write timeout');
        continue;
      }
      total += n;
      waiting.push({ socket, since: from });
    }
    if (total > limits.maxBufferBytes) {
      waiting.sort((a, b) => a.since - b.since);
      for (const w of waiting) {
        if (total <= limits.maxBufferBytes) break;
        total -= w.socket.writableLength;
        close(w.socket, 'write buffer limit');
      }
    }
  };
  const timer = setInterval(check, limits.checkIntervalMs ?? CHECK_INTERVAL_MS);
  timer.unref();
  server.once('close', () => clearInterval(timer));
  return {
    busy(): boolean {
      // summed at most once a millisecond: a flood of small requests does not walk every connection each time
      const now = performance.now();
      if (now - summedAt >= 1) {
        summed = 0;
        for (const socket of stalledSince.keys()) summed += socket.writableLength;
        summedAt = now;
      }
      return summed > limits.maxBufferBytes;
    },
    stop: () => clearInterval(timer),
  };
}

function checkLimits(l: WriteLimits): void {
  if (!Number.isFinite(l.writeTimeoutMs) || l.writeTimeoutMs < 0) throw new RangeError(`writeTimeoutMs must be a non-negative number, got ${l.writeTimeoutMs}`);
  if (!Number.isSafeInteger(l.maxBufferBytes) || l.maxBufferBytes < 1)
    throw new RangeError(`maxBufferBytes must be a positive integer, got ${l.maxBufferBytes}`);
  const every = l.checkIntervalMs ?? CHECK_INTERVAL_MS;
  if (!Number.isSafeInteger(every) || every < 1) throw new RangeError(`checkIntervalMs must be a positive integer, got ${every}`);
}
