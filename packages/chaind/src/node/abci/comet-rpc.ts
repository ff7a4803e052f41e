// Behind CometBFT, the mempool and the blocks are CometBFT's: REST and gRPC broadcasts go to its
// JSON-RPC (broadcast_tx_sync / _async) and GetTx reads its `tx` and `header` endpoints, as the Cosmos
// SDK's server does with the client it makes from config.toml's rpc.laddr. CometBFT's mempool refusals
// come back as JSON-RPC errors carrying its text; they are turned back into the same MempoolRefusal the
// solo node's own mempool throws, so callers see one behaviour in both modes.
import { ChaindError, errorMessage } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { ExecTxResult, type ResponseCheckTx } from 'cosmjs-types/tendermint/abci/types';
import { refusalFromText } from '@chaind/sdk/admission';
import { parseRFC3339 } from '@chaind/sdk/types';
import type { CommittedTx, TxAdmission, TxLookup } from '../driver.ts';
import { isInjectedTxAt } from '../user-txs.ts';
import type { HeaderTimes } from './block-times.ts';

/** CometBFT's RPC cannot be reached or answered outside the protocol. */
export class CometRpcError extends ChaindError<'comet-rpc'> {
  override readonly name = 'CometRpcError';
  constructor(message: string, options?: ErrorOptions) {
    super('comet-rpc', message, options);
  }
}

export interface CometRpcOptions {
  /** CometBFT's RPC, e.g. http://127.0.0.1:26657 (config.toml rpc.laddr). */
  readonly url: string;
  /** How long one call may take (app.toml [abci] comet-rpc-timeout). */
  readonly timeoutMs: number;
  /** The largest tx forwarded (CometBFT's mempool.max_tx_bytes, from the same config.toml). */
  readonly maxTxBytes: number;
  /** The largest answer read from CometBFT (app.toml [abci] comet-rpc-max-response-bytes). */
  readonly maxResponseBytes: number;
}

interface RpcReply {
  readonly result?: unknown;
  readonly error?: { readonly code?: number; readonly message?: string; readonly data?: unknown };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A JSON-RPC 2.0 client of one CometBFT node: the admission, tx lookup and header times of a node behind it. */
export class CometRpc implements TxAdmission, TxLookup, HeaderTimes {
  readonly maxTxBytes: number;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private nextId = 0;

  constructor(o: CometRpcOptions) {
    let u: URL;
    try {
      u = new URL(o.url);
    } catch {
      throw new CometRpcError(`invalid CometBFT RPC address ${JSON.stringify(o.url)}: expected http://host:port`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new CometRpcError(`invalid CometBFT RPC address ${JSON.stringify(o.url)}: expected http://host:port`);
    this.url = u.toString();
    this.timeoutMs = o.timeoutMs;
    this.maxTxBytes = o.maxTxBytes;
    this.maxResponseBytes = o.maxResponseBytes;
  }

  /** One call; rejects with CometRpcError when CometBFT is unreachable or answers outside JSON-RPC. */
  private async call(method: string, params: Record<string, unknown>): Promise<RpcReply> {
    const id = ++this.nextId;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : errorMessage(e);
      throw new CometRpcError(`CometBFT RPC at ${this.url} is not reachable (${method}): ${cause}`, { cause: e });
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > this.maxResponseBytes) {
      await res.body?.cancel();
      throw new CometRpcError(`CometBFT RPC answered ${method} with ${declared} bytes, more than the ${this.maxResponseBytes} allowed`);
    }
    // counted as it arrives: an answer without a Content-Length is not buffered whole before the check
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const c of (res.body ?? []) as AsyncIterable<Uint8Array>) {
        size += c.byteLength;
        if (size > this.maxResponseBytes) {
          await res.body?.cancel().catch(() => {});
          throw new CometRpcError(`CometBFT RPC answered ${method} with more than ${this.maxResponseBytes} bytes`);
        }
        chunks.push(c);
      }
    } catch (e) {
      if (e instanceof CometRpcError) throw e;
      throw new CometRpcError(`CometBFT RPC at ${this.url} answered ${method} and broke off: ${errorMessage(e)}`, { cause: e });
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new CometRpcError(`CometBFT RPC at ${this.url} answered ${method} with HTTP ${res.status} and no JSON-RPC body`);
    }
    if (!isObject(reply) || (reply.result === undefined && !isObject(reply.error))) {
      throw new CometRpcError(`CometBFT RPC at ${this.url} answered ${method} outside JSON-RPC 2.0`);
    }
    return reply as RpcReply;
  }

