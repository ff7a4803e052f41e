// An ABCI socket client, modelled on CometBFT's `abci/client/socket_client.go`: requests are pipelined,
// responses are matched to them in order, and anything out of order or an exception stops the client.
import { createConnection, type Socket } from 'node:net';
import { type Request, Response } from 'cosmjs-types/tendermint/abci/types';
import { formatAbciAddress, parseAbciAddress } from './address.ts';
import { AbciClientError, checkIntSetting } from './errors.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, FrameDecoder } from './framing.ts';
import { type AbciMethod, encodeRequestFrame, requestMethod, responseKinds } from './messages.ts';
import { errorMessage } from '@chaind/errors';

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface AbciClientOptions {
  /** Largest response accepted, in bytes. Default DEFAULT_MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** Give up connecting after this long. Default DEFAULT_CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

interface Pending {
  readonly method: AbciMethod;
  resolve(res: Response): void;
  reject(err: Error): void;
}

export class AbciClient {
  /** The server's address, canonical form. */
  readonly address: string;
  /** Settles when the connection has closed: undefined after close(), otherwise the error that stopped the client. */
  readonly closed: Promise<Error | undefined>;
  readonly #socket: Socket;
  readonly #decoder: FrameDecoder;
  #pending: Pending[] = [];
  #head = 0;
  #stopped: Error | undefined;
  #closedByUs = false;
  #corked = false;

  private constructor(socket: Socket, address: string, maxMessageBytes: number) {
    this.address = address;
    this.#socket = socket;
    this.#decoder = new FrameDecoder(maxMessageBytes);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => {
      const n = this.pending;
      this.#stop(new AbciClientError(n > 0 ? `the server closed the connection with ${n} calls pending` : 'the server closed the connection'));
    });
    socket.on('error', (err) => this.#stop(new AbciClientError(`connection error: ${err.message}`, { cause: err })));
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.#stop(new AbciClientError('the connection closed'));
        resolve(this.#closedByUs ? undefined : this.#stopped);
      });
    });
  }

  /** Connects to `tcp://host:port`, `host:port` or `unix://path`; AbciClientError when it cannot. */
  static async connect(address: string, options: AbciClientOptions = {}): Promise<AbciClient> {
    const parsed = parseAbciAddress(address);
    const maxMessageBytes = checkIntSetting('maxMessageBytes', options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, 1, DEFAULT_MAX_MESSAGE_BYTES);
    const timeoutMs = checkIntSetting('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, 1, 2 ** 31 - 1);
    const text = formatAbciAddress(parsed);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = parsed.kind === 'unix' ? createConnection({ path: parsed.path }) : createConnection({ host: parsed.host, port: parsed.port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new AbciClientError(`cannot connect to ${text}: no connection within ${timeoutMs} ms (connectTimeoutMs)`));
      }, timeoutMs);
      const onError = (err: Error): void => {
        clearTimeout(timer);
        reject(new AbciClientError(`cannot connect to ${text}: ${err.message}`, { cause: err }));
      };
      s.once('error', onError);
      s.once('connect', () => {
        clearTimeout(timer);
        s.off('error', onError);
        resolve(s);
      });
    });
    return new AbciClient(socket, text, maxMessageBytes);
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.#pending.length - this.#head;
  }

  /**
   * Sends a request without a Flush and resolves with its response. Requests sent in the same tick go out
   * in one write. A server may hold its answers until the next Flush (CometBFT's Go server does).
   */
  send(req: Request): Promise<Response> {
    if (this.#stopped !== undefined) return Promise.reject(this.#stopped);
    let method: AbciMethod;
    let frame: Uint8Array;
    try {
      method = requestMethod(req);
      frame = encodeRequestFrame(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ method, resolve, reject });
      if (!this.#corked) {
        this.#corked = true;
        this.#socket.cork();
        process.nextTick(() => {
          this.#corked = false;
          this.#socket.uncork();
        });
      }
      this.#socket.write(frame);
    });
  }

  /** Sends Flush; resolves when its ResponseFlush arrives (every earlier request has been answered by then). */
  flush(): Promise<void> {
    return this.send({ flush: {} }).then(() => undefined);
  }

  /** Sends the request and a Flush (CometBFT's synchronous call); resolves with the request's response. */
  async call(req: Request): Promise<Response> {
    const [res] = await Promise.all([this.send(req), this.flush()]);
    return res;
  }

  /** call() for one method: `client.request('info', {version: '0.38.17', …})` resolves with the ResponseInfo. */
  async request<M extends AbciMethod>(method: M, value: NonNullable<Request[M]>): Promise<NonNullable<Response[M]>> {
    const res = await this.call({ [method]: value } as Request);
    return res[method] as NonNullable<Response[M]>;
  }

  /** Closes the connection; calls still pending are rejected. */
  async close(): Promise<void> {
    if (this.#stopped === undefined) {
      this.#closedByUs = true;
      this.#stop(new AbciClientError('the client was closed'));
    }
    await this.closed;
  }

  #onData(chunk: Buffer): void {
    if (this.#stopped !== undefined) return;
    let frames: Uint8Array[];
    try {
      frames = this.#decoder.push(chunk);
    } catch (err) {
      return this.#stop(new AbciClientError(`bad frame from the server: ${errorMessage(err)}`, { cause: err }));
    }
    for (const frame of frames) {
      let res: Response;
      try {
        res = Response.decode(frame);
      } catch (err) {
        return this.#stop(new AbciClientError(`cannot decode a response (${frame.length} bytes): ${errorMessage(err)}`, { cause: err }));
      }
      const kinds = responseKinds(res);
      if (kinds.length === 1 && kinds[0] === 'exception') {
        return this.#stop(new AbciClientError(`the server sent an exception: ${res.exception?.error ?? ''}`));
      }
      const got = kinds.length === 0 ? '(none)' : kinds.join(' + ');
      const head = this.#pending[this.#head];
      if (head === undefined) return this.#stop(new AbciClientError(`unexpected response ${got} when no call was made`));
      if (kinds.length !== 1 || kinds[0] !== head.method) {
        return this.#stop(new AbciClientError(`unexpected response ${got} to the request ${head.method}`));
      }
      this.#head++;
      // answered calls leave the queue in bulk, so a queue that never empties does not grow
      if (this.#head === this.#pending.length || this.#head >= 1024) {
        this.#pending = this.#pending.slice(this.#head);
        this.#head = 0;
      }
      head.resolve(res);
    }
  }

  /** Stops for good: every pending call is rejected with `err`, and the connection is destroyed. */
  #stop(err: Error): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = err;
    const pending = this.#pending.slice(this.#head);
    this.#pending = [];
    this.#head = 0;
    for (const p of pending) p.reject(err);
    this.#socket.destroy();
  }
}
