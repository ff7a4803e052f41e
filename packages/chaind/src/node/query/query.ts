// The one query path both servers take (docs/architecture.md "The one query path"): the app's ABCI Query with
// the gRPC method path and the request bytes, exactly as JSON-RPC abci_query does.
import { status } from '../grpc-status.ts';
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { grpcCodeOf } from './status.ts';

/** What the servers need of the application (BaseApp has it). */
export interface QueryApp {
  query(req: RequestQuery): ResponseQuery;
  /** 0 until the first block is committed: no state to answer from */
  readonly lastBlockHeight: bigint;
  readonly modules: { readonly queryRouter: { paths(): string[] } };
}

export type QueryResult =
  | { readonly ok: true; readonly value: Uint8Array; readonly height: bigint }
  | { readonly ok: false; readonly code: status; readonly message: string; readonly height: bigint };

/** Behind CometBFT until its InitChain and first block (a network waiting for its validators), and in solo until block 1. */
export const NO_STATE_YET = "no state yet: waiting for CometBFT's InitChain and the first block";

export function runQuery(app: QueryApp, path: string, data: Uint8Array, height: bigint): QueryResult {
  // a temporary condition, not the caller's fault nor ours: UNAVAILABLE (HTTP 503), retried by clients
  if (app.lastBlockHeight === 0n) return { ok: false, code: status.UNAVAILABLE, message: NO_STATE_YET, height: 0n };
  const r = app.query({ path, data, height, prove: false });
  if (r.code === 0) return { ok: true, value: r.value, height: r.height };
  return { ok: false, code: grpcCodeOf(r.codespace, r.code, r.log), message: r.log, height: r.height };
}
