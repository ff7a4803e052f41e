// Assembles a running node from a home directory: config, genesis, the chain app, a consensus driver
// and the servers. Solo mode (the default) adds the consensus key, the block store, the mempool and
// the solo driver; behind CometBFT (`--with-comet=false`) the ABCI driver serves CometBFT instead.
// `chaind start` and `chaind dev` call it.
import { ChaindError } from '@chaind/errors';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@chaind/sdk/app';
import { parseGenesis, validateGenesis, type GenesisDoc } from '@chaind/sdk/genesis';
import { Mempool } from '@chaind/sdk/admission';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { createChainApp, type ChainApp } from '../app.ts';
import { readPrivValidatorKey } from './keys.ts';
import {
  configPaths,
  formatAbciAddress,
  loadConfig,
  pairingProblems,
  STATE_DB_MAX_BYTES_SETTING,
  resolveServerAddresses,
  rpcDialUrl,
  type LoadedConfig,
  type ServerAddresses,
  type ServerOverrides,
} from '../config/index.ts';
import type { Upgrade } from '../upgrades/index.ts';
import { BlockStore } from './blockstore.ts';
import { stopResultFromError, type ConsensusDriver, type DriverStopResult } from './driver.ts';
import { SoloDriver } from './solo.ts';
import { AbciDriver } from './abci/driver.ts';
import { CometRpc } from './abci/comet-rpc.ts';
import { createNodeMetrics, metricsEndpoint, nopMetrics, startMetricsServer, type MetricsServer, type NodeMetrics } from './metrics/index.ts';
import { lastSimulation } from './rest/dashboard.ts';


export interface NodeOptions {
  readonly home: string;
  readonly overrides?: ServerOverrides;
  /** `--unsafe-skip-upgrades` */
  readonly skipUpgradeHeights?: readonly bigint[];
  /** `--halt-height` (overrides app.toml's halt-height when given) */
  readonly haltHeight?: bigint;
  readonly logger: Logger;
  /** The upgrades this binary knows (default: the release's). */
  readonly upgrades?: readonly Upgrade[];
}

/** A server the node runs beside the driver; closed before the databases. */
export interface NodeServer {
  readonly name: string;
  readonly url: string;
  close(): Promise<void>;
}

/** What only a solo node has: it makes, signs and keeps the blocks. */
export interface SoloParts {
  readonly driver: SoloDriver;
  /** This node's consensus key (ed25519 public key). */
  readonly validatorPubKey: Uint8Array;
  readonly blockStore: BlockStore;
  readonly mempool: Mempool;
}

/** Everything a server needs from the node. */
export interface NodeParts {
  readonly home: string;
  readonly config: LoadedConfig;
  readonly addresses: ServerAddresses;
  readonly genesis: GenesisDoc;
  readonly chain: ChainApp;
  readonly driver: ConsensusDriver;
  /** Absent behind CometBFT. */
  readonly solo?: SoloParts;
  readonly logger: Logger;
  /** The node's metrics (nopMetrics when [instrumentation] is off). */
  readonly metrics: NodeMetrics;
}

export type ServerStarter = (parts: NodeParts) => Promise<NodeServer[]>;

export interface RunningNode {
  readonly parts: NodeParts;
  readonly servers: readonly NodeServer[];
  /** Resolves once the node has stopped and closed everything, with why it stopped. */
  readonly done: Promise<DriverStopResult>;
  /** Finishes the block in progress, closes servers and databases. */
  stop(): Promise<DriverStopResult>;
}

/** A node that could not start, with the result its exit code comes from. */
export class NodeStartError extends ChaindError<'node-start'> {
  override readonly name = 'NodeStartError';
  constructor(readonly result: DriverStopResult) {
    super('node-start', result.reason === 'error' ? result.error.message : result.reason === 'halt' ? result.message : result.reason);
  }
}

