// Test helpers for the ABCI socket tests (`@chaind/abci/testing`): a raw peer that writes any bytes (garbage,
// partial frames) and reads responses frame by frame, temporary unix socket paths, a log collector.
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Response } from 'cosmjs-types/tendermint/abci/types';
import { type AbciLog, type AbciLogLevel, DEFAULT_MAX_MESSAGE_BYTES, FrameDecoder, parseAbciAddress } from '../src/index.ts';

/** Rejects when `promise` has not settled within `ms`, naming what was awaited. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A fresh folder for a unix socket; `cleanup` removes it. */
export async function tempSocket(
  name = 'abci.sock',
): Promise<{ readonly dir: string; readonly path: string; readonly address: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'abci-'));
  const path = join(dir, name);
  return { dir, path, address: `unix://${path}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface LogLine {
  readonly level: AbciLogLevel;
  readonly msg: string;
  readonly fields?: Record<string, unknown>;
}

/** A log callback that keeps its lines. */
export function collectLog(): { readonly log: AbciLog; readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { lines, log: (level, msg, fields) => void lines.push({ level, msg, fields }) };
}

/** A raw connection to an ABCI server: writes whatever bytes a test needs, decodes what comes back. */
export interface RawPeer {
  readonly socket: Socket;
  write(bytes: Uint8Array): void;
  /** The next `n` responses not yet taken (default timeout 5 s). */
  responses(n: number, timeoutMs?: number): Promise<Response[]>;
  /** Responses received and not yet taken. */
  readonly available: number;
  /** Settles when the server has closed the connection (after every byte it sent has been read). */
  readonly ended: Promise<void>;
  /** Bytes received so far. */
  readonly receivedBytes: number;
  /** A framing or decoding error in what the server sent, if any. */
  readonly error: Error | undefined;
  close(): void;
}

export async function connectRaw(address: string): Promise<RawPeer> {
  const parsed = parseAbciAddress(address);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = parsed.kind === 'unix' ? createConnection({ path: parsed.path }) : createConnection({ host: parsed.host, port: parsed.port });
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
  const decoder = new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES);
  const got: Response[] = [];
  let taken = 0;
  let receivedBytes = 0;
  let error: Error | undefined;
  const waiters = new Set<() => void>();
  socket.on('error', () => {}); // a reset by the server shows as `ended`
  socket.on('data', (chunk: Buffer) => {
    receivedBytes += chunk.length;
    try {
      for (const frame of decoder.push(chunk)) got.push(Response.decode(frame));
    } catch (err) {
      error ??= err as Error;
    }
    for (const w of waiters) w();
  });
  let closed = false;
  const ended = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      for (const w of waiters) w();
      resolve();
    }),
  );
  return {
    socket,
    write: (bytes) => void socket.write(bytes),
    responses: (n, timeoutMs = 5000) =>
      withTimeout(
        new Promise<Response[]>((resolve, reject) => {
          const check = (): void => {
            if (got.length - taken >= n) {
              waiters.delete(check);
              resolve(got.slice(taken, (taken += n)));
            } else if (closed || error !== undefined) {
              waiters.delete(check);
              reject(new Error(`the connection ended with ${got.length - taken} of ${n} responses${error ? ` (${error.message})` : ''}`));
            }
          };
          waiters.add(check);
          check();
        }),
        timeoutMs,
        `${n} responses`,
      ),
    get available() {
      return got.length - taken;
    },
    ended,
    get receivedBytes() {
      return receivedBytes;
    },
    get error() {
      return error;
    },
    close: () => void socket.destroy(),
  };
}
