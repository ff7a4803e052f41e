// The transaction service every interface shares: admission to the mempool (CometBFT's own refusals,
// then the app's CheckTx), simulation, and committed-tx lookup — and on top of them the Cosmos SDK's
// `cosmos.tx.v1beta1.Service` (BroadcastTx, Simulate, GetTx) as bytes in, bytes out, which gRPC
// serves as it is and REST after converting gateway JSON. JSON-RPC's broadcast_tx_* and tx call the
// same admission and lookup, so the three interfaces cannot disagree.
import { ChaindError, errorMessage } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { status } from './grpc-status.ts';
import { TxResponse } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import {
  BroadcastMode,
  broadcastModeToJSON,
  BroadcastTxRequest,
  BroadcastTxResponse,
  GetTxRequest,
  GetTxResponse,
  SimulateRequest,
  SimulateResponse,
} from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { Tx as ProtoTx } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { ResponseCheckTx } from 'cosmjs-types/tendermint/abci/types';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { MempoolRefusal } from '@chaind/sdk/admission';
import type { BaseApp, Logger, Tx, TxRunResult } from '@chaind/sdk/app';
import { formatRFC3339 } from '@chaind/sdk/types';
import type { ConsensusDriver, TxAdmission } from './driver.ts';
import { txHash } from './hash.ts';
import { grpcCodeOf } from './query/status.ts';
import { CometRpcError } from './abci/comet-rpc.ts';

/** What the tx service needs of the node (JSON-RPC's environment has all of it). */
export interface TxNode {
  /** `height` is the committed height: nothing above it is shown. */
  readonly driver: ConsensusDriver;
  readonly app: Pick<BaseApp<Tx>, 'simulate'>;
  /** Where broadcasts go: the driver's admission (`driver.admission`). */
  readonly admission: TxAdmission;
  readonly logger: Logger;
}

/** A failed tx-service call: the gRPC code and the message (REST maps the code to its HTTP status). */
export class TxServiceError extends ChaindError<status> {
  override readonly name = 'TxServiceError';
  constructor(code: status, message: string) {
    super(code, message);
  }
}

const hexUpper = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

/**
 * `CListMempool.CheckTx` through the admission pipeline: the mempool's own refusals reject with a
 * MempoolRefusal (CometBFT's texts); CheckTx's failures are results.
 */
export function checkTx(node: Pick<TxNode, 'admission'>, tx: Uint8Array): Promise<ResponseCheckTx> {
  return node.admission.submit(tx);
}

/**
 * broadcast_tx_async: the refusals that need no CheckTx answer the call (thrown); CheckTx itself runs
 * after the caller has its answer, its outcome only logged.
 */
export function checkTxLater(node: TxNode, tx: Uint8Array): void {
  node.admission.submitLater(tx).then(
    (r) => {
      if (r.code !== 0) node.logger.debug('async broadcast: CheckTx refused the tx', { hash: hexUpper(txHash(tx)), code: r.code, log: r.log });
    },
    (e: unknown) => {
      node.logger.debug('async broadcast: the mempool refused the tx', { hash: hexUpper(txHash(tx)), error: errorMessage(e) });
    },
  );
}

export type SimulateOutcome =
  | { readonly ok: true; readonly response: SimulateResponse; readonly result: TxRunResult }
  | { readonly ok: false; readonly code: status; readonly message: string; readonly result?: TxRunResult };

/**
 * The SDK's `txServer.Simulate`: the tx bytes (or the deprecated `tx`, re-encoded: Tx and TxRaw share
 * their wire format) run in the app's simulate mode on the latest state. A failing tx gives the SDK's
 * text; its code is the tx error's gRPC code (status.ts), e.g. INVALID_ARGUMENT for bytes that are no tx.
 */
export function simulateTx(app: TxNode['app'], req: SimulateRequest): SimulateOutcome {
  const txBytes = req.txBytes.length > 0 ? req.txBytes : req.tx !== undefined ? ProtoTx.encode(req.tx).finish() : new Uint8Array(0);
  if (txBytes.length === 0) return { ok: false, code: status.INVALID_ARGUMENT, message: 'empty txBytes is not allowed' };
  const r = app.simulate(txBytes);
  if (r.code !== 0) {
    const message = `${r.log} With gas wanted: '${r.gasWanted}' and gas used: '${r.gasUsed}' `;
    return { ok: false, code: grpcCodeOf(r.codespace, r.code, r.log), message, result: r };
  }
  const response = SimulateResponse.fromPartial({
    gasInfo: { gasWanted: r.gasWanted, gasUsed: r.gasUsed },
    result: { data: r.data, log: r.log, events: r.events, msgResponses: r.msgResponses },
  });
  return { ok: true, response, result: r };
}

const SUPPORTED_MODES = 'BROADCAST_MODE_SYNC or BROADCAST_MODE_ASYNC';

/**
 * `client.TxServiceBroadcast`: SYNC answers with CheckTx's result, ASYNC with the hash only. The
 * mempool's refusals are answers, not errors (the SDK's CheckCometError): codes 19, 20, 21 of the
 * sdk codespace, with CometBFT's text as raw_log.
 */
/** CometBFT's RPC out of reach (a node behind CometBFT): UNAVAILABLE, as the SDK's gRPC gateway answers. */
function unavailable(e: unknown): never {
  if (e instanceof CometRpcError) throw new TxServiceError(status.UNAVAILABLE, e.message);
  throw e;
}

