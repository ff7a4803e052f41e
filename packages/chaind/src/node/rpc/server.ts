// The node's CometBFT-compatible JSON-RPC server over node:http (CometBFT rpc/jsonrpc/server):
//   POST /           a JSON-RPC 2.0 request or batch (an empty body lists the endpoints, as does GET /)
//   GET  /<method>   the URI form, `/block?height=5`, answered with id -1
// Bodies are bounded (max_body_bytes); every failure becomes a JSON-RPC error, never a crash.
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nopLogger, type Logger } from '@chaind/sdk/app';
import type { GenesisDoc } from '@chaind/sdk/genesis';
import type { BlockProducer } from '../driver.ts';
import { DEFAULT_SEARCH_LIMITS, type RpcApp, type RpcEnv, type RpcMempool, type RpcNodeInfo, type SearchLimits } from './env.ts';
import { internalError, invalidRequest, METHOD_NOT_FOUND, RpcError } from './errors.ts';
import { errorResponse, handleBody, handleURI, URI_ID, type Reply } from './jsonrpc.ts';
import { ROUTES } from './methods/index.ts';
import { DEFAULT_WRITE_LIMITS, guardWrites, WRITES_BUSY, type WriteLimits } from '../write-guard.ts';
import { errorMessage } from '@chaind/errors';

/** CometBFT's rpc.max_body_bytes default. */
export const DEFAULT_MAX_BODY_BYTES = 1_000_000;
/** CometBFT's rpc.timeout_broadcast_tx_commit default. */
export const DEFAULT_BROADCAST_TX_COMMIT_TIMEOUT_MS = 10_000;
/** CometBFT's rpc.max_request_batch_size default. */
export const DEFAULT_MAX_REQUEST_BATCH_SIZE = 10;
/** CometBFT's rpc.max_open_connections default. */
export const DEFAULT_MAX_OPEN_CONNECTIONS = 900;
/** CometBFT's server ReadTimeout: a whole request (headers and body) must arrive within it. */
const READ_TIMEOUT_MS = 10_000;
/** Host header values always accepted besides the listen host (ports are not compared). */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
const BROADCAST_METHODS: ReadonlySet<string> = new Set(['broadcast_tx_sync', 'broadcast_tx_async', 'broadcast_tx_commit']);
/** How long close() lets in-flight answers finish before dropping their connections. */
const CLOSE_GRACE_MS = 1_000;

export interface RpcServerOptions {
  readonly host: string;
  /** 0 picks a free port (see `url`). */
  readonly port: number;
  /** The solo driver: it makes the blocks this server shows. */
  readonly driver: BlockProducer;
  readonly app: RpcApp;
  readonly mempool: RpcMempool;
  readonly genesis: GenesisDoc;
  readonly nodeInfo: RpcNodeInfo;
  readonly logger?: Logger;
  /** Largest request body accepted (default 1 MB, CometBFT's max_body_bytes). */
  readonly maxBodyBytes?: number;
  /** How long broadcast_tx_commit waits for the block (default 10 s). */
  readonly broadcastTxCommitTimeoutMs?: number;
  /** Most connections open at once (default 900, CometBFT's max_open_connections); 0: no limit. */
  readonly maxOpenConnections?: number;
  /** Most requests in one batch (default 10, CometBFT's max_request_batch_size); 0: no limit. */
  readonly maxRequestBatchSize?: number;
  /**
   * Host header values accepted (no port; "*" any), besides the listen host: a web page whose name
   * was rebound to 127.0.0.1 sends its own name. Default DEFAULT_ALLOWED_HOSTS.
   */
  readonly allowedHosts?: readonly string[];
  /** Serve broadcast_tx_* in the GET URI form, which any web page can send (default false). */
  readonly broadcastViaGet?: boolean;
  /** tx_search / block_search bounds (defaults in env.ts). */
  readonly search?: Partial<SearchLimits>;
  /** Unread answers: how long one may wait for its client, and how many bytes all may take (default DEFAULT_WRITE_LIMITS). */
  readonly writeLimits?: WriteLimits;
}

export interface RpcServer {
  /** `http://host:port`, the port the server actually listens on. */
  readonly url: string;
  /** Ends pending broadcast_tx_commit waits, stops listening and closes the connections. Idempotent. */
  close(): Promise<void>;
}

const TOO_LARGE = Symbol('too large');

