import { nodeIdOf, readNodeKey } from './keys.ts';
import type { NodeParts, NodeServer } from './node.ts';
import type { TxNode } from './tx-service.ts';

/** Loads the servers' modules now: `chaind standby` does, so that the node it becomes at the halt starts them at once. */
export async function preloadServers(): Promise<void> {
  await Promise.all([import('./rpc/index.ts'), import('./rest/index.ts'), import('./grpc/index.ts')]);
}

/**
 * The servers `chaind start` runs: JSON-RPC in solo mode (behind CometBFT, CometBFT serves it); REST and gRPC when enabled.
 * Each is loaded as it starts, JSON-RPC first: it reports the blocks (chainvisor waits on it after an
 * upgrade), and REST and gRPC bring the heavier modules (Fastify, grpc-js).
 */
export async function startNodeServers(p: NodeParts): Promise<NodeServer[]> {
  const servers: NodeServer[] = [];
  try {
    if (p.solo !== undefined) {
      const { startRpcServer } = await import('./rpc/index.ts');
      const nodeKey = await readNodeKey(p.home);
      const rpcConfig = p.config.node.rpc;
      const rpc = await startRpcServer({
        host: p.addresses.rpc.host,
        port: p.addresses.rpc.port,
        driver: p.solo.driver,
        app: p.chain.app,
        mempool: p.solo.mempool,
        genesis: p.genesis,
        nodeInfo: { id: nodeIdOf(nodeKey.pubKey), moniker: p.config.node.moniker, validatorPubKey: p.solo.validatorPubKey },
        logger: p.logger,
        maxBodyBytes: rpcConfig.maxBodyBytes,
        maxRequestBatchSize: rpcConfig.maxRequestBatchSize,
        maxOpenConnections: rpcConfig.maxOpenConnections,
        broadcastTxCommitTimeoutMs: rpcConfig.timeoutBroadcastTxCommitMs,
        allowedHosts: rpcConfig.allowedHosts,
        broadcastViaGet: rpcConfig.broadcastViaGet,
        search: { maxHeights: rpcConfig.maxSearchHeights, maxResults: rpcConfig.maxSearchResults },
        writeLimits: { writeTimeoutMs: rpcConfig.writeTimeoutMs, maxBufferBytes: rpcConfig.maxWriteBufferBytes },
      });
      servers.push({ name: 'json-rpc', url: rpc.url, close: () => rpc.close() });
    }
    // the tx service (REST tx routes, gRPC cosmos.tx.v1beta1.Service) works on the same parts as JSON-RPC's broadcast
    const txNode: TxNode = { driver: p.driver, admission: p.driver.admission, app: p.chain.app, logger: p.logger };
    if (p.addresses.api.enable) {
      const { startRestServer } = await import('./rest/index.ts');
      const api = p.config.app.api;
      const rest = await startRestServer({
        host: p.addresses.api.address.host,
        port: p.addresses.api.address.port,
        app: p.chain.app,
        txNode,
        logger: p.logger,
        maxOpenConnections: api.maxOpenConnections,
        readTimeoutMs: api.readTimeoutMs,
        idleTimeoutMs: api.idleTimeoutMs,
        maxWriteBufferBytes: api.maxWriteBufferBytes,
        dashboard: {
          home: p.home,
          driver: p.driver,
          history: () => p.chain.app.withQueryContext((ctx) => p.chain.upgradeHistory(ctx)),
          ownReadiness: () => {
            const plan = p.chain.app.withQueryContext((ctx) => p.chain.upgrade.getUpgradePlan(ctx));
            return plan === undefined ? null : p.localReadiness(plan);
          },
        },
      });
      servers.push({ name: 'rest', url: rest.url, close: () => rest.close() });
    }
    if (p.addresses.grpc.enable) {
      const { startGrpcServer } = await import('./grpc/index.ts');
      const { enable: _enable, address: _address, ...limits } = p.config.app.grpc;
      const grpc = await startGrpcServer({
        host: p.addresses.grpc.address.host,
        port: p.addresses.grpc.address.port,
        app: p.chain.app,
        txNode,
        logger: p.logger,
        limits,
      });
      servers.push({ name: 'grpc', url: grpc.address, close: () => grpc.close() });
    }
    return servers;
  } catch (e) {
    // a port in use must not leave the other servers listening
    for (const s of servers) await s.close();
    throw e;
  }
}
