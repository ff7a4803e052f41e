// The ABCI socket server: the application's side of CometBFT's socket protocol (CometBFT dials, the app
// listens), with the semantics of CometBFT's `abci/server/socket_server.go` where they apply.
import { existsSync } from 'node:fs';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { Request, type Response } from 'cosmjs-types/tendermint/abci/types';
import { type AbciAddress, formatAbciAddress, parseAbciAddress } from './address.ts';
import { AbciConnectionError, AbciFramingError, AbciListenError, AbciProtocolError, checkIntSetting } from './errors.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, FrameDecoder } from './framing.ts';
import { type AbciMethod, encodeResponseFrame, requestMethod, responseKinds } from './messages.ts';
import { errorMessage, errnoCode } from '@chaind/errors';

export type AbciLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type AbciLog = (level: AbciLogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** Further connections are closed at once (CometBFT opens four). */
export const DEFAULT_MAX_CONNECTIONS = 16;
/** Only the owner may connect to a unix socket (Linux checks write permission on the socket file). */
export const DEFAULT_UNIX_SOCKET_MODE = 0o600;
/**
 * Silence on a TCP connection before keepalive probes start (Go's default, which CometBFT's side uses): a
 * peer whose host vanished without a FIN is closed about 10 s later (libuv sends 10 probes 1 s apart).
 */
export const DEFAULT_KEEPALIVE_INITIAL_DELAY_MS = 15_000;

export interface AbciServerOptions {
  /** `tcp://host:port`, `host:port` or `unix://path` (see parseAbciAddress). Port 0 picks a free port. */
  address: string;
  /** Largest request accepted, in bytes; a larger length prefix gets an exception and the connection closes. Default DEFAULT_MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** Connections served at once; further ones are closed at once and logged. Default DEFAULT_MAX_CONNECTIONS. */
  maxConnections?: number;
  /** File mode of a unix socket, set right after binding. Default DEFAULT_UNIX_SOCKET_MODE. */
  unixSocketMode?: number;
  /** TCP keepalive on every accepted connection, probing after this much silence (ms, at least 1000). Default DEFAULT_KEEPALIVE_INITIAL_DELAY_MS. */
  keepAliveInitialDelayMs?: number;
  /** One handler per accepted connection. */
  connect(conn: AbciConnectionInfo): AbciConnectionHandler;
  log?: AbciLog;
}

export interface AbciConnectionInfo {
  /** 1, 2, 3… in order of acceptance. */
  readonly id: number;
  /** `host:port` of the peer over TCP; the server's address over a unix socket. */
  readonly remote: string;
  /** Ends this connection at once, unanswered requests dropped (e.g. a newer connection replaces it); the handler sees closed(reason). */
  close(reason: Error): void;
}

export interface AbciConnectionHandler {
  /**
   * Answers one request (never Flush: the server answers Flush itself, in its place in the order). Requests
   * of a connection are handled one at a time, in order: an async answer is awaited before the next request.
   * Throwing or rejecting sends ResponseException{error: message} and then closes the connection; so does
   * answering with `{exception}`.
   */
  handle(req: Request): Response | Promise<Response>;
  /** The connection ended; `err` says why unless the peer closed it cleanly between messages. */
  closed?(err?: Error): void;
}

export interface AbciServer {
  /** The bound address, with the real port when 0 was asked for. */
  readonly address: string;
  /** Connections open now. */
  readonly connections: number;
  /** Stops listening, destroys the connections (their handlers see closed(err)) and removes the unix socket file. */
  close(): Promise<void>;
}

const FLUSH_FRAME = encodeResponseFrame({ flush: {} });
const NO_BYTES = new Uint8Array(0);

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

function isThenable(value: unknown): value is PromiseLike<Response> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Where a connection's requests are, one value (the only writers: #process, #settled, #socketFull, #onDrain, #close):
 * - `reading`: the queued requests are handled in order; more are read once all are answered.
 *   A request with an async answer: → `awaiting`. The socket full: → `draining`.
 * - `awaiting` a handler's async answer, nothing read meanwhile; `socketFull` when the answers written as it
 *   started filled the socket. The answer: → `draining` if the socket is still full, else `reading`.
 * - `draining`: the socket is full; nothing read or handled until the peer reads ('drain' → `reading`).
 * - `closed`, for good: no further request is handled (an exception was sent, every request of a peer that
 *   half-closed was answered, or the connection was destroyed); an answer that comes later is dropped.
 */
type ConnectionState =
  | { readonly kind: 'reading' }
  | { readonly kind: 'awaiting'; readonly socketFull: boolean }
  | { readonly kind: 'draining' }
  | { readonly kind: 'closed' };

/**
 * The peer's side: `open`; `ended` when it half-closed (the connection closes once its requests are
 * answered); `broken` by a framing error after the frames queued (sent once those are answered; any
 * further input dropped).
 */
type PeerInput = { readonly kind: 'open' } | { readonly kind: 'ended' } | { readonly kind: 'broken'; readonly error: Error };

/** One accepted connection: requests decoded in arrival order, answered one at a time, answers batched per read. */
class ServerConnection {
  readonly closed: Promise<void>;
  readonly #socket: Socket;
  readonly #info: AbciConnectionInfo;
  readonly #handler: AbciConnectionHandler;
  readonly #log: AbciLog;
  readonly #decoder: FrameDecoder;
  #frames: Uint8Array[] = [];
  #next = 0;
  #state: ConnectionState = { kind: 'reading' };
  #input: PeerInput = { kind: 'open' };
  #batch: Uint8Array[] = [];
  #batchBytes = 0;
  /** Why the connection ended: the first cause wins (undefined: the peer closed it cleanly between messages). */
  #reason: Error | undefined;

  constructor(socket: Socket, info: AbciConnectionInfo, handler: AbciConnectionHandler, maxMessageBytes: number, log: AbciLog) {
    this.#socket = socket;
    this.#info = info;
    this.#handler = handler;
    this.#log = log;
    this.#decoder = new FrameDecoder(maxMessageBytes);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => this.#onEnd());
    socket.on('drain', () => this.#onDrain());
    socket.on('error', (err) => {
      this.#reason ??= new AbciConnectionError(`connection error: ${err.message}`, { cause: err });
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.#close();
        const reason = this.#reason;
        this.#log(reason ? 'warn' : 'info', 'ABCI connection closed', { id: info.id, remote: info.remote, error: reason?.message });
        try {
          this.#handler.closed?.(reason);
        } catch (err) {
          this.#log('error', 'ABCI connection handler: closed() threw', { id: info.id, error: errorMessage(err) });
        }
        resolve();
      });
    });
  }

  /** Ends the connection at once (server close). */
  destroy(reason: Error): void {
    this.#close(reason);
    this.#socket.destroy();
  }

  /** → `closed`, from any state; `reason` says why unless an earlier cause did. */
  #close(reason?: Error): void {
    this.#reason ??= reason;
    this.#state = { kind: 'closed' };
  }

  #onData(chunk: Buffer): void {
    if (this.#state.kind === 'closed' || this.#input.kind === 'broken') return; // input after an error is dropped
    try {
      this.#decoder.push(chunk, this.#frames);
    } catch (err) {
      this.#input = { kind: 'broken', error: asError(err) };
    }
    this.#process();
  }

  #onEnd(): void {
    if (this.#state.kind === 'closed') return;
    if (this.#input.kind !== 'broken') {
      const held = this.#decoder.buffered;
      if (held > 0) {
        this.#close(new AbciFramingError(`the connection was closed mid-message (${held} bytes of an unfinished frame)`));
        this.#socket.destroy();
        return;
      }
      this.#input = { kind: 'ended' };
    }
    this.#process(); // answers what is queued, then ends our side
  }

  /** The socket has room again: `draining` → `reading`; an `awaiting` connection forgets that it was full. */
  #onDrain(): void {
    if (this.#state.kind === 'awaiting') this.#state = { kind: 'awaiting', socketFull: false };
    else if (this.#state.kind === 'draining') {
      this.#state = { kind: 'reading' };
      this.#process();
    }
  }

  /** A write found the socket full: reading pauses until 'drain' (`reading` → `draining`). */
  #socketFull(): void {
    if (this.#state.kind === 'reading') this.#state = { kind: 'draining' };
    else if (this.#state.kind === 'awaiting') this.#state = { kind: 'awaiting', socketFull: true };
    this.#socket.pause();
  }

  /** An async answer settled: `awaiting` → `draining` or `reading`; false when the connection closed meanwhile. */
  #settled(): boolean {
    if (this.#state.kind !== 'awaiting') return false;
    this.#state = this.#state.socketFull ? { kind: 'draining' } : { kind: 'reading' };
    return true;
  }

  #process(): void {
    while (this.#state.kind === 'reading') {
      if (this.#next === this.#frames.length) {
        this.#frames = [];
        this.#next = 0;
        if (this.#input.kind === 'broken') return this.#fail(this.#input.error);
        if (!this.#writeBatch()) return;
        if (this.#input.kind === 'ended') {
          this.#close();
          this.#socket.end();
        } else this.#socket.resume();
        return;
      }
      const frame = this.#frames[this.#next];
      this.#frames[this.#next++] = NO_BYTES; // the request's bytes can go once decoded
      let method: AbciMethod;
      let req: Request;
      try {
        req = Request.decode(frame);
        method = requestMethod(req);
      } catch (err) {
        if (err instanceof AbciProtocolError) return this.#fail(err);
        return this.#fail(new AbciProtocolError(`cannot decode the request (${frame.length} bytes): ${errorMessage(err)}`));
      }
      if (method === 'flush') {
        this.#queue(FLUSH_FRAME);
        this.#writeBatch();
        continue;
      }
      let result: Response | PromiseLike<Response>;
      try {
        result = this.#handler.handle(req);
      } catch (err) {
        return this.#fail(asError(err));
      }
      if (isThenable(result)) {
        this.#state = { kind: 'awaiting', socketFull: false };
        this.#writeBatch(); // what is answered goes out while this one is computed
        this.#socket.pause(); // and nothing more is read meanwhile: a bounded queue
        Promise.resolve(result).then(
          (res) => {
            if (this.#settled() && this.#answer(method, res)) this.#process();
          },
          (err: unknown) => {
            this.#settled();
            this.#fail(asError(err));
          },
        );
        return;
      }
      if (!this.#answer(method, result)) return;
    }
  }

  /** Queues the handler's answer; false when it was not a usable answer (an exception was sent instead). */
  #answer(method: AbciMethod, res: Response): boolean {
    if (typeof res !== 'object' || res === null) {
      this.#fail(new AbciProtocolError(`the handler answered the request ${method} with ${res === null ? 'null' : typeof res}, not a Response`));
      return false;
    }
    const kinds = responseKinds(res);
    if (kinds.length === 1 && kinds[0] === 'exception') {
      const text = res.exception?.error ?? '';
      this.#fail(new AbciConnectionError(`the handler answered the request ${method} with an exception: ${text}`), text);
      return false;
    }
    if (kinds.length !== 1 || kinds[0] !== method) {
      const got = kinds.length === 0 ? 'an empty Response' : kinds.join(' + ');
      this.#fail(new AbciProtocolError(`the handler answered the request ${method} with ${got}`));
      return false;
    }
    let frame: Uint8Array;
    try {
      frame = encodeResponseFrame(res);
    } catch (err) {
      this.#fail(new AbciProtocolError(`cannot encode the handler's ${method} response: ${errorMessage(err)}`));
      return false;
    }
    this.#queue(frame);
    if (this.#batchBytes >= this.#socket.writableHighWaterMark) this.#writeBatch();
    return true;
  }

  #queue(frame: Uint8Array): void {
    this.#batch.push(frame);
    this.#batchBytes += frame.length;
  }

  /** One socket write for every answer queued since the last one; false when it filled the socket (see #socketFull). */
  #writeBatch(): boolean {
    const batch = this.#batch;
    if (batch.length === 0 || this.#socket.destroyed) return true;
    this.#batch = [];
    this.#batchBytes = 0;
    let ok = true;
    if (batch.length === 1) ok = this.#socket.write(batch[0]);
    else {
      this.#socket.cork();
      for (const frame of batch) ok = this.#socket.write(frame);
      this.#socket.uncork();
    }
    if (!ok) this.#socketFull();
    return ok;
  }

  /** Sends ResponseException (after the answers already queued), then closes the connection. */
  #fail(reason: Error, text: string = reason.message): void {
    if (this.#state.kind === 'closed') return;
    this.#close(reason);
    this.#log('error', 'ABCI connection: sending an exception and closing', { id: this.#info.id, error: text });
    this.#queue(encodeResponseFrame({ exception: { error: text } }));
    this.#writeBatch();
    // keep reading (and dropping) so that closing with unread input does not reset the connection
    this.#socket.resume();
    this.#socket.end(() => this.#socket.destroy());
  }
}

const LISTEN_CAUSES: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available (no interface of this machine has it)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
};

function listenError(address: string, err: unknown, detail?: string): AbciListenError {
  const code = errnoCode(err);
  const cause = (code !== undefined && LISTEN_CAUSES[code]) || errorMessage(err);
  const text = `cannot listen on ${address}: ${cause}${code !== undefined ? ` (${code})` : ''}${detail !== undefined ? `: ${detail}` : ''}`;
  return new AbciListenError(text, { cause: err });
}

function listenOnce(server: Server, address: AbciAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    if (address.kind === 'unix') server.listen({ path: address.path });
    else server.listen({ host: address.host, port: address.port });
  });
}

