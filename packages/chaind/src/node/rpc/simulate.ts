// `cosmos.tx.v1beta1.Service/Simulate` over abci_query, for apps whose query router does not serve it
// (CosmJS estimates gas with it when the fee is "auto"). Mirrors the Cosmos SDK's tx service: the
// tx bytes (or the deprecated `tx`, re-encoded) run through the app's simulate mode; a failure is a
// gRPC Unknown error, which baseapp turns into ErrUnknownRequest (code 6) carrying the gRPC text.
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { Tx } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { abciError, errors } from '@chaind/sdk/app';
import type { RpcApp } from './env.ts';

export const SIMULATE_PATH = '/cosmos.tx.v1beta1.Service/Simulate';

/** The Simulate query's response at `height` (the latest: simulation always runs on the latest state). */
export function simulateQuery(app: RpcApp, data: Uint8Array, height: bigint): ResponseQuery {
  const base: ResponseQuery = { code: 0, log: '', info: '', index: 0n, key: new Uint8Array(0), value: new Uint8Array(0), proofOps: undefined, height, codespace: '' };
  try {
    let req: SimulateRequest;
    try {
      req = SimulateRequest.decode(data);
    } catch (e) {
      throw errors.txDecode.withText(`cannot decode request for ${SIMULATE_PATH}: ${(e as Error).message}`);
    }
    // Tx and TxRaw share their wire format: a Tx re-encoded is the TxRaw the SDK's TxEncoder makes of it
    const txBytes = req.txBytes.length > 0 ? req.txBytes : req.tx !== undefined ? Tx.encode(req.tx).finish() : new Uint8Array(0);
    if (txBytes.length === 0) throw errors.invalidRequest.wrap('rpc error: code = InvalidArgument desc = empty txBytes is not allowed');
    const r = app.simulate(txBytes);
    if (r.code !== 0) {
      throw errors.unknownRequest.wrap(`rpc error: code = Unknown desc = ${r.log} With gas wanted: '${r.gasWanted}' and gas used: '${r.gasUsed}' `);
    }
    const res = SimulateResponse.fromPartial({
      gasInfo: { gasWanted: r.gasWanted, gasUsed: r.gasUsed },
      result: { data: r.data, log: r.log, events: r.events, msgResponses: r.msgResponses },
    });
    return { ...base, value: SimulateResponse.encode(res).finish() };
  } catch (e) {
    return { ...base, ...abciError(e) };
  }
}
