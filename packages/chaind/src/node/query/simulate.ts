// ABCI Query as JSON-RPC's abci_query and CometBFT's Query connection answer it: the app's query
// router, plus `cosmos.tx.v1beta1.Service/Simulate` for apps whose router does not serve it (CosmJS
// estimates gas with it when the fee is "auto"). The simulation is the tx service's (tx-service.ts);
// over ABCI a failure is a gRPC Unknown error, which baseapp turns into ErrUnknownRequest (code 6)
// carrying the gRPC text.
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { status } from '@grpc/grpc-js';
import { abciError, errors, type BaseApp, type QueryRouter, type Tx } from '@chaind/sdk/app';
import { simulateTx } from '../tx-service.ts';

/** What answering a query needs of the app; the query router tells whether the app serves a path itself. */
export type AnswerApp = Pick<BaseApp<Tx>, 'query' | 'simulate'> & { readonly modules: { readonly queryRouter: Pick<QueryRouter, 'has'> } };

export const SIMULATE_PATH = '/cosmos.tx.v1beta1.Service/Simulate';

/** The Simulate query's response at `height` (the latest: simulation always runs on the latest state). */
export function simulateQuery(app: AnswerApp, data: Uint8Array, height: bigint): ResponseQuery {
  const base: ResponseQuery = { code: 0, log: '', info: '', index: 0n, key: new Uint8Array(0), value: new Uint8Array(0), proofOps: undefined, height, codespace: '' };
  try {
    let req: SimulateRequest;
    try {
      req = SimulateRequest.decode(data);
    } catch (e) {
      throw errors.txDecode.withText(`cannot decode request for ${SIMULATE_PATH}: ${(e as Error).message}`);
    }
    const out = simulateTx(app, req);
    if (!out.ok) {
      if (out.code === status.INVALID_ARGUMENT && out.result === undefined) throw errors.invalidRequest.wrap(`rpc error: code = InvalidArgument desc = ${out.message}`);
      // the SDK's txServer reports every failed simulation as Unknown
      throw errors.unknownRequest.wrap(`rpc error: code = Unknown desc = ${out.message}`);
    }
    return { ...base, value: SimulateResponse.encode(out.response).finish() };
  } catch (e) {
    return { ...base, ...abciError(e) };
  }
}

/** The app's answer to a query at the latest height `latest`; the app's own Simulate route wins once it has one. */
export function answerQuery(app: AnswerApp, req: RequestQuery, latest: bigint): ResponseQuery {
  return req.path === SIMULATE_PATH && !app.modules.queryRouter.has(req.path) ? simulateQuery(app, req.data, latest) : app.query(req);
}
