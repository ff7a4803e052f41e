// The JSON-RPC 2.0 envelope: one request or a batch in, responses out (CometBFT's
// http_json_handler.go, with the JSON-RPC 2.0 rules for batches: each entry answered on its own).
import type { Logger } from '@chaind/sdk/app';
import type { RpcEnv, RpcMethod } from './env.ts';
import { invalidRequest, methodNotFound, parseError, RpcError, toRpcError, type RpcErrorObject } from './errors.ts';
import { decodeJSONParams, decodeURIParams, type Args, type ParamSpec } from './params.ts';
import { errorMessage } from '@chaind/errors';

export type RpcId = string | number | null;

export type RpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly error: RpcErrorObject };

/** The id CometBFT gives answers to the GET URI form. */
export const URI_ID = -1;

export const errorResponse = (id: RpcId, e: RpcError): RpcResponse => ({ jsonrpc: '2.0', id, error: e.toJSON() });

/** Runs a method, turning whatever it throws into an error object (unexpected failures are logged). */
async function invoke(m: RpcMethod, args: Args<ParamSpec>, env: RpcEnv, name: string, logger: Logger): Promise<{ result: unknown } | { error: RpcError }> {
  try {
    return { result: await m.call(args, env) };
  } catch (e) {
    if (!(e instanceof RpcError)) logger.error('RPC method failed', { method: name, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    return { error: toRpcError(e) };
  }
}

/** One entry of a POST body; undefined for a notification (no `id` member), which CometBFT skips unanswered. */
async function handleOne(entry: unknown, routes: ReadonlyMap<string, RpcMethod>, env: RpcEnv): Promise<RpcResponse | undefined> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return errorResponse(null, invalidRequest('a request must be a JSON object'));
  const req = entry as Record<string, unknown>;
  const hasId = Object.hasOwn(req, 'id');
  const id = req.id;
  if (hasId && typeof id !== 'string' && typeof id !== 'number' && id !== null)
    return errorResponse(null, invalidRequest('id must be a string, a number or null'));
  const rid = (hasId ? id : null) as RpcId;
  if (typeof req.method !== 'string') return errorResponse(rid, invalidRequest('method must be a string'));
  if (!hasId) {
    env.logger.debug('JSON-RPC notification skipped (send an id to get an answer)', { method: req.method });
    return undefined;
  }
  const m = routes.get(req.method);
  if (m === undefined) return errorResponse(rid, methodNotFound(req.method));
  let args: Args<ParamSpec>;
  try {
    args = decodeJSONParams(m.params, req.params);
  } catch (e) {
    return errorResponse(rid, toRpcError(e));
  }
  const r = await invoke(m, args, env, req.method, env.logger);
  return 'result' in r ? { jsonrpc: '2.0', id: rid, result: r.result } : errorResponse(rid, r.error);
}

export interface Reply {
  readonly status: number;
  /** Nothing to send (only notifications). */
  readonly body: RpcResponse | readonly RpcResponse[] | undefined;
}

/** A POST body: one request or a batch of at most `maxBatch` (0: any number). Batch entries run one after another, in order. */
export async function handleBody(text: string, routes: ReadonlyMap<string, RpcMethod>, env: RpcEnv, maxBatch = 0): Promise<Reply> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    // CometBFT answers an unreadable body with HTTP 500
    return { status: 500, body: errorResponse(null, parseError(`error unmarshaling request: ${errorMessage(e)}`)) };
  }
  if (!Array.isArray(parsed)) return { status: 200, body: await handleOne(parsed, routes, env) };
  if (parsed.length === 0) return { status: 200, body: errorResponse(null, invalidRequest('empty batch')) };
  if (maxBatch > 0 && parsed.length > maxBatch) {
    return { status: 400, body: errorResponse(null, invalidRequest(`batch request exceeds maximum (${maxBatch}) allowed number of requests`)) };
  }
  const out: RpcResponse[] = [];
  for (const entry of parsed as unknown[]) {
    const r = await handleOne(entry, routes, env);
    if (r !== undefined) out.push(r);
  }
  return { status: 200, body: out.length === 0 ? undefined : out };
}

/** The GET URI form (`/block?height=5`): id -1, and HTTP 500 with any error, as CometBFT's URI handler. */
export async function handleURI(name: string, m: RpcMethod, query: URLSearchParams, env: RpcEnv): Promise<Reply> {
  let args: Args<ParamSpec>;
  try {
    args = decodeURIParams(m.params, query);
  } catch (e) {
    return { status: 500, body: errorResponse(URI_ID, toRpcError(e)) };
  }
  const r = await invoke(m, args, env, name, env.logger);
  return 'result' in r ? { status: 200, body: { jsonrpc: '2.0', id: URI_ID, result: r.result } } : { status: 500, body: errorResponse(URI_ID, r.error) };
}
