// Assembles a running node from a home directory: config, genesis, the chain app, a consensus driver
// and the servers. Solo (`chaind dev`) adds the consensus key, the block store, the mempool and the solo
// driver; behind CometBFT the ABCI driver serves CometBFT instead, which `chaind start` runs as its child
// (--with-comet=true) or the operator runs (--with-comet=false). `chaind start` and `chaind dev` call it.
import type { Plan } from '@chaind/sdk/gen/chain/upgrade/v1beta1/upgrade';
import type { LocalReadiness } from '@chaind/sdk/x/upgrade';
import { localReadinessReader } from './readiness.ts';
import { ChaindError, errorMessage } from '@chaind/errors';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@chaind/sdk/app';
import { parseGenesis, validateGenesis, type GenesisDoc } from '@chaind/sdk/genesis';
import { Mempool } from '@chaind/sdk/admission';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { createChainApp, type ChainApp } from '../app.ts';
import { explainGenesisError } from '../genesis-release.ts';
import { readPrivValidatorKey } from './keys.ts';
import {
  configPaths,
  formatAbciAddress,
  parseAbciAddress,
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
import { lastSimulation } from './side-files.ts';
import { cometRefusal, NodeModeError, soloBlockStorePath, soloRefusal } from './home-mode.ts';
import { CometBinaryError, findCometBinary } from '../comet/binary.ts';
import { CometProcess, type CometExit } from '../comet/process.ts';

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
  /** This node makes the blocks itself (`chaind dev`); otherwise CometBFT does (`chaind start`). */
  readonly solo?: boolean;
  /** Where CometBFT's own log lines go when chaind runs it (default: stderr, behind a prefix). */
  readonly cometLine?: (line: string) => void;
}

