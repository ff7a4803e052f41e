// The REST server (docs/architecture.md "Processes", :1317): the Cosmos gateway routes over the one query
// path — build the protobuf request from the URL, ABCI Query under the gRPC method path, render the
// response bytes as gateway JSON — the tx service's routes (broadcast, simulate, get tx) over
// tx-service.ts the same way, and an OpenAPI 3 document with a UI at /swagger.
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { status } from '../grpc-status.ts';
import { nopLogger, type Logger } from '@chaind/sdk/app';
import { create, fromJson, toBinary, type DescMessage, type JsonValue, type Registry } from '@bufbuild/protobuf';
import { CHAIND_VERSION } from '../../version.ts';
import { loadDescriptors } from '../query/descriptors.ts';
import { runQuery, type QueryApp } from '../query/query.ts';
import { HEIGHT_HEADER, HeightError, ParamError, parseHeight } from '../query/request.ts';
import { httpStatusOf } from '../query/status.ts';
import { TX_METHODS, TxServiceError, type TxNode } from '../tx-service.ts';
import { buildRequest, renderGatewayJson, RenderError, type Params } from './gateway-json.ts';
import { fastifyPath, GATEWAY_ROUTES, pathParamNames, TX_ROUTES, type GatewayRoute, type TxRoute } from './routes.ts';
import { registerDashboard, type DashboardSource } from './dashboard.ts';
import { ERROR_SCHEMA, pathParamSchema, querySchema, responseSchema } from './schema.ts';
import { DEFAULT_MAX_WRITE_BUFFER_BYTES } from '../../config/config.ts';
import { guardWrites, WRITES_BUSY } from '../write-guard.ts';
import { lazyValidators } from './lazy-validators.ts';
import { errorMessage } from '@chaind/errors';

export interface RestServerOptions {
  /** Default 127.0.0.1: the node is not exposed unless configured to be. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly app: QueryApp;
  /** The node's parts the tx routes need; without them only the query routes are served. */
  readonly txNode?: TxNode;
  /** Largest request body (default: room for the largest tx the mempool takes, base64, and at least 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Most connections open at once (default 1000, the SDK's [api] max-open-connections); 0: no limit. */
  readonly maxOpenConnections?: number;
  /** A whole request (headers and body) must arrive within this (default 10 s, the SDK's rpc-read-timeout). */
  readonly readTimeoutMs?: number;
  /** A connection with no traffic for this long is closed, also one whose answer is not being read (default 10 s; the SDK's rpc-write-timeout). */
  readonly idleTimeoutMs?: number;
  /** Bytes of unread answers, all connections together; past it the longest-waiting connections are closed (default DEFAULT_MAX_WRITE_BUFFER_BYTES). */
  readonly maxWriteBufferBytes?: number;
  readonly logger?: Logger;
  /** What the upgrade dashboard (/upgrade) reads; without it the dashboard is not served. */
  readonly dashboard?: DashboardSource;
}

export const DEFAULT_REST_MAX_OPEN_CONNECTIONS = 1000;
export const DEFAULT_REST_READ_TIMEOUT_MS = 10_000;
export const DEFAULT_REST_IDLE_TIMEOUT_MS = 10_000;