/** 'stale': a socket file nobody listens on (left by a killed process); 'live': someone listens; 'other': not a socket. */
async function probeUnixPath(path: string): Promise<'stale' | 'live' | 'other'> {
  try {
    if (!(await lstat(path)).isSocket()) return 'other';
  } catch {
    return 'other';
  }
  return new Promise((resolve) => {
    const probe = createConnection({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve('live');
    });
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'stale' : 'live'));
  });
}

/**
 * Binds the address. A unix socket file left by a process that died is replaced (connecting to it is
 * refused); CometBFT's Go server fails with "address already in use" there, which after a crash needs a
 * hand to remove it. A live socket or any other file at the path is never touched.
 */
async function bind(server: Server, address: AbciAddress, text: string, log: AbciLog): Promise<void> {
  try {
    await listenOnce(server, address);
    return;
  } catch (err) {
    if (address.kind === 'tcp') throw listenError(text, err);
    const code = errnoCode(err);
    if (code !== 'EADDRINUSE') {
      const folder = dirname(address.path);
      throw listenError(text, err, existsSync(folder) ? undefined : `the folder ${folder} does not exist`);
    }
    const state = await probeUnixPath(address.path);
    if (state === 'live') throw listenError(text, err, 'another process is listening on it');
    if (state === 'other') throw listenError(text, err, 'a file that is not a socket is at that path');
  }
  log('warn', 'removing a stale ABCI unix socket file (nothing listens on it)', { path: address.path });
  try {
    await unlink(address.path);
    await listenOnce(server, address);
  } catch (err) {
    throw listenError(text, err);
  }
}

