// Fuzz: the node's network surfaces. A real `chaind dev` node (a child process in its own process
// group, JSON-RPC, REST and gRPC on loopback) is fed random JSON-RPC bodies (invalid JSON, wrong
// parameter types, huge numbers, deep nesting, batches), REST paths and query strings (random and real
// routes, percent-encoding, huge and negative heights) and gRPC request bytes (random and mutated
// protobuf to every method it serves, over grpc-js's HTTP/2 client). Every answer must be a well-formed
// result or error (a JSON-RPC error object; a 4xx with a JSON error body; a gRPC status other than
// INTERNAL or UNKNOWN), within a deadline; the node logs no internal failure, stays up, keeps making
// blocks, and its state (the app hash) is unchanged.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { createChainApp } from '@chaind/chaind/app';
import { TX_METHODS } from '@chaind/chaind/node';
import { removeTmpDirs, startDevNode, tmpDir, type DevNode } from '@chaind/chaind/testing';
import { fuzzParameters, varintBytes } from '../kit/fuzz.ts';

/** The parameters of each JSON-RPC method (CometBFT v0.38's names), and their kinds. */
const METHODS: Readonly<Record<string, Readonly<Record<string, 'int' | 'bool' | 'string' | 'bytes' | 'hex'>>>> = {
  health: {},
  status: {},
  net_info: {},
  abci_info: {},
  abci_query: { path: 'string', data: 'hex', height: 'int', prove: 'bool' },
  genesis: {},
  genesis_chunked: { chunk: 'int' },
  block: { height: 'int' },
  block_by_hash: { hash: 'bytes' },
  header: { height: 'int' },
  header_by_hash: { hash: 'bytes' },
  block_results: { height: 'int' },
  blockchain: { minHeight: 'int', maxHeight: 'int' },
  commit: { height: 'int' },
  validators: { height: 'int', page: 'int', per_page: 'int' },
  consensus_params: { height: 'int' },
  block_search: { query: 'string', page: 'int', per_page: 'int', order_by: 'string' },
  broadcast_tx_sync: { tx: 'bytes' },
  broadcast_tx_async: { tx: 'bytes' },
  broadcast_tx_commit: { tx: 'bytes' },
  tx: { hash: 'bytes', prove: 'bool' },
  tx_search: { query: 'string', prove: 'bool', page: 'int', per_page: 'int', order_by: 'string' },
  unconfirmed_txs: { limit: 'int' },
  num_unconfirmed_txs: {},
};

/** What a node logs when a request failed inside it rather than being refused. */
const INTERNAL_FAILURE =
  /RPC method failed|RPC request failed|REST request failed|cannot be rendered|gRPC query failed|gRPC tx service call failed|unhandled|uncaught/i;
/** JavaScript's own error texts: a message a client sees must never be one of these. */
const RUNTIME_ERROR =
  /TypeError|ReferenceError|RangeError|SyntaxError: (?!.*JSON)|is not a function|Cannot read propert|Maximum call stack|Invalid array length|Do not know how to serialize/;

const REQUEST_TIMEOUT_MS = 15_000;
/** Node's default --max-http-header-size: the request line and headers together. */
const HEAD_LIMIT = 16 * 1024;

interface Endpoints {
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
}

let dev: DevNode;
const log = (): string => dev.proc.log();
let endpoints: Endpoints;
let grpc: Client;
let startHash = '';
let startHeight = 0;

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