export interface RestServer {
  /** `http://host:port` actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/** The body of every error, as grpc-gateway writes a gRPC status. */
export interface ErrorBody {
  readonly code: number;
  readonly message: string;
  readonly details: readonly unknown[];
}

function sendError(reply: FastifyReply, code: status, message: string, http = httpStatusOf(code)): FastifyReply {
  const body: ErrorBody = { code, message, details: [] };
  return reply.code(http).type('application/json; charset=utf-8').send(body);
}

/** An HTTP status Fastify chose (a 4xx of its own) → the nearest gRPC code for the body. */
function grpcCodeOfHttp(http: number): status {
  if (http === 404) return status.NOT_FOUND;
  if (http === 401) return status.UNAUTHENTICATED;
  if (http === 403) return status.PERMISSION_DENIED;
  if (http === 405 || http === 501) return status.UNIMPLEMENTED;
  if (http === 413 || http === 429) return status.RESOURCE_EXHAUSTED;
  if (http >= 400 && http < 500) return status.INVALID_ARGUMENT;
  return status.INTERNAL;
}

const CONTEXTS: Readonly<Record<string, string>> = { params: 'path parameter', querystring: 'query parameter', headers: 'header' };

/** ajv's first complaint, named as the client wrote it: `invalid path parameter proposal_id: must match pattern "^[0-9]+$"`. */
function validationMessage(err: FastifyError): string {
  const v = err.validation?.[0];
  const where = CONTEXTS[err.validationContext ?? ''] ?? 'request';
  if (v === undefined) return `invalid ${where}: ${err.message}`;
  const name = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const allowed = v.keyword === 'enum' && Array.isArray(v.params.allowedValues) ? ` (${v.params.allowedValues.join(', ')})` : '';
  return `invalid ${where}${name === '' ? '' : ` ${name}`}: ${v.message ?? 'is not valid'}${allowed}`;
}

interface Bound {
  readonly route: GatewayRoute;
  readonly request: DescMessage;
  readonly response: DescMessage;
}

/** Resolves each route's request and response types from the descriptors; a route the app or the descriptors lack is a bug. */
function bindRoutes(app: QueryApp, registry: Registry): Bound[] {
  const served = new Set(app.modules.queryRouter.paths());
  return GATEWAY_ROUTES.map((route) => {
    if (!served.has(route.method)) throw new Error(`REST route ${route.path}: the app serves no ${route.method}`);
    const [, svc, name] = route.method.split('/');
    const m = registry.getService(svc)?.methods.find((x) => x.name === name);
    if (m === undefined) throw new Error(`REST route ${route.path}: no descriptor for ${route.method}`);
    return { route, request: m.input, response: m.output };
  });
}

/** A small memo of the requests built from URLs (clients repeat the same few); starts over when full. */
class RequestMemo {
  private readonly m = new Map<string, Uint8Array>();
  get(url: string): Uint8Array | undefined {
    return this.m.get(url);
  }
  set(url: string, data: Uint8Array): Uint8Array {
    if (this.m.size >= 1024) this.m.clear();
    this.m.set(url, data);
    return data;
  }
}

function registerRoute(f: FastifyInstance, b: Bound, app: QueryApp, registry: Registry, logger: Logger): void {
  const names = pathParamNames(b.route.path);
  const requests = new RequestMemo();
  // the app answers a repeated query at the same height with the same bytes object (its per-height
  // cache), so the JSON rendered from those bytes is kept with them and dropped with them
  const rendered = new WeakMap<Uint8Array, string>();
  const tag = b.route.path.split('/').slice(1, 4).join('.');
  f.get(
    fastifyPath(b.route.path),
    {
      schema: {
        summary: b.route.summary,
        description: `gRPC ${b.route.method}`,
        operationId: b.route.method.slice(1).replace(/[./]/g, '_'),
        tags: [tag],
        ...(names.length > 0
          ? { params: { type: 'object', properties: Object.fromEntries(names.map((n) => [n, pathParamSchema(b.request, n)])), required: names } }
          : {}),
        querystring: querySchema(b.request, new Set(names)),
        headers: { type: 'object', properties: { [HEIGHT_HEADER]: { type: 'string', pattern: '^[0-9]+$', description: 'query height (latest when absent)' } } },
        response: { 200: responseSchema(b.response), default: ERROR_SCHEMA },
      },
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      let data: Uint8Array;
      let height: bigint;
      try {
        data = requests.get(req.url) ?? requests.set(req.url, buildRequest(b.request, req.params as Params, req.query as Params, registry));
        const h = req.headers[HEIGHT_HEADER];
        height = parseHeight(Array.isArray(h) ? h[0] : h);
      } catch (e) {
        if (e instanceof ParamError || e instanceof HeightError) return sendError(reply, status.INVALID_ARGUMENT, e.message);
        throw e;
      }
      const r = runQuery(app, b.route.method, data, height);
      reply.header(HEIGHT_HEADER, r.height.toString());
      if (!r.ok) return sendError(reply, r.code, r.message);
      try {
        let json = rendered.get(r.value);
        if (json === undefined) {
          json = JSON.stringify(renderGatewayJson(b.response, r.value, registry));
          rendered.set(r.value, json);
        }
        return reply.type('application/json; charset=utf-8').send(json);
      } catch (e) {
        // e.g. an Any of a type the descriptors lack: the node's fault, not the client's
        if (e instanceof RenderError) {
          logger.error('REST response cannot be rendered', { path: b.route.path, err: e.message });
          return sendError(reply, status.INTERNAL, e.message);
        }
        throw e;
      }
    },
  );
}

/** The request of a `body: "*"` route: its gateway JSON; an empty body is the empty request (as grpc-gateway's io.EOF). */
function requestFromBody(desc: DescMessage, body: unknown, registry: Registry): Uint8Array {
  const text = typeof body === 'string' ? body : '';
  if (text.trim() === '') return toBinary(desc, create(desc));
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new ParamError(`invalid request body: malformed JSON: ${errorMessage(e)}`);
  }
  try {
    return toBinary(desc, fromJson(desc, json, { registry }));
  } catch (e) {
    throw new ParamError(`invalid request body: ${errorMessage(e)}`);
  }
}