/** Listens for ABCI connections; rejects with AbciAddressError or AbciListenError. */
export async function listenAbci(options: AbciServerOptions): Promise<AbciServer> {
  const address = parseAbciAddress(options.address);
  const maxMessageBytes = checkIntSetting('maxMessageBytes', options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, 1, DEFAULT_MAX_MESSAGE_BYTES);
  const maxConnections = checkIntSetting('maxConnections', options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, 1, 2 ** 31 - 1);
  const unixSocketMode = checkIntSetting('unixSocketMode', options.unixSocketMode ?? DEFAULT_UNIX_SOCKET_MODE, 0, 0o777);
  const keepAliveInitialDelay = checkIntSetting(
    'keepAliveInitialDelayMs',
    options.keepAliveInitialDelayMs ?? DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
    1000,
    2 ** 31 - 1,
  );
  const userLog = options.log;
  // a throwing log callback must not break a connection's event handlers
  const log: AbciLog = (level, msg, fields) => {
    try {
      userLog?.(level, msg, fields);
    } catch {
      /* ignored */
    }
  };
  const text = formatAbciAddress(address);

  // keepalive: without it the socket of a peer whose host is gone (no FIN) stays open for good, holding a
  // place of maxConnections (unix sockets ignore it: the kernel sees the peer go)
  const server = createServer({ allowHalfOpen: true, noDelay: true, keepAlive: true, keepAliveInitialDelay });
  server.maxConnections = maxConnections;
  await bind(server, address, text, log);
  if (address.kind === 'unix') {
    try {
      await chmod(address.path, unixSocketMode);
    } catch (err) {
      await new Promise((resolve) => server.close(resolve));
      throw listenError(text, err, 'cannot set the socket file mode');
    }
  }
  let bound = text;
  if (address.kind === 'tcp') {
    const info = server.address() as AddressInfo;
    bound = formatAbciAddress({ kind: 'tcp', host: info.address, port: info.port });
  }

  const connections = new Set<ServerConnection>();
  let nextId = 1;
  server.on('connection', (socket: Socket) => {
    const id = nextId++;
    const remote =
      address.kind === 'unix'
        ? bound
        : socket.remoteFamily === 'IPv6'
          ? `[${socket.remoteAddress}]:${socket.remotePort}`
          : `${socket.remoteAddress}:${socket.remotePort}`;
    // the handler may close its connection, which exists only once the handler does
    const made: { conn?: ServerConnection } = {};
    const info: AbciConnectionInfo = { id, remote, close: (reason) => made.conn?.destroy(reason) };
    let handler: AbciConnectionHandler;
    try {
      handler = options.connect(info);
    } catch (err) {
      log('error', 'ABCI connect() threw; connection closed', { id, remote, error: errorMessage(err) });
      socket.destroy();
      return;
    }
    log('info', 'ABCI connection accepted', { id, remote });
    const conn = new ServerConnection(socket, info, handler, maxMessageBytes, log);
    made.conn = conn;
    connections.add(conn);
    void conn.closed.then(() => connections.delete(conn));
  });
  server.on('drop', (data) => {
    log('warn', `ABCI connection refused: ${maxConnections} connections are open (maxConnections)`, {
      remote: data?.remoteAddress !== undefined ? `${data.remoteAddress}:${data.remotePort}` : bound,
    });
  });
  server.on('error', (err) => log('error', 'ABCI server error', { address: bound, error: err.message }));
  log('info', 'ABCI server listening', { address: bound });

  let closing: Promise<void> | undefined;
  return {
    address: bound,
    get connections(): number {
      return connections.size;
    },
    close(): Promise<void> {
      closing ??= (async () => {
        // closing the listener removes a unix socket file (libuv unlinks the path it bound)
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        const open = [...connections];
        for (const conn of open) conn.destroy(new AbciConnectionError('the ABCI server was closed'));
        await Promise.all([stopped, ...open.map((c) => c.closed)]);
        log('info', 'ABCI server closed', { address: bound });
      })();
      return closing;
    },
  };
}
