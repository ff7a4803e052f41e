// What the load command and its child processes (send clients, the query client) hand each other.

/** The sdk codespace's ErrMempoolIsFull: the mempool's bound reached, retry later. */
export const MEMPOOL_FULL = 20;

/** Wall-clock milliseconds with sub-millisecond precision, comparable between processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** One funded account and where its sends go. */
export interface Lane {
  readonly address: string;
  readonly privateKey: string;
  readonly accountNumber: number;
  readonly to: string;
}

export interface ClientSpec {
  readonly chainId: string;
  readonly denom: string;
  readonly rpc: string;
  readonly rest: string;
  readonly lanes: readonly Lane[];
  /** Txs signed ahead per lane (sequence 0 upwards). */
  readonly txsPerLane: number;
  /** Pause before resending a tx refused with "mempool is full". */
  readonly retryMs: number;
  /** Where the client writes its ClientResult. */
  readonly out: string;
  /** Every lane over JSON-RPC broadcast_tx_sync (default: half over REST). */
  readonly rpcOnly?: boolean;
  /** The client's offered rate, tx/s over all its lanes, each lane on its own schedule (default: as fast as answers come). */
  readonly offeredTxPerSec?: number;
}

/** A tx CheckTx accepted: its hash (upper-case hex) and when it was sent and answered (nowMs). */
export interface Sent {
  readonly hash: string;
  /** Its slot at the offered rate (submit when none): a lane behind its slots sends late. */
  readonly due: number;
  readonly submit: number;
  readonly ack: number;
  readonly rpc: boolean;
}

export interface ClientResult {
  readonly sent: readonly Sent[];
  /** Refusals by code (-1: a transport or protocol error), resends included. */
  readonly refusals: Readonly<Record<string, number>>;
  readonly refusalSamples: Readonly<Record<string, string>>;
  readonly retries: number;
  /** Lanes that sent every tx they had signed before the window ended. */
  readonly exhaustedLanes: number;
  readonly signMs: number;
  readonly signed: number;
}

export interface QuerySpec {
  readonly rpc: string;
  readonly rest: string;
  readonly grpc: string;
  readonly addresses: readonly string[];
  readonly denom: string;
  readonly inFlight: number;
  readonly out: string;
}

export interface QueryResult {
  readonly byKind: Readonly<Record<string, { readonly ok: number; readonly errors: number; readonly p50Ms: number; readonly p99Ms: number }>>;
  readonly errorSamples: readonly string[];
}