/** Body routes document their body; it is checked by fromJson in the handler, with protobuf's own messages. */
const noBodyValidation = (): ((data: unknown) => boolean) => () => true;

function registerTxRoute(f: FastifyInstance, route: TxRoute, node: TxNode, registry: Registry, logger: Logger): void {
  const [, svc, name] = route.method.split('/');
  const m = registry.getService(svc)?.methods.find((x) => x.name === name);
  const call = TX_METHODS.get(route.method);
  if (m === undefined || call === undefined) throw new Error(`REST route ${route.path}: no descriptor or implementation for ${route.method}`);
  const names = pathParamNames(route.path);
  const schema = {
    summary: route.summary,
    description: `gRPC ${route.method}`,
    operationId: route.method.slice(1).replace(/[./]/g, '_'),
    tags: ['cosmos.tx.v1beta1'],
    ...(names.length > 0
      ? { params: { type: 'object', properties: Object.fromEntries(names.map((n) => [n, pathParamSchema(m.input, n)])), required: names } }
      : {}),
    ...(route.httpMethod === 'POST' ? { body: responseSchema(m.input) } : {}),
    response: { 200: responseSchema(m.output), default: ERROR_SCHEMA },
  };
  f.route({
    method: route.httpMethod,
    url: fastifyPath(route.path),
    schema,
    ...(route.httpMethod === 'POST' ? { validatorCompiler: noBodyValidation } : {}),
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      let data: Uint8Array;
      try {
        data =
          route.httpMethod === 'POST'
            ? requestFromBody(m.input, req.body, registry)
            : buildRequest(m.input, req.params as Params, req.query as Params, registry);
      } catch (e) {
        if (e instanceof ParamError) return sendError(reply, status.INVALID_ARGUMENT, e.message);
        throw e;
      }
      let out: Uint8Array;
      try {
        out = await call(node, data);
      } catch (e) {
        if (e instanceof TxServiceError) return sendError(reply, e.code, e.message);
        throw e;
      }
      try {
        return reply.type('application/json; charset=utf-8').send(renderGatewayJson(m.output, out, registry));
      } catch (e) {
        if (e instanceof RenderError) {
          logger.error('REST response cannot be rendered', { path: route.path, err: e.message });
          return sendError(reply, status.INTERNAL, e.message);
        }
        throw e;
      }
    },
  });
}

/** Room for the largest tx the mempool accepts, as base64 in JSON; never below 1 MiB. */
function defaultBodyLimit(node: TxNode | undefined): number {
  const tx = node === undefined ? 0 : Math.ceil(node.admission.maxTxBytes / 3) * 4 + 64 * 1024;
  return Math.max(1024 * 1024, tx);
}