/** The unix socket in the home that chaind serves its CometBFT child on (a unix path has at most 107 bytes). */
const cometSocketOf = (home: string): string => `unix://${join(home, 'data', 'chaind-abci.sock')}`;
const MAX_UNIX_PATH_BYTES = 107;
/** How long a CometBFT that exited by itself leaves the driver to report a halt it caused (its exception reaches CometBFT first). */
const COMET_EXIT_SETTLE_MS = 3_000;

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
  /** What this node attests of the scheduled plan's release, from its own files (its vote extension's source). */
  readonly localReadiness: (plan: Plan) => LocalReadiness;
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
    throw new Error(`${genesisFile}: ${errorMessage(e)}`);
  }
  let chain: ChainApp;
  const localReadiness = localReadinessReader(o.home);
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
      localReadiness,
    });
  } catch (e) {
    // e.g. BINARY UPDATED BEFORE TRIGGER, refused before any block: the halt's exit code applies
    throw new NodeStartError(stopResultFromError(e, 0n));
  }
  const haltHeight = o.haltHeight ?? (config.app.haltHeight > 0n ? config.app.haltHeight : undefined);
  let metrics: NodeMetrics = nopMetrics;
  let metricsServer: MetricsServer | undefined;
  try {
    const m = metricsEndpoint(config, o.solo === true);
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
  let comet: { readonly binary: string; readonly proxyApp: string } | undefined;
  let abciDriver: AbciDriver | undefined;
  try {
    try {
      validateGenesis(genesis, chain.app.modules);
    } catch (e) {
      // a genesis made by another release (a newer `chaind init` than the release chainvisor runs): say which
      throw explainGenesisError(e, genesis);
    }
    if (o.solo !== true) {
      const refusal = cometRefusal(o.home);
      if (refusal !== undefined) throw new NodeModeError(refusal);
      let address = addresses.abci.address;
      if (addresses.abci.withComet) {
        // chaind runs CometBFT: both on this home, over a socket only the two share (unless --address says otherwise)
        const binary = findCometBinary({ configured: config.app.abci.cometbftBinary, home: o.home }).path;
        const proxyApp = o.overrides?.address ?? cometSocketOf(o.home);
        if (proxyApp.startsWith('unix://') && Buffer.byteLength(proxyApp.slice('unix://'.length)) > MAX_UNIX_PATH_BYTES) {
          throw new NodeModeError(
            `the home's path is too long for its ABCI socket ${proxyApp} (a unix socket path has at most ${MAX_UNIX_PATH_BYTES} bytes): give --address unix:///short/path.sock or tcp://127.0.0.1:PORT`,
          );
        }
        const parsed = parseAbciAddress(proxyApp);
        if (typeof parsed === 'string') throw new NodeModeError(`invalid ABCI address ${proxyApp}: ${parsed}`);
        if (parsed.kind === 'tcp' && parsed.port === 0)
          throw new NodeModeError(
            `--address ${proxyApp} has port 0: CometBFT must be told a fixed address to dial; give a port, or leave --address out (a unix socket in the home)`,
          );
        address = parsed;
        comet = { binary, proxyApp };
      } else {
        for (const p of pairingProblems(configPaths(o.home).node, config.node, address)) logger.warn(p);
      }
      const cometRpc = new CometRpc({
        url: rpcDialUrl(addresses.rpc),
        timeoutMs: config.app.abci.cometRpcTimeoutMs,
        maxTxBytes: config.node.mempool.maxTxBytes,
        maxResponseBytes: config.app.abci.cometRpcMaxResponseBytes,
      });
      const abci = await AbciDriver.listen(
        {
          app: chain.app,
          address: formatAbciAddress(address),
          maxMessageBytes: config.app.abci.maxMessageBytes,
          maxConnections: config.app.abci.maxConnections,
          keepAliveInitialDelayMs: config.app.abci.keepAliveInitialDelayMs,
          comet: cometRpc,
          logger,
          haltHeight,
          metrics,
          haltLingerMs: config.app.abci.haltLingerMs,
        },
        genesis.chainId,
      );
      driver = abci;
      abciDriver = abci;
      stopDriver = () => abci.stop();
    } else {
      const key = await readPrivValidatorKey(o.home);
      const refusal = soloRefusal(o.home, genesis, key.pubKey);
      if (refusal !== undefined) throw new NodeModeError(refusal);
      const blockStore = BlockStore.open(soloBlockStorePath(o.home));
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
    // refusals of the home or the binary are the operator's to fix: one "Error:" line, as a bad flag
    if (e instanceof NodeModeError || e instanceof CometBinaryError) throw e;
    throw new NodeStartError(stopResultFromError(e, chain.app.lastBlockHeight));
  }
  observeBlocks(driver, chain, metrics);
  metrics.simulation(() => lastSimulation(o.home));
  metrics.readiness(() => readinessRatio(chain));
  const parts: NodeParts = { home: o.home, config, addresses, genesis, chain, driver, solo, logger, metrics, localReadiness };
  // CometBFT's start and handshake (block H's replay after an upgrade) need only the ABCI server
  const cometLine = o.cometLine ?? ((line: string): void => void process.stderr.write(`cometbft| ${line}\n`));
  const child =
    comet === undefined ? undefined : CometProcess.start({ ...comet, home: o.home, stopTimeoutMs: config.app.abci.cometbftStopTimeoutMs, onLine: cometLine });
  if (child !== undefined) logger.info('started CometBFT', { binary: comet?.binary, pid: child.pid, proxy_app: comet?.proxyApp });
  let servers: NodeServer[] = [];
  let closing: Promise<DriverStopResult> | undefined;
  // CometBFT first (it saves its state and stops calling), then the app
  const shutdown = (result: DriverStopResult): Promise<DriverStopResult> =>
    (closing ??= (async () => {
      if (child?.running === true) logger.info('stopping CometBFT');
      abciDriver?.expectCometStop();
      await child?.stop();
      await stopDriver();
      for (const s of servers) await s.close();
      await closeStores();
      return result;
    })());
  let over = false;
  void driver.done.then(() => (over = true));
  void child?.exited.then(() => (over = true));
  try {
    // REST and gRPC take a second or more of this thread to start: once the network makes blocks with this
    // node (after an upgrade, once block H+1 is decided), so that their start-up holds up neither the
    // handshake's replay of block H nor the proposal of H+1 (and not at all when the node stopped meanwhile,
    // e.g. an old release halting again in that replay)
    if (child !== undefined && abciDriver !== undefined) await firstOf(abciDriver.serving, child.exited, driver.done, config.app.abci.serversStartWaitMs);
    if (!over) servers = await startServers(parts);
  } catch (e) {
    await shutdown({ reason: 'stopped', height: driver.height });
    throw e;
  }
  const ended = child === undefined ? driver.done : Promise.race([driver.done, child.exited.then((x) => cometEnded(x, driver))]);
  const done = ended.then(shutdown);
  return {
    parts,
    servers,
    done,
    stop: async () => {
      await (child === undefined ? stopDriver() : shutdown({ reason: 'stopped', height: driver.height }));
      return done;
    },
  };
}

/** Resolves at the first of these promises to settle, or after `ms`. */
function firstOf(a: Promise<unknown>, b: Promise<unknown>, c: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<void>((r) => (timer = setTimeout(r, ms)));
  return Promise.race([a, b, c, wait]).then(() => clearTimeout(timer));
}

/** What CometBFT's own exit means: the driver's halt when CometBFT stopped because of it, else an error naming its last lines. */
async function cometEnded(x: CometExit, driver: ConsensusDriver): Promise<DriverStopResult> {
  if (x.requested) return driver.done;
  const settled = await Promise.race([driver.done, new Promise<undefined>((r) => setTimeout(() => r(undefined), COMET_EXIT_SETTLE_MS).unref())]);
  if (settled !== undefined && settled.reason !== 'stopped') return settled;
  const how = x.signal !== null ? `signal ${x.signal}` : `code ${x.code}`;
  const last = x.lastLines.length > 0 ? `; its last lines:\n${x.lastLines.join('\n')}` : '';
  return { reason: 'error', error: new Error(`CometBFT exited by itself (${how})${last}`), height: driver.height };
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
    metrics.blockCommitted(b.height, b.txs.length, b.time);
    plan(b.height);
  });
}

/** The scheduled plan's ready share of the voting power, for the metric; undefined without a plan, with vote extensions off, or before the first block. */
function readinessRatio(chain: ChainApp): { name: string; ratio: number } | undefined {
  if (chain.app.lastBlockHeight === 0n) return undefined;
  const r = chain.app.withQueryContext((ctx) => chain.upgrade.readiness(ctx));
  if (r.plan === undefined || !r.enabled || r.totalPower === 0n) return undefined;
  return { name: r.plan.name, ratio: Number(r.readyFraction) };
}