export async function startNode(o: NodeOptions, startServers: ServerStarter = async () => []): Promise<RunningNode> {
  const logger = o.logger;
  const config = await loadConfig(o.home);
  for (const w of config.warnings) logger.warn(w);
  const addresses = resolveServerAddresses(config, o.overrides);
  const genesisFile = join(o.home, 'config', 'genesis.json');
  let genesis: GenesisDoc;
  try {
    genesis = parseGenesis(readFileSync(genesisFile, 'utf8'));
  } catch (e) {
    throw new Error(`${genesisFile}: ${(e as Error).message}`);
  }
  let chain: ChainApp;
  try {
    chain = createChainApp({
      dbPath: join(o.home, 'data', 'application.db'),
      upgradeInfoPath: upgradeInfoPath(o.home),
      chainId: genesis.chainId,
      logger,
      skipUpgradeHeights: new Set(o.skipUpgradeHeights ?? []),
      minGasPrices: config.app.minimumGasPrices,
      simulationGasLimit: config.app.queryGasLimit,
      simulationMaxTxBytes: config.node.mempool.maxTxBytes,
      stateDbMaxBytes: { maxBytes: Number(config.app.stateDbMaxBytes), setting: STATE_DB_MAX_BYTES_SETTING },
      verifiedSignatures: { capacity: config.app.verifiedSignaturesCacheSize, maxBytes: config.app.verifiedSignaturesCacheBytes },
      upgrades: o.upgrades,
    });
  } catch (e) {
    // e.g. BINARY UPDATED BEFORE TRIGGER, refused before any block: the halt's exit code applies
    throw new NodeStartError(stopResultFromError(e, 0n));
  }
  const haltHeight = o.haltHeight ?? (config.app.haltHeight > 0n ? config.app.haltHeight : undefined);
  let metrics: NodeMetrics = nopMetrics;
  let metricsServer: MetricsServer | undefined;
  try {
    const m = metricsEndpoint(config, addresses.abci.withComet);
    for (const w of m.warnings) logger.warn(w);
    if (m.endpoint !== undefined) {
      const p = createNodeMetrics(m.endpoint.namespace);
      metricsServer = await startMetricsServer({ ...m.endpoint.listenAddr, maxOpenConnections: m.endpoint.maxOpenConnections, registry: p.registry });
      metrics = p.metrics;
      logger.info('metrics server listening', { url: metricsServer.url });
    }
  } catch (e) {
    await chain.close();
    throw e;
  }
  let driver: ConsensusDriver;
  let stopDriver: () => Promise<DriverStopResult>;
  let solo: SoloParts | undefined;
  let closeStores = async (): Promise<void> => {
    await metricsServer?.close();
    await chain.close();
  };
  try {
    validateGenesis(genesis, chain.app.modules);
    if (!addresses.abci.withComet) {
      for (const p of pairingProblems(configPaths(o.home).node, config.node, addresses.abci.address)) logger.warn(p);
      const comet = new CometRpc({
        url: rpcDialUrl(addresses.rpc),
        timeoutMs: config.app.abci.cometRpcTimeoutMs,
        maxTxBytes: config.node.mempool.maxTxBytes,
        maxResponseBytes: config.app.abci.cometRpcMaxResponseBytes,
      });
      const abci = await AbciDriver.listen(
        {
          app: chain.app,
          address: formatAbciAddress(addresses.abci.address),
          maxMessageBytes: config.app.abci.maxMessageBytes,
          maxConnections: config.app.abci.maxConnections,
          keepAliveInitialDelayMs: config.app.abci.keepAliveInitialDelayMs,
          comet,
          logger,
          haltHeight,
          metrics,
        },
        genesis.chainId,
      );
      driver = abci;
      stopDriver = () => abci.stop();
    } else {
      const key = await readPrivValidatorKey(o.home);
      const blockStore = BlockStore.open(join(o.home, 'data', 'blockstore.db'));
      closeStores = async () => {
        await metricsServer?.close();
        await blockStore.close();
        await chain.close();
      };
      const app = chain.app;
      const mempool = new Mempool({
        // CheckTx timed here: the mempool itself keeps no clock
        app: { checkTx: (req) => metrics.timeCheckTx(() => app.checkTx(req)), decodeTx: (b) => app.decodeTx(b), modules: app.modules },
        maxTxs: config.node.mempool.size,
        maxTxsBytes: config.node.mempool.maxTxsBytes,
        maxTxBytes: config.node.mempool.maxTxBytes,
        cacheSize: config.node.mempool.cacheSize,
        preverify: (tx) => chain.preverify(tx),
        refused: (tx) => chain.refused(tx),
        arrivals: {
          maxPendingTxs: config.node.mempool.maxPendingTxs,
          maxPendingBytes: config.node.mempool.maxPendingBytes,
          preverifyAhead: config.node.mempool.preverifyAhead,
          preverifyAheadBytes: config.node.mempool.preverifyAheadBytes,
        },
      });
      const soloDriver = await SoloDriver.start({
        app: chain.app,
        mempool,
        blockStore,
        genesis,
        validatorKey: { pubKey: key.pubKey, address: Buffer.from(key.address, 'hex'), privateKey: key.seed },
        blockIntervalMs: config.node.consensus.blockIntervalMs,
        logger,
        haltHeight,
        metrics,
      });
      metrics.mempool(() => ({ txs: mempool.size(), bytes: mempool.bytes() }));
      driver = soloDriver;
      stopDriver = () => soloDriver.stop();
      solo = { driver: soloDriver, validatorPubKey: key.pubKey, blockStore, mempool };
    }
  } catch (e) {
    await closeStores();
    throw new NodeStartError(stopResultFromError(e, chain.app.lastBlockHeight));
  }
  observeBlocks(driver, chain, metrics);
  metrics.simulation(() => lastSimulation(o.home));
  const parts: NodeParts = { home: o.home, config, addresses, genesis, chain, driver, solo, logger, metrics };
  let servers: NodeServer[] = [];
  try {
    servers = await startServers(parts);
  } catch (e) {
    await stopDriver();
    await closeStores();
    throw e;
  }
  let closing: Promise<DriverStopResult> | undefined;
  const shutdown = (result: DriverStopResult): Promise<DriverStopResult> =>
    (closing ??= (async () => {
      for (const s of servers) await s.close();
      await closeStores();
      return result;
    })());
  const done = driver.done.then(shutdown);
  return {
    parts,
    servers,
    done,
    stop: async () => {
      await stopDriver();
      return done;
    },
  };
}

/** Each committed block, and the plan it leaves scheduled, into the metrics (both drivers announce their blocks). */
function observeBlocks(driver: ConsensusDriver, chain: ChainApp, metrics: NodeMetrics): void {
  if (metrics === nopMetrics) return;
  const plan = (height: bigint): void => {
    try {
      const p = chain.app.withQueryContext((ctx) => chain.upgrade.getUpgradePlan(ctx));
      metrics.plan(p === undefined ? undefined : { name: p.name, height: p.height }, height);
    } catch {
      // the app is closing: the last value stays
    }
  };
  plan(driver.height);
  driver.onBlock((b) => {
    metrics.blockCommitted(b.height, b.txHashes.length);
    plan(b.height);
  });
}