/** The request body, or TOO_LARGE past `limit` bytes (the rest is then discarded as it arrives, never kept). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (c: Buffer) => {
      if (settled) return;
      size += c.length;
      if (size <= limit) return void chunks.push(c);
      settled = true;
      chunks.length = 0;
      resolve(TOO_LARGE);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!settled) reject(e);
      settled = true;
    });
    req.on('close', () => {
      if (!settled) reject(new Error('the client closed the connection before sending the whole request'));
      settled = true;
    });
  });
}

/** JSON with 64-bit values as strings, should one ever slip through an encoder (cmtjson's rule). */
const replacer = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

function send(res: ServerResponse, reply: Reply, o: { pretty?: boolean; close?: boolean } = {}): void {
  const text = reply.body === undefined ? '' : JSON.stringify(reply.body, replacer, o.pretty === true ? 2 : undefined);
  const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(text) };
  if (text !== '') headers['content-type'] = 'application/json';
  // past the body limit the rest of the body is not read: this connection cannot carry another request
  if (o.close === true) headers.connection = 'close';
  res.writeHead(reply.status, headers);
  res.end(text);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);

/** `writeListOfEndpoints`: an HTML page of the routes, for a browser pointed at the node. */
function endpointList(res: ServerResponse, hostHeader: string): void {
  // the Host header is the client's text: escaped like everything else on the page
  const host = escapeHtml(hostHeader);
  const noArgs: string[] = [];
  const withArgs: string[] = [];
  for (const [name, m] of [...ROUTES].sort(([a], [b]) => a.localeCompare(b))) {
    const names = Object.keys(m.params);
    if (names.length === 0) noArgs.push(`<a href="//${host}/${name}">${name}</a></br>`);
    else {
      const link = `//${host}/${name}?${escapeHtml(names.map((n) => `${n}=_`).join('&'))}`;
      withArgs.push(`<a href="${link}">${link}</a></br>`);
    }
  }
  const html = `<html><body><br>Available endpoints:<br>${noArgs.join('')}<br>Endpoints that require arguments:<br>${withArgs.join('')}</body></html>`;
  res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** The Host header's host part, lower case, IPv6 in brackets; undefined when it cannot be read. */
export function hostOfHeader(header: string): string | undefined {
  try {
    return new URL(`http://${header}/`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** A JSON body: `application/json`, any parameters (charset). A web page cannot send one without a CORS preflight. */
const isJsonContentType = (v: string | undefined): boolean => v !== undefined && /^application\/json\s*(?:;|$)/i.test(v.trim());

export async function startRpcServer(o: RpcServerOptions): Promise<RpcServer> {
  const limit = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`maxBodyBytes must be a positive integer, got ${limit}`);
  const maxBatch = o.maxRequestBatchSize ?? DEFAULT_MAX_REQUEST_BATCH_SIZE;
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 0) throw new Error(`maxRequestBatchSize must be a non-negative integer, got ${maxBatch}`);
  const search: SearchLimits = { ...DEFAULT_SEARCH_LIMITS, ...o.search };
  const allowed = new Set<string>();
  for (const h of o.allowedHosts ?? DEFAULT_ALLOWED_HOSTS) allowed.add(h === '*' ? '*' : (hostOfHeader(h) ?? h.toLowerCase()));
  const timeout = o.broadcastTxCommitTimeoutMs ?? DEFAULT_BROADCAST_TX_COMMIT_TIMEOUT_MS;
  if (!Number.isFinite(timeout) || timeout < 0) throw new Error(`broadcastTxCommitTimeoutMs must be a non-negative number, got ${timeout}`);
  const logger = o.logger ?? nopLogger;
  const cancel = new AbortController();
  let address = '';
  let hostPort = '';
  const env: RpcEnv = {
    driver: o.driver,
    blockStore: o.driver.blocks,
    app: o.app,
    mempool: o.mempool,
    admission: o.driver.admission,
    genesis: o.genesis,
    nodeInfo: o.nodeInfo,
    logger,
    rpcAddress: () => address,
    broadcastTxCommitTimeoutMs: timeout,
    search,
    cancel: cancel.signal,
    waiting: { count: 0 },
  };
  // a stopped node commits no more blocks: waiting for one is pointless
  void o.driver.done.then(() => cancel.abort('the node stopped before the tx was included in a block'));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    // the URI form's parameters are read the way Go's URL.Query does (+ is a space)
    const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
    // DNS rebinding: a page on evil.example rebound to 127.0.0.1 reaches this server with its own name
    const host = req.headers.host;
    if (host !== undefined && !allowed.has('*')) {
      const name = hostOfHeader(host);
      if (name === undefined || !allowed.has(name)) {
        req.resume();
        logger.debug('RPC request refused: Host not allowed', { host });
        return send(
          res,
          { status: 403, body: errorResponse(null, invalidRequest(`host ${JSON.stringify(host)} is not allowed: add it to config.toml [rpc] allowed_hosts`)) },
          { close: true },
        );
      }
    }
    if (req.method === 'POST' && req.headers['content-length'] !== '0' && !isJsonContentType(req.headers['content-type'])) {
      req.resume();
      return send(
        res,
        {
          status: 415,
          body: errorResponse(null, invalidRequest(`content type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted: send application/json`)),
        },
        { close: true },
      );
    }
    const body = await readBody(req, limit);
    if (body === TOO_LARGE) {
      logger.debug('RPC request body too large', { path, limit });
      return send(res, { status: 400, body: errorResponse(null, invalidRequest('error reading request body: http: request body too large')) }, { close: true });
    }
    if (writes.busy()) {
      return send(res, { status: 503, body: errorResponse(null, internalError(WRITES_BUSY)) });
    }
    if (path === '/') {
      if (body.length === 0) return endpointList(res, req.headers.host ?? hostPort);
      return send(res, await handleBody(body.toString('utf8'), ROUTES, env, maxBatch));
    }
    const name = path.slice(1);
    const m = ROUTES.get(name);
    if (m === undefined) return send(res, { status: 404, body: errorResponse(URI_ID, new RpcError(METHOD_NOT_FOUND, `no RPC method at path ${path}`)) });
    // a GET is what an <img> or a link sends: no page may broadcast through a node on localhost
    if (BROADCAST_METHODS.has(name) && o.broadcastViaGet !== true) {
      return send(
        res,
        {
          status: 405,
          body: errorResponse(URI_ID, invalidRequest(`${name} is not served over GET: POST it as JSON-RPC (config.toml [rpc] broadcast_via_get enables it)`)),
        },
        { pretty: true },
      );
    }
    // the URI form is for people with curl and browsers: indented, as CometBFT writes every answer
    send(res, await handleURI(name, m, query, env), { pretty: true });
  }

  // a slowly sent request cannot hold its connection past the read timeout
  const server = createServer({ requestTimeout: READ_TIMEOUT_MS, headersTimeout: READ_TIMEOUT_MS, connectionsCheckingInterval: 1000 }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      const msg = errorMessage(e);
      if (res.headersSent || req.destroyed) {
        logger.debug('RPC request abandoned', { error: msg });
        res.destroy();
        return;
      }
      logger.error('RPC request failed', { error: e instanceof Error ? (e.stack ?? msg) : msg });
      send(res, { status: 500, body: errorResponse(null, internalError(msg)) });
    });
  });
  // a client that asks for big answers and never reads them cannot make the node keep them
  const writes = guardWrites(server, o.writeLimits ?? DEFAULT_WRITE_LIMITS, (reason, bytes, remote) =>
    logger.warn('RPC connection closed: its client does not read its answers', { reason, bytes, remote }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const maxConns = o.maxOpenConnections ?? DEFAULT_MAX_OPEN_CONNECTIONS;
  if (maxConns > 0) server.maxConnections = maxConns;
  server.on('error', (e) => logger.error('RPC server error', { error: e.message }));
  const a = server.address() as AddressInfo;
  const host = a.address.includes(':') ? `[${a.address}]` : a.address;
  hostPort = `${host}:${a.port}`;
  // the listen host itself (a wildcard address is no name a client sends)
  if (a.address !== '0.0.0.0' && a.address !== '::') allowed.add(host.toLowerCase());
  const configured = hostOfHeader(o.host.includes(':') && !o.host.startsWith('[') ? `[${o.host}]` : o.host);
  if (configured !== undefined && configured !== '0.0.0.0' && configured !== '[::]') allowed.add(configured);
  address = `tcp://${hostPort}`;
  const url = `http://${hostPort}`;
  logger.info('RPC server listening', { url });

  let closing: Promise<void> | undefined;
  return {
    url,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        cancel.abort('the RPC server is closing');
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(force);
          logger.info('RPC server closed', { url });
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