/** One raw HTTP request (node's http: the path goes as it is, unnormalized), with a deadline. */
function http(base: string, o: { method: string; path: string; body?: string | Buffer; headers?: Record<string, string> }): Promise<Reply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
    // a connection of its own: a kept-alive one the server has just closed would fail the next request
    const req = request({ host: u.hostname, port: u.port, path: o.path, method: o.method, headers, timeout: REQUEST_TIMEOUT_MS, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms: ${o.method} ${o.path}`)));
    req.end(o.body);
  });
}

async function rpcCall(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const r = await http(endpoints.rpc, {
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = JSON.parse(r.text) as { result?: Record<string, unknown> };
  assert.ok(j.result !== undefined, r.text);
  return j.result;
}

async function appState(): Promise<{ height: number; hash: string }> {
  const info = (await rpcCall('abci_info')).response as { last_block_height: string; last_block_app_hash: string };
  return { height: Number(info.last_block_height), hash: info.last_block_app_hash };
}

async function untilHeight(h: number, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while ((await appState()).height < h) {
    if (Date.now() > end) throw new Error(`height ${h} not reached within ${ms} ms:\n${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const escapes: unknown[] = [];
const onEscape = (e: unknown): void => {
  escapes.push(e);
};

before(async () => {
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  const home = join(tmpDir('chaind-fuzz-rpc-'), 'home');
  dev = await startDevNode(home, { servers: true, timeoutMs: 120_000 });
  endpoints = { rpc: dev.rpc, rest: dev.rest ?? '', grpc: dev.grpc ?? '' };
  grpc = new Client(endpoints.grpc, credentials.createInsecure());
  await untilHeight(2);
  ({ hash: startHash, height: startHeight } = await appState());
});

after(() => {
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
  grpc?.close();
  void dev?.proc.killGroup();
  removeTmpDirs();
});

// ---- JSON-RPC ----

/** Integers of every awkward kind, as JSON numbers and as strings. */
const hugeOrOdd: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    -1,
    0,
    1e308,
    -1e308,
    2 ** 53,
    2 ** 63,
    1.5,
    '-1',
    '0',
    '99999999999999999999999',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '1e3',
    '0x10',
    ' 5',
    '',
  ),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.integer(),
);

/** Any JSON value, often a wrong type for the parameter it is given as. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  hugeOrOdd,
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 40 }),
  fc.base64String({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('hex')),
  fc.constantFrom<unknown>(null, true, false, [], {}),
);

/** Arrays or objects nested `depth` deep. */
const deep: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.boolean())
  .map(([d, arr]) => (arr ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d)));

const methodName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...Object.keys(METHODS)),
  fc.string({ maxLength: 20 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'),
);

const params: fc.Arbitrary<unknown> = methodName.chain((m) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...Object.keys(METHODS[m] ?? { x: 'int' }), '__proto__', 'constructor'), anyValue, { maxKeys: 5 }),
    fc.array(anyValue, { maxLength: 6 }),
    anyValue,
  ),
);

const requestObject: fc.Arbitrary<unknown> = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), anyValue),
    id: fc.oneof(fc.nat(), fc.string({ maxLength: 10 }), fc.constant(null), anyValue),
    method: fc.oneof(methodName, anyValue),
    params,
  },
  { requiredKeys: [] },
);

const rpcBody: fc.Arbitrary<string> = fc.oneof(
  requestObject.map((r) => JSON.stringify(r)),
  fc.array(requestObject, { maxLength: 12 }).map((b) => JSON.stringify(b)),
  // invalid JSON: random text, and valid requests cut short
  fc.string({ maxLength: 60 }),
  fc.tuple(requestObject, fc.nat()).map(([r, n]) => {
    const s = JSON.stringify(r);
    return s.slice(0, n % (s.length + 1));
  }),
  deep,
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
);

interface RpcAnswer {
  readonly jsonrpc?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown };
}

function assertRpcAnswer(a: unknown, body: string): void {
  const what = `answer ${JSON.stringify(a)?.slice(0, 500)} to ${body.slice(0, 300)}`;
  assert.ok(typeof a === 'object' && a !== null && !Array.isArray(a), what);
  const r = a as RpcAnswer;
  assert.equal(r.jsonrpc, '2.0', what);
  assert.ok('result' in r !== 'error' in r, `a result or an error: ${what}`);
  if (r.error !== undefined) {
    assert.ok(Number.isInteger(r.error.code) && typeof r.error.message === 'string', `a JSON-RPC error object: ${what}`);
    assert.doesNotMatch(String(r.error.data ?? ''), RUNTIME_ERROR, what);
  }
}