export async function startRestServer(o: RestServerOptions): Promise<RestServer> {
  const host = o.host ?? '127.0.0.1';
  const logger = o.logger ?? nopLogger;
  const { registry } = loadDescriptors();
  const bound = bindRoutes(o.app, registry);

  const bodyLimit = o.maxBodyBytes ?? defaultBodyLimit(o.txNode);
  if (!Number.isSafeInteger(bodyLimit) || bodyLimit < 1) throw new Error(`maxBodyBytes must be a positive integer, got ${bodyLimit}`);

  // plan names and addresses can exceed find-my-way's default 100-character parameter limit
  const readTimeout = o.readTimeoutMs ?? DEFAULT_REST_READ_TIMEOUT_MS;
  const idleTimeout = o.idleTimeoutMs ?? DEFAULT_REST_IDLE_TIMEOUT_MS;
  const f = Fastify({
    logger: false,
    bodyLimit,
    routerOptions: { maxParamLength: 1024 },
    schemaController: { compilersFactory: { buildValidator: lazyValidators() } },
    // a slowly sent request, or a connection left open and silent, cannot hold its socket
    requestTimeout: readTimeout,
    connectionTimeout: idleTimeout,
    http: { headersTimeout: readTimeout, connectionsCheckingInterval: Math.min(1000, Math.max(1, readTimeout)) },
    // what the router refuses before any route runs (a malformed percent-escape): the same error shape as the rest
    frameworkErrors: (err, _req, reply) => {
      const http = err.statusCode ?? 400;
      return sendError(reply, grpcCodeOfHttp(http), err.message, http);
    },
  });
  // an unread answer is closed by the idle timeout; this bounds what all of them take meanwhile
  const writes = guardWrites(
    f.server,
    { writeTimeoutMs: 0, maxBufferBytes: o.maxWriteBufferBytes ?? DEFAULT_MAX_WRITE_BUFFER_BYTES },
    (reason, bytes, remote) => logger.warn('REST connection closed: its client does not read its answers', { reason, bytes, remote }),
  );
  f.addHook('onRequest', async (_req, reply) => {
    if (writes.busy()) return sendError(reply, status.UNAVAILABLE, WRITES_BUSY, 503);
  });
  // JSON bodies only (unlike grpc-gateway, which reads any body as JSON): a web page can POST a form or
  // text/plain to a node on localhost without a CORS preflight, never application/json. Bodies arrive
  // as text and the route parses them, with its own clear errors.
  f.removeAllContentTypeParsers();
  f.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // the handlers send ready gateway JSON: response schemas document it, they do not filter it
  f.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));
  f.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.validation !== undefined) return sendError(reply, status.INVALID_ARGUMENT, validationMessage(err), 400);
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(
        reply,
        status.INVALID_ARGUMENT,
        `content type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted: send application/json`,
        415,
      );
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendError(reply, status.RESOURCE_EXHAUSTED, `request body too large: the limit is ${bodyLimit} bytes`, 413);
    const http = err.statusCode ?? 500;
    if (http >= 500) logger.error('REST request failed', { method: req.method, url: req.url, err: err.message });
    return sendError(reply, grpcCodeOfHttp(http), http >= 500 ? `internal error: ${err.message}` : err.message, http);
  });
  f.setNotFoundHandler((req, reply) => sendError(reply, status.NOT_FOUND, `Not Found: no route for ${req.method} ${req.url.split('?')[0]}`, 404));
  // a hook costs every request its time even when the line is dropped
  if (logger.debugEnabled !== false) {
    f.addHook('onResponse', async (req, reply) => {
      logger.debug('REST request', { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) });
    });
  }

  await f.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'chaind REST API',
        version: CHAIND_VERSION,
        description:
          'Cosmos gRPC-gateway compatible JSON: proto field names, 64-bit integers as strings, null for an absent message. ' +
          `Errors: {"code": <gRPC code>, "message", "details"}. Header ${HEIGHT_HEADER} on every answer gives the state height.`,
      },
    },
  });
  await f.register(swaggerUi, { routePrefix: '/swagger' });
  for (const b of bound) registerRoute(f, b, o.app, registry, logger);
  if (o.txNode !== undefined) for (const r of TX_ROUTES) registerTxRoute(f, r, o.txNode, registry, logger);
  const stopDashboard = o.dashboard === undefined ? undefined : registerDashboard(f, o.dashboard);

  const maxConns = o.maxOpenConnections ?? DEFAULT_REST_MAX_OPEN_CONNECTIONS;
  if (maxConns > 0) f.server.maxConnections = maxConns;
  await f.listen({ host, port: o.port });
  const addr = f.server.address();
  if (addr === null || typeof addr === 'string') throw new Error(`unexpected server address ${String(addr)}`);
  const url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  logger.info('REST server listening', { url, routes: bound.length + (o.txNode === undefined ? 0 : TX_ROUTES.length) });
  let closed: Promise<void> | undefined;
  return {
    url,
    close(): Promise<void> {
      stopDashboard?.();
      closed ??= f.close();
      return closed;
    },
  };
}
