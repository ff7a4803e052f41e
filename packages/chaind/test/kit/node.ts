// Test support (not used by production code): a whole solo node — the real chaind app over LMDB, a
// mempool, the block store, the driver producing blocks every `blockIntervalMs` — with the RPC server
// in front of it on 127.0.0.1 and a free port.
import { join } from 'node:path';
import { MemoryLogger } from '@chaind/sdk/app';
import type { GenesisDoc } from '@chaind/sdk/genesis';
import { Mempool } from '@chaind/sdk/admission';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { consensusAddress } from '@chaind/sdk/x/validators';
import { sendMsg, testConsensusKey, type TestKey } from '@chaind/sdk/testing';
import { createChainApp, type ChainApp } from '../../src/app.ts';
import { CHAIN_ID, newHome, signTx, testGenesis } from './chain.ts';
import { BlockStore } from '../../src/node/blockstore.ts';
import type { ValidatorKey } from '../../src/node/commit.ts';
import { SoloDriver, type BlockEvent } from '../../src/node/solo.ts';
import { startRpcServer, type RpcServer, type RpcServerOptions } from '../../src/node/rpc/server.ts';

/** The test chain's validator consensus key (seed 0x01…). */
export const VALIDATOR_KEY: ValidatorKey = {
  pubKey: testConsensusKey(0),
  address: consensusAddress(testConsensusKey(0)),
  privateKey: new Uint8Array(32).fill(1),
};
export const NODE_ID = 'ab'.repeat(20);
export const MONIKER = 'rpc-test-node';

export interface TestNodeOptions {
  /** Accounts funded at genesis besides the test chain's VALIDATOR, ALICE and BOB. */
  readonly extraAccounts?: readonly string[];
  readonly blockIntervalMs?: number;
  /** No block loop: blocks come only from `produceBlock()` (two are produced before the server starts). */
  readonly manual?: boolean;
  /** Vote extensions on from the first block, as `chaind init` writes genesis: every block from 2 leads with the extended commit. */
  readonly voteExtensions?: boolean;
  /** Simulation limits of the chain app (app.toml query-gas-limit, the mempool's max_tx_bytes). */
  readonly chain?: { readonly simulationGasLimit?: bigint; readonly simulationMaxTxBytes?: number };
  readonly rpc?: Partial<
    Pick<
      RpcServerOptions,
      | 'maxBodyBytes'
      | 'broadcastTxCommitTimeoutMs'
      | 'maxRequestBatchSize'
      | 'maxOpenConnections'
      | 'allowedHosts'
      | 'broadcastViaGet'
      | 'search'
      | 'writeLimits'
    >
  >;
}

export class TestNode {
  private constructor(
    readonly logger: MemoryLogger,
    readonly home: string,
    readonly genesis: GenesisDoc,
    readonly chain: ChainApp,
    readonly mempool: Mempool,
    readonly blockStore: BlockStore,
    readonly driver: SoloDriver,
    readonly rpc: RpcServer,
  ) {}

  static async start(o: TestNodeOptions = {}): Promise<TestNode> {
    const home = newHome();
    const base = testGenesis(o.extraAccounts);
    const genesis: GenesisDoc =
      o.voteExtensions === true ? { ...base, consensusParams: { ...base.consensusParams, abci: { voteExtensionsEnableHeight: 1n } } } : base;
    const logger = new MemoryLogger();
    // the test binary knows no upgrades (as TestChain), so tests may schedule plans of any name
    const chain = createChainApp({
      dbPath: join(home, 'data', 'application.db'),
      upgradeInfoPath: upgradeInfoPath(home),
      chainId: CHAIN_ID,
      logger,
      upgrades: [],
      ...o.chain,
    });
    const mempool = new Mempool({ app: chain.app, preverify: (tx) => chain.preverify(tx) });
    const blockStore = BlockStore.open(join(home, 'data', 'blockstore.db'));
    const driverOptions = { app: chain.app, mempool, blockStore, genesis, validatorKey: VALIDATOR_KEY, blockIntervalMs: o.blockIntervalMs ?? 150, logger };
    const driver = o.manual === true ? SoloDriver.open(driverOptions) : await SoloDriver.start(driverOptions);
    if (o.manual === true) for (let i = 0; i < 2; i++) driver.produceBlock();
    const rpc = await startRpcServer({
      host: '127.0.0.1',
      port: 0,
      driver,
      app: chain.app,
      mempool,
      genesis,
      nodeInfo: { id: NODE_ID, moniker: MONIKER, validatorPubKey: VALIDATOR_KEY.pubKey },
      logger,
      ...o.rpc,
    });
    const n = new TestNode(logger, home, genesis, chain, mempool, blockStore, driver, rpc);
    await n.waitForHeight(2n);
    return n;
  }

  get url(): string {
    return this.rpc.url;
  }

  /** Resolves once a committed block satisfies `pred`; fails after `ms`. */
  waitForBlock(pred: (e: BlockEvent) => boolean, ms = 10_000): Promise<BlockEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching block within ${ms} ms (height ${this.driver.height})`));
      }, ms);
      const off = this.driver.onBlock((e) => {
        if (!pred(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }

  async waitForHeight(h: bigint, ms?: number): Promise<void> {
    if (this.driver.height < h) await this.waitForBlock((e) => e.height >= h, ms);
  }

  /** A bank send signed by `from` at its committed sequence plus `offset`. */
  send(from: TestKey, to: string, amount: string, offset = 0n): Uint8Array {
    return signTx(this.chain.app, from, [sendMsg(from.address, to, amount)], offset, 500_000n);
  }

  /** Stops the server, then the driver, then closes the stores. */
  async stop(): Promise<void> {
    await this.rpc.close();
    await this.driver.stop();
    await this.chain.close();
    await this.blockStore.close();
  }
}

/** Until `cond` holds (checked every 5 ms, for at most 5 s): CheckTx of an async broadcast waits for its signatures' worker. */
export async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