async function rpcRound(body: string, get: boolean): Promise<void> {
  const r = get
    ? await http(endpoints.rpc, { method: 'GET', path: body })
    : await http(endpoints.rpc, { method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body });
  // CometBFT answers with 500 and a JSON-RPC error object for some errors (below); nothing else is 5xx
  assert.ok([200, 400, 404, 405, 413, 415, 500].includes(r.status), `HTTP ${r.status} to ${body.slice(0, 300)}: ${r.text.slice(0, 300)}`);
  // the list of endpoints, as CometBFT answers a GET of / or a POST with an empty body
  if ((get || body === '') && r.status === 200 && r.type.startsWith('text/html')) return;
  if (r.text === '') {
    // notifications (a method and no id member), alone or a whole batch of them, are not answered
    assert.equal(r.status, 200, body);
    const sent: unknown = JSON.parse(body);
    const notification = (e: unknown): boolean =>
      typeof e === 'object' && e !== null && !Array.isArray(e) && !Object.hasOwn(e, 'id') && typeof (e as { method?: unknown }).method === 'string';
    assert.ok(
      Array.isArray(sent) ? sent.length > 0 && sent.every(notification) : notification(sent),
      `an empty answer is for notifications only: ${body.slice(0, 300)}`,
    );
    return;
  }
  const j: unknown = JSON.parse(r.text);
  if (Array.isArray(j)) for (const a of j) assertRpcAnswer(a, body);
  else assertRpcAnswer(j, body);
  // CometBFT v0.38 writes every URI-form error with 500; a POST's only for a parse error or a method's failure
  if (r.status === 500 && !get)
    assert.ok([-32700, -32603].includes(Number((j as RpcAnswer).error?.code)), `500 only for a parse error or a method's failure: ${r.text.slice(0, 300)}`);
  assert.doesNotMatch(log(), INTERNAL_FAILURE, `the node logged an internal failure after ${body.slice(0, 300)}`);
}

