// ABCI Query as JSON-RPC's abci_query and CometBFT's Query connection answer it: the app's query
// router, CometBFT's /p2p/filter/ queries (accepted), `prove` refused until proofs exist, plus
// `cosmos.tx.v1beta1.Service/Simulate` for apps whose router does not serve it (CosmJS estimates gas
// with it when the fee is "auto"). The simulation is the tx service's (tx-service.ts); over ABCI a
// failure is a gRPC Unknown error, which baseapp turns into ErrUnknownRequest (code 6) carrying the
// gRPC text.
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { status } from '../grpc-status.ts';
import { abciError, errors, type BaseApp, type QueryRouter, type Tx } from '@chaind/sdk/app';
import { simulateTx } from '../tx-service.ts';
import { errorMessage } from '@chaind/errors';

/** What answering a query needs of the app; the query router tells whether the app serves a path itself. */
export type AnswerApp = Pick<BaseApp<Tx>, 'query' | 'simulate'> & { readonly modules: { readonly queryRouter: Pick<QueryRouter, 'has'> } };

export const SIMULATE_PATH = '/cosmos.tx.v1beta1.Service/Simulate';

/** The Simulate query's response at `height` (the latest: simulation always runs on the latest state). */
export function simulateQuery(app: AnswerApp, data: Uint8Array, height: bigint): ResponseQuery {
  const base: ResponseQuery = {
    code: 0,
    log: '',
    info: '',
    index: 0n,
    key: new Uint8Array(0),
    value: new Uint8Array(0),
    proofOps: undefined,
    height,
    codespace: '',
  };
  try {
    let req: SimulateRequest;
    try {
      req = SimulateRequest.decode(data);
    } catch (e) {
      throw errors.txDecode.withText(`cannot decode request for ${SIMULATE_PATH}: ${errorMessage(e)}`);
    }
    const out = simulateTx(app, req);
    if (!out.ok) {
      if (out.code === status.INVALID_ARGUMENT && out.result === undefined)
        throw errors.invalidRequest.wrap(`rpc error: code = InvalidArgument desc = ${out.message}`);
      // the SDK's txServer reports every failed simulation as Unknown
      throw errors.unknownRequest.wrap(`rpc error: code = Unknown desc = ${out.message}`);
    }
    return { ...base, value: SimulateResponse.encode(out.response).finish() };
  } catch (e) {
    return { ...base, ...abciError(e) };
  }
}

/** CometBFT's peer filter queries (config.toml filter_peers): any code but 0 refuses the peer. */
const P2P_FILTER_PATH = /^\/p2p\/filter\/(?:addr|id)\/./;

/**
 * The app's answer to a query at the latest height `latest`, the one place ABCI Query and JSON-RPC
 * abci_query are answered; the app's own Simulate route wins once it has one.
 */
export function answerQuery(app: AnswerApp, req: RequestQuery, latest: bigint): ResponseQuery {
  const base: ResponseQuery = {
    code: 0,
    log: '',
    info: '',
    index: 0n,
    key: new Uint8Array(0),
    value: new Uint8Array(0),
    proofOps: undefined,
    height: latest,
    codespace: '',
  };
  // an answer without the proof asked for would pass for a proven one
  if (req.prove) return { ...base, key: req.data, ...abciError(errors.invalidRequest.wrap('proofs are not supported yet: query without prove')) };
  // every peer is accepted, as by a Cosmos SDK app without peer filters (baseapp FilterPeerByAddrPort/ByID)
  if (P2P_FILTER_PATH.test(req.path)) return base;
  return req.path === SIMULATE_PATH && !app.modules.queryRouter.has(req.path) ? simulateQuery(app, req.data, latest) : app.query(req);
}