export async function broadcastTx(node: TxNode, req: BroadcastTxRequest): Promise<BroadcastTxResponse> {
  if (req.txBytes.length === 0) throw new TxServiceError(status.INVALID_ARGUMENT, 'invalid empty tx');
  if (req.mode !== BroadcastMode.BROADCAST_MODE_SYNC && req.mode !== BroadcastMode.BROADCAST_MODE_ASYNC) {
    // BLOCK left the SDK in v0.47; UNSPECIFIED (an absent mode) is refused there too
    const name = Object.hasOwn(BroadcastMode, req.mode) ? broadcastModeToJSON(req.mode) : String(req.mode);
    throw new TxServiceError(status.INVALID_ARGUMENT, `unsupported broadcast mode ${name}: use ${SUPPORTED_MODES}`);
  }
  const txhash = hexUpper(txHash(req.txBytes));
  try {
    if (req.mode === BroadcastMode.BROADCAST_MODE_ASYNC) {
      checkTxLater(node, req.txBytes);
      return { txResponse: TxResponse.fromPartial({ txhash }) };
    }
    const r = await checkTx(node, req.txBytes);
    return { txResponse: TxResponse.fromPartial({ txhash, code: r.code, codespace: r.codespace, data: hexUpper(r.data), rawLog: r.log }) };
  } catch (e) {
    if (!(e instanceof MempoolRefusal)) unavailable(e);
    return { txResponse: TxResponse.fromPartial({ txhash, code: e.error.code, codespace: e.error.codespace, rawLog: e.message }) };
  }
}

/** Go's `time.Format(time.RFC3339)` of a UTC block time: whole seconds. */
function rfc3339(t: Timestamp | undefined): string {
  return t === undefined ? '' : formatRFC3339(t, 'none');
}

const TX_HASH = /^[0-9a-fA-F]{64}$/;

/** The SDK's `txServer.GetTx`: the decoded tx and its TxResponse (height, result, block time). */
export async function getTx(node: TxNode, req: GetTxRequest): Promise<GetTxResponse> {
  if (req.hash === '') throw new TxServiceError(status.INVALID_ARGUMENT, 'tx hash cannot be empty');
  if (!TX_HASH.test(req.hash)) throw new TxServiceError(status.INVALID_ARGUMENT, `invalid tx hash ${JSON.stringify(req.hash)}: expected 64 hex characters`);
  const r = await node.driver.txs.committedTx(Buffer.from(req.hash, 'hex')).catch(unavailable);
  if (r === undefined) throw new TxServiceError(status.NOT_FOUND, `tx not found: ${req.hash}`);
  let tx: ProtoTx;
  try {
    tx = ProtoTx.decode(r.tx);
  } catch (e) {
    // the app accepted it into a block, so this is the node's problem, not the caller's
    throw new TxServiceError(status.INTERNAL, `tx ${req.hash} in block ${r.height} cannot be decoded: ${errorMessage(e)}`);
  }
  const res = r.result;
  const txResponse = TxResponse.fromPartial({
    height: r.height,
    txhash: hexUpper(r.hash),
    codespace: res.codespace,
    code: res.code,
    data: hexUpper(res.data),
    rawLog: res.log,
    info: res.info,
    gasWanted: res.gasWanted,
    gasUsed: res.gasUsed,
    // the stored bytes are a TxRaw, whose wire format is the Tx's
    tx: { typeUrl: '/cosmos.tx.v1beta1.Tx', value: r.tx },
    timestamp: rfc3339(r.time),
    events: res.events,
  });
  return { tx, txResponse };
}

export const TX_SERVICE = 'cosmos.tx.v1beta1.Service';

/** One method of the service, bytes to bytes; rejects with TxServiceError. */
export type TxMethod = (node: TxNode, request: Uint8Array) => Promise<Uint8Array>;

interface Codec<T> {
  decode(b: Uint8Array): T;
  encode(m: T): { finish(): Uint8Array };
}

function bytesMethod<Req, Res>(path: string, req: Codec<Req>, res: Codec<Res>, call: (node: TxNode, r: Req) => Res | Promise<Res>): TxMethod {
  return async (node, request) => {
    let decoded: Req;
    try {
      decoded = req.decode(request);
    } catch (e) {
      throw new TxServiceError(status.INVALID_ARGUMENT, `cannot decode request for ${path}: ${errorMessage(e)}`);
    }
    return res.encode(await call(node, decoded)).finish();
  };
}

const PATH = (name: string): string => `/${TX_SERVICE}/${name}`;

function simulateMethod(node: TxNode, r: SimulateRequest): SimulateResponse {
  const out = simulateTx(node.app, r);
  if (!out.ok) throw new TxServiceError(out.code, out.message);
  return out.response;
}

/** `/cosmos.tx.v1beta1.Service/<Method>` → its implementation. */
export const TX_METHODS: ReadonlyMap<string, TxMethod> = new Map([
  [PATH('Simulate'), bytesMethod(PATH('Simulate'), SimulateRequest, SimulateResponse, simulateMethod)],
  [PATH('GetTx'), bytesMethod(PATH('GetTx'), GetTxRequest, GetTxResponse, getTx)],
  [PATH('BroadcastTx'), bytesMethod(PATH('BroadcastTx'), BroadcastTxRequest, BroadcastTxResponse, broadcastTx)],
]);