/** The URI (GET) form: a method's path and a query string of its parameters, bare and "quoted". */
const uriPath: fc.Arbitrary<string> = fc
  .tuple(methodName, fc.array(fc.tuple(fc.string({ maxLength: 10 }), anyValue), { maxLength: 4 }), fc.boolean())
  .map(([m, ps, quote]) => {
    const named = ps.map(([k, v], i) => [Object.keys(METHODS[m] ?? {})[i] ?? k, typeof v === 'string' && quote ? `"${v}"` : String(JSON.stringify(v) ?? v)]);
    return `/${encodeURIComponent(m)}?${named.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
  });

test('JSON-RPC: random bodies, params and batches get a well-formed result or error object, never a crash', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        rpcBody.map((b) => ({ b, get: false })),
        uriPath.map((b) => ({ b, get: true })),
      ),
      ({ b, get }) => rpcRound(b, get),
    ),
    fuzzParameters(600),
  );
});

// ---- REST ----

interface OpenApi {
  readonly paths: Readonly<
    Record<string, Readonly<Record<string, { readonly description?: string; readonly parameters?: readonly { readonly name: string; readonly in: string }[] }>>>
  >;
}

let openApi: OpenApi | undefined;
async function routes(): Promise<OpenApi> {
  if (openApi === undefined) {
    const r = await http(endpoints.rest, { method: 'GET', path: '/swagger/json' });
    assert.equal(r.status, 200, r.text);
    openApi = JSON.parse(r.text) as OpenApi;
  }
  return openApi;
}

/** A path segment or query value: printable, percent-encoded text, huge and negative numbers, and broken escapes. */
const segment: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))),
  fc.constantFrom(
    '-1',
    '0',
    '18446744073709551616',
    '99999999999999999999999999',
    '9223372036854775808',
    '1e9',
    '0x1f',
    '%',
    '%zz',
    '%00',
    '%ff%fe',
    '%2F',
    '..',
    '.',
    '%2e%2e',
    'true',
    'null',
    'stake',
    'chain1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
  ),
  fc.string({ unit: fc.constantFrom(..."abcxyz019-_.~!$&'()*+,;=:@%".split('')), maxLength: 40 }),
  fc.nat().map((n) => 'x'.repeat(n % 3000)),
);

const QUERY_KEYS = [
  'pagination.limit',
  'pagination.offset',
  'pagination.key',
  'pagination.count_total',
  'pagination.reverse',
  'height',
  'denom',
  'address',
  'proposal_status',
  'voter',
  'depositor',
  'events',
  'query',
  'order_by',
  'page',
  'limit',
];

const restCase = fc.record({
  route: fc.nat(),
  params: fc.array(segment, { minLength: 4, maxLength: 4 }),
  query: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), segment), segment), { maxLength: 4 }),
  height: fc.option(fc.oneof(segment, fc.constantFrom('1', '2', '-5', '18446744073709551615')), { nil: undefined }),
  random: fc.option(fc.array(segment, { minLength: 1, maxLength: 6 }), { nil: undefined }),
  post: fc.option(
    fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 60 }),
      deep,
    ),
    { nil: undefined },
  ),
});

async function restRound(c: typeof restCase extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const paths = Object.entries((await routes()).paths).filter(([p]) => !p.startsWith('/swagger'));
  const [template, ops] = paths[c.route % paths.length];
  let i = 0;
  const path = c.random !== undefined ? `/${c.random.join('/')}` : template.replace(/\{[^}]+\}/g, () => c.params[i++ % c.params.length]);
  const qs = c.query.map(([k, v]) => `${k}=${v}`).join('&');
  const headers: Record<string, string> = {};
  if (c.height !== undefined) headers['x-cosmos-block-height'] = c.height;
  const usePost = c.post !== undefined && c.random === undefined && ops.post !== undefined;
  if (usePost) headers['content-type'] = 'application/json';
  const full = qs === '' ? path : `${path}?${qs}`;
  const head = full.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  // past Node's 16 KiB request head the HTTP parser refuses before Fastify: 431, or the connection closes
  // while the client still sends (see reliability.md); near it either may come, or the server's own answer
  const large = head > HEAD_LIMIT - 512;
  const sent = http(endpoints.rest, { method: usePost ? 'POST' : 'GET', path: full, headers, body: usePost ? c.post : undefined });
  const r = large ? await sent.catch((e: Error) => e) : await sent;
  if (r instanceof Error || (large && r.status === 431)) return;
  const what = `${usePost ? 'POST' : 'GET'} ${full.slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`;
  assert.ok(r.status >= 200 && r.status < 500, what);
  if (r.status >= 300) {
    assert.match(r.type, /^application\/json/, what);
    const j = JSON.parse(r.text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(j), ['code', 'message', 'details'], what);
    assert.equal(typeof j.message, 'string', what);
    assert.doesNotMatch(String(j.message), RUNTIME_ERROR, what);
  }
  assert.doesNotMatch(log(), INTERNAL_FAILURE, `the node logged an internal failure after ${what}`);
}

test('REST: random paths, parameters, query strings and heights get a 2xx or a 4xx with a JSON error body, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(restCase, (c) => restRound(c)),
    fuzzParameters(1200),
  );
});

test('REST regression: a malformed percent-escape in the path ("/%") is a 400 in the error shape, not Fastify\'s own', async () => {
  await restRound({ route: 0, params: ['', '', '', ''], query: [], height: undefined, random: ['%'], post: undefined });
  await restRound({
    route: 0,
    params: ['', '', '', ''],
    query: [],
    height: undefined,
    random: ['cosmos', 'bank', 'v1beta1', 'balances', '%zz'],
    post: undefined,
  });
});

// ---- gRPC ----

let grpcMethods: string[] | undefined;
/** What the gRPC server serves: the chain app's query methods (as the server lists them) and the tx service's. */
async function methods(): Promise<string[]> {
  if (grpcMethods === undefined) {
    const chain = createChainApp({ dbPath: join(tmpDir('chaind-fuzz-methods-'), 'application.db') });
    const found = new Set([...chain.app.modules.queryRouter.paths(), ...TX_METHODS.keys()]);
    await chain.close();
    // every method REST serves is among them
    for (const ops of Object.values((await routes()).paths)) {
      for (const op of Object.values(ops)) {
        const m = /^gRPC (\/\S+)$/.exec(op.description ?? '');
        if (m) assert.ok(found.has(m[1]), `${m[1]} is served over gRPC`);
      }
    }
    grpcMethods = [...found].sort();
  }
  return grpcMethods;
}

/** One protobuf field of any number and wire type, with edge varints, huge length prefixes and nested junk. */
const protoField: fc.Arbitrary<number[]> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 2 ** 29 - 1, 2 ** 29)),
    fc.integer({ min: 0, max: 7 }),
    fc.oneof(
      fc
        .tuple(fc.constantFrom(0n, 1n, 2n ** 31n, 2n ** 32n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 70n), fc.constantFrom(0, 10, 11))
        .map(([v, w]) => varintBytes(v, w)),
      fc.uint8Array({ maxLength: 40 }).map((b) => [...varintBytes(BigInt(b.length)), ...b]),
      fc.tuple(fc.constantFrom(2n ** 31n, 2n ** 32n, 2n ** 63n), fc.uint8Array({ maxLength: 8 })).map(([n, b]) => [...varintBytes(n), ...b]),
      fc.string({ maxLength: 30 }).map((s) => [...varintBytes(BigInt(Buffer.byteLength(s))), ...Buffer.from(s)]),
    ),
  )
  .map(([n, wire, payload]) => [...varintBytes((BigInt(n) << 3n) | BigInt(wire)), ...payload]);

const grpcBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc.array(protoField, { maxLength: 6 }).map((fs) => Uint8Array.from(fs.flat())),
  // a well-formed field whose bytes are then cut or flipped
  fc.tuple(fc.array(protoField, { minLength: 1, maxLength: 4 }), fc.nat(), fc.integer({ min: 0, max: 7 }), fc.boolean()).map(([fs, at, bit, cut]) => {
    const b = fs.flat();
    if (cut) return Uint8Array.from(b.slice(0, at % b.length));
    b[at % b.length] ^= 1 << bit;
    return Uint8Array.from(b);
  }),
);

const grpcCase = fc.record({
  method: fc.oneof(fc.nat(), fc.constantFrom<string>('/cosmos.bank.v1beta1.Query/Nope', '/no.such.Service/Method', '/cosmos.tx.v1beta1.Service/GetTxsEvent')),
  bytes: grpcBytes,
  height: fc.option(fc.oneof(segment, fc.constantFrom('1', '0', '-1', '18446744073709551616')), { nil: undefined }),
});

/** One unary call with raw request bytes; resolves its status code (OK or the error's). */
function rawCall(path: string, bytes: Uint8Array, height: string | undefined): Promise<{ code: status; details: string }> {
  const md = new Metadata();
  if (height !== undefined) md.set('x-cosmos-block-height', height);
  return new Promise((resolve) => {
    grpc.makeUnaryRequest(
      path,
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      bytes,
      md,
      { deadline: Date.now() + REQUEST_TIMEOUT_MS },
      (err: ServiceError | null) => resolve(err === null ? { code: status.OK, details: '' } : { code: err.code, details: err.details }),
    );
  });
}

async function grpcRound(c: typeof grpcCase extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const all = await methods();
  const path = typeof c.method === 'number' ? all[c.method % all.length] : c.method;
  const r = await rawCall(path, c.bytes, c.height);
  const what = `${path} ${Buffer.from(c.bytes).toString('hex')} height ${c.height} → ${status[r.code]}: ${r.details}`;
  assert.ok(![status.INTERNAL, status.UNKNOWN, status.DEADLINE_EXCEEDED, status.UNAVAILABLE].includes(r.code), what);
  assert.doesNotMatch(r.details, RUNTIME_ERROR, what);
  assert.doesNotMatch(log(), INTERNAL_FAILURE, `the node logged an internal failure after ${what}`);
}

test('gRPC: random and mutated request bytes to every method get OK or a status other than INTERNAL/UNKNOWN, never a hang', async () => {
  await fc.assert(
    fc.asyncProperty(grpcCase, (c) => grpcRound(c)),
    fuzzParameters(1200),
  );
});

test('gRPC regression: an error whose text holds a lone surrogate (a request string of invalid UTF-8) is answered, and does not kill the node', async () => {
  // an address of the bytes ED A0 80: UTF-8 for a lone surrogate, which the refusal quotes
  await grpcRound({
    method: '/cosmos.bank.v1beta1.Query/Balance',
    bytes: Uint8Array.from([0x0a, 3, 0xed, 0xa0, 0x80, 0x12, 5, ...Buffer.from('stake')]),
    height: undefined,
  });
  await grpcRound({ method: '/cosmos.auth.v1beta1.Query/Account', bytes: Uint8Array.from([0x0a, 3, 0xed, 0xb0, 0x80]), height: undefined });
  assert.ok(dev.proc.running, `the node exited:\n${log().slice(-3000)}`);
});

test('after the fuzzing the node is up, blocks keep coming, and its state is unchanged', async () => {
  assert.ok(dev.proc.running, `the node exited:\n${log().slice(-3000)}`);
  assert.equal(Buffer.from(startHash, 'base64').length, 32, `the app hash before the fuzzing: ${startHash}`);
  const now = await appState();
  await untilHeight(now.height + 2);
  const end = await appState();
  assert.ok(end.height > startHeight, `${end.height} > ${startHeight}`);
  assert.equal(end.hash, startHash, 'no fuzzed request changed state');
  assert.doesNotMatch(log(), INTERNAL_FAILURE);
  assert.deepEqual(escapes, [], 'no unhandled rejection or uncaught exception');
});