  /** The error's text as CometBFT puts it: `data` carries the cause, `message` the JSON-RPC class. */
  private static errorText(e: NonNullable<RpcReply['error']>): string {
    return str(e.data) !== '' ? str(e.data) : str(e.message);
  }

  private async broadcast(method: 'broadcast_tx_sync' | 'broadcast_tx_async', tx: Uint8Array): Promise<ResponseCheckTx> {
    const reply = await this.call(method, { tx: Buffer.from(tx).toString('base64') });
    if (reply.error !== undefined) {
      const text = CometRpc.errorText(reply.error);
      throw refusalFromText(text) ?? new CometRpcError(`CometBFT refused the tx: ${text}`);
    }
    const r = isObject(reply.result) ? reply.result : {};
    return {
      code: typeof r.code === 'number' ? r.code : 0,
      data: Buffer.from(str(r.data), 'hex'),
      log: str(r.log),
      info: '',
      gasWanted: 0n,
      gasUsed: 0n,
      events: [],
      codespace: str(r.codespace),
    };
  }

  /** broadcast_tx_sync: CometBFT's CheckTx answer; its mempool's refusals reject with MempoolRefusal. */
  submit(tx: Uint8Array): Promise<ResponseCheckTx> {
    return this.broadcast('broadcast_tx_sync', tx);
  }

  /** broadcast_tx_async: resolves once CometBFT has taken the tx. */
  submitLater(tx: Uint8Array): Promise<ResponseCheckTx> {
    return this.broadcast('broadcast_tx_async', tx);
  }

  /**
   * The `header` endpoint's time of block `height`; undefined when CometBFT has no such block (above its
   * latest, or below what it keeps). Rejects with CometRpcError when it cannot be asked or answers otherwise.
   */
  async headerTime(height: bigint): Promise<Timestamp | undefined> {
    const reply = await this.call('header', { height: height.toString() });
    if (reply.error !== undefined) {
      const text = CometRpc.errorText(reply.error);
      // CometBFT's words for a height it has not reached or has pruned (rpc/core/env.go getHeight)
      if (/must be less than or equal to the current blockchain height|is not available|lowest height is|could not find|not found/i.test(text))
        return undefined;
      throw new CometRpcError(`CometBFT could not give the header at height ${height}: ${text}`);
    }
    const h = isObject(reply.result) && isObject(reply.result.header) ? reply.result.header : undefined;
    if (h === undefined) return undefined;
    const time = parseRFC3339(str(h.time));
    if (time === undefined) throw new CometRpcError(`CometBFT answered header ${height} without an RFC 3339 time: ${JSON.stringify(h.time)}`);
    return time;
  }

  /**
   * The `tx` endpoint, then the block's time from `header`; undefined when CometBFT has no such user tx. The
   * index is CometBFT's, the place in its block (GetTx does not show it).
   */
  async committedTx(hash: Uint8Array): Promise<CommittedTx | undefined> {
    const reply = await this.call('tx', { hash: Buffer.from(hash).toString('base64'), prove: false });
    if (reply.error !== undefined) {
      const text = CometRpc.errorText(reply.error);
      if (/not found/.test(text)) return undefined;
      throw new CometRpcError(`CometBFT could not look up tx ${Buffer.from(hash).toString('hex').toUpperCase()}: ${text}`);
    }
    const r = isObject(reply.result) ? reply.result : {};
    if (!/^\d+$/.test(str(r.height))) throw new CometRpcError('CometBFT answered tx without a height');
    const height = BigInt(str(r.height));
    const index = typeof r.index === 'number' ? r.index : 0;
    const tx = Buffer.from(str(r.tx), 'base64');
    // CometBFT indexes the extended commit a block leads with too: it is no user's tx
    if (isInjectedTxAt(index, tx)) return undefined;
    let time: Timestamp | undefined;
    try {
      time = await this.headerTime(height);
    } catch {
      // the tx is found: a header CometBFT no longer answers for only leaves its time out
      time = undefined;
    }
    return {
      height,
      index,
      hash: Uint8Array.from(hash),
      tx,
      result: ExecTxResult.fromJSON(r.tx_result ?? {}),
      time,
    };
  }
}
