// The route table (CometBFT rpc/core/routes.go, minus the websocket, evidence, consensus-dump and
// unsafe methods a solo node has no use for).
import type { RpcMethod } from '../env.ts';
import { blockMethods } from './blocks.ts';
import { infoMethods } from './info.ts';
import { txMethods } from './txs.ts';

export const ROUTES: ReadonlyMap<string, RpcMethod> = new Map(Object.entries({ ...infoMethods, ...blockMethods, ...txMethods }));
