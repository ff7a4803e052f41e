// The node's CometBFT v0.38-compatible JSON-RPC server (CosmJS, the Cosmos SDK CLI, explorers).
export { startRpcServer, DEFAULT_BROADCAST_TX_COMMIT_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, type RpcServer, type RpcServerOptions } from './server.ts';
export type { RpcApp, RpcBlockStore, RpcMempool, RpcNodeInfo } from './env.ts';
export { SIMULATE_PATH } from '../query/simulate.ts';
