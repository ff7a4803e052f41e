// A small CometBFT JSON-RPC client for the read-only commands: POST JSON-RPC 2.0 over node:http(s) with a
// timeout; every failure (unreachable node, JSON-RPC error, non-zero ABCI code) becomes a one-line UserError.
// node:http rather than fetch: fetch loads undici, a tenth of a second of every query command's start.
import { Buffer } from 'node:buffer';
import { request as httpRequest } from 'node:http';
import { Option, type Command } from 'commander';
import { configPaths, exists, loadNodeConfig, rpcDialUrl } from '../../config/index.ts';
import { addHomeOption, homeOf, UserError } from '../common.ts';

export const DEFAULT_NODE = 'tcp://localhost:26657';
export const DEFAULT_TIMEOUT_MS = 10_000;

/** `tcp://h:p`, `http(s)://h:p` or a bare `h:p` → the http(s) base URL (no trailing slash). */
export function nodeUrl(node: string): string {
  const s = node.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new UserError(`invalid --node ${JSON.stringify(node)}: expected tcp://host:port or http://host:port`);
  }
  if (u.protocol === 'tcp:') u = new URL(`http://${u.host}${u.pathname === '/' ? '' : u.pathname}`);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UserError(`invalid --node ${JSON.stringify(node)}: expected tcp://, http:// or https://`);
  }
  if (u.hostname === '') throw new UserError(`invalid --node ${JSON.stringify(node)}: no host`);
  return u.toString().replace(/\/+$/, '');
}

/** Why a request failed, in words: "connection refused", "host not found", … */
export function reason(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs / 1000}s`;
  const code = err.cause?.code ?? err.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    default:
      return err.cause?.message ?? err.message ?? String(e);
  }
}

/** POSTs `body` as JSON to `url`; the status and the answer's text, or the request's error. */
async function postJson(url: string, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string; data?: string };
}

export interface AbciQueryResponse {
  code: number;
  log: string;
  value: string | null;
  height: string;
  codespace: string;
}

export class RpcClient {
  readonly url: string;
  readonly timeoutMs: number;
  private nextId = 1;

  constructor(node: string, timeoutMs = DEFAULT_TIMEOUT_MS) {
    this.url = nodeUrl(node);
    this.timeoutMs = timeoutMs;
  }

  async call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    let res: { status: number; text: string };
    try {
      res = await postJson(this.url, body, this.timeoutMs);
    } catch (e) {
      throw new UserError(`cannot reach node at ${this.url}: ${reason(e, this.timeoutMs)}`);
    }
    let reply: RpcReply;
    try {
      reply = JSON.parse(res.text) as RpcReply;
    } catch {
      throw new UserError(`unexpected answer from node at ${this.url}: HTTP ${res.status}, not JSON-RPC`);
    }
    if (reply.error !== undefined) {
      const { message, data } = reply.error;
      throw new UserError(data !== undefined && data !== '' ? `${message}: ${data}` : message);
    }
    if (reply.result === undefined) throw new UserError(`unexpected answer from node at ${this.url}: no result`);
    return reply.result;
  }

  /**
   * abci_query of a gRPC method path with protobuf request bytes (at `height`, 0 = the latest); the
   * response bytes, or a UserError with the log.
   */
  async abciQuery(path: string, request: Uint8Array, height = 0n): Promise<Uint8Array> {
    const result = (await this.call('abci_query', { path, data: Buffer.from(request).toString('hex'), height: height.toString(), prove: false })) as {
      response?: AbciQueryResponse;
    };
    const r = result.response;
    if (r === undefined) throw new UserError(`unexpected answer from node at ${this.url}: abci_query without a response`);
    // the SDK's ErrInvalidHeight: chaind answers the latest height only, and says which one that is
    if (r.code === 26 && r.codespace === 'sdk' && height !== 0n && /^\d+$/.test(r.height) && BigInt(r.height) !== height) {
      throw new UserError(`this node keeps only the latest state (height ${r.height}); --height ${height} cannot be served`);
    }
    if (r.code !== 0) throw new UserError(r.log !== '' ? r.log : `query ${path} failed with code ${r.code}${r.codespace ? ` (${r.codespace})` : ''}`);
    return new Uint8Array(Buffer.from(r.value ?? '', 'base64'));
  }
}

export interface NodeOptions {
  node: string;
  output: string;
}

export interface HeightOptions extends NodeOptions {
  height?: string;
}

/** --height as the SDK's query commands have it; chaind keeps only the latest state, so only that height is answered. */
export function addHeightOption(cmd: Command): Command {
  return cmd.option('--height <height>', 'query the state at this height: 0 or the latest height (the node keeps only the latest state)');
}

export function heightArg(o: HeightOptions): bigint {
  const h = o.height;
  if (h === undefined) return 0n;
  if (!/^\d+$/.test(h.trim())) throw new UserError(`invalid --height ${JSON.stringify(h)}: expected a non-negative integer`);
  return BigInt(h.trim());
}

/**
 * The node a client command dials, in the Cosmos order of precedence: --node, else the home's node
 * address, else DEFAULT_NODE. The home's address is its config.toml `[rpc] laddr` (chaind writes no
 * client.toml: the node's own listen address is the one place it is set), dialled on loopback when it
 * listens on every interface.
 */
export async function resolveNode(o: { node?: string; home: string }): Promise<string> {
  if (o.node !== undefined) return o.node;
  const home = homeOf(o);
  if (!(await exists(configPaths(home).node))) return DEFAULT_NODE;
  return rpcDialUrl((await loadNodeConfig(home)).config.rpc.laddr);
}

/** --node and --home (unless the command has it already, e.g. for its keyring); `node` is resolved before the action runs. */
export function addNodeOption(cmd: Command): Command {
  if (!cmd.options.some((opt) => opt.long === '--home')) addHomeOption(cmd);
  return cmd
    .option(
      '--node <url>',
      `the CometBFT JSON-RPC address of the node (tcp:// or http://; default: the [rpc] laddr of the home's config.toml, else ${DEFAULT_NODE})`,
    )
    .hook('preAction', async (_cmd, action) => {
      action.setOptionValue('node', await resolveNode(action.opts<{ node?: string; home: string }>()));
    });
}

/** --node, --home and -o/--output (text or json). */
export function addNodeOptions(cmd: Command, defaultOutput: 'text' | 'json' = 'text'): Command {
  return addNodeOption(cmd).addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default(defaultOutput));
}

/** A query of the chain's state: --node, --home, -o and --height. */
export function addStateQueryOptions(cmd: Command, defaultOutput: 'text' | 'json' = 'text'): Command {
  return addHeightOption(addNodeOptions(cmd, defaultOutput));
}
