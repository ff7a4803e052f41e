// CometBFT's side of the ABCI protocol, for tests and benchmarks: the four connections opened in
// CometBFT's order (query, snapshot, mempool, consensus), its handshake (Info, InitChain or replay
// through FinalizeBlock + Commit), and a network's blocks decided once and executed by every app the
// way CometBFT's consensus would (PrepareProposal on the proposer, ProcessProposal, FinalizeBlock,
// Commit everywhere, then RECHECK of what is left in the mempool). Votes and p2p are CometBFT's
// concern, not the app's: every app here gets identical requests.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { AbciClient } from '@chaind/abci';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import {
  CheckTxType,
  ResponseProcessProposal_ProposalStatus,
  type RequestFinalizeBlock,
  type RequestInitChain,
  type Response,
  type ResponseCheckTx,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  type ResponseInitChain,
  type ResponseQuery,
} from 'cosmjs-types/tendermint/abci/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import { join } from 'node:path';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { MemoryLogger } from '@chaind/sdk/app';
import type { TestKey } from '@chaind/sdk/testing';
import { encodeTx } from '@chaind/sdk/tx';
import { toRequestInitChain, type GenesisDoc } from '@chaind/sdk/genesis';
import { upgradeInfoPath } from '@chaind/upgrade-plan';
import { createChainApp, type ChainApp } from '../../src/app.ts';
import { AbciDriver } from '../../src/node/abci/driver.ts';
import type { NodeMetrics } from '../../src/node/metrics/index.ts';
import { CometRpc } from '../../src/node/abci/comet-rpc.ts';
import type { HeaderTimes } from '../../src/node/abci/block-times.ts';
import type { TxAdmission, TxLookup } from '../../src/node/driver.ts';
import { ABCI_VERSION, BLOCK_PROTOCOL, COMETBFT_VERSION, P2P_PROTOCOL } from '../../src/node/protocol.ts';
import type { Upgrade } from '../../src/upgrades/index.ts';
import { CHAIN_ID, newHome } from './chain.ts';

const sha256 = (...parts: (Uint8Array | string)[]): Uint8Array => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** The four connections of one CometBFT node to its app. */
export class AppConnections {
  private constructor(
    readonly address: string,
    readonly query: AbciClient,
    readonly snapshot: AbciClient,
    readonly mempool: AbciClient,
    readonly consensus: AbciClient,
  ) {}

  /** Dials the app as CometBFT does: query, snapshot, mempool, consensus, in that order. */
  static async open(address: string): Promise<AppConnections> {
    const query = await AbciClient.connect(address);
    const snapshot = await AbciClient.connect(address);
    const mempool = await AbciClient.connect(address);
    const consensus = await AbciClient.connect(address);
    return new AppConnections(address, query, snapshot, mempool, consensus);
  }

  info(): Promise<ResponseInfo> {
    return one(this.query, { info: { version: COMETBFT_VERSION, blockVersion: BLOCK_PROTOCOL, p2pVersion: P2P_PROTOCOL, abciVersion: ABCI_VERSION } }, 'info');
  }

  checkTx(tx: Uint8Array, type: CheckTxType = CheckTxType.NEW): Promise<ResponseCheckTx> {
    return one(this.mempool, { checkTx: { tx, type } }, 'checkTx');
  }

  abciQuery(path: string, data: Uint8Array = new Uint8Array(0)): Promise<ResponseQuery> {
    return one(this.query, { query: { path, data, height: 0n, prove: false } }, 'query');
  }

  /** The committed account at `address` (Query on the query connection); throws the query's log when there is none. */
  async account(address: string): Promise<BaseAccount> {
    const r = await this.abciQuery('/cosmos.auth.v1beta1.Query/Account', QueryAccountRequest.encode({ address }).finish());
    if (r.code !== 0) throw new Error(`account ${address}: ${r.log}`);
    return BaseAccount.decode((QueryAccountResponse.decode(r.value).account as Any).value);
  }

  /** `msgs` signed by `key` at its committed sequence plus `offset` (for several txs in one block), no fee. */
  async signTx(key: TestKey, msgs: Any[], chainId: string, offset = 0n, gasLimit = 10_000_000n): Promise<Uint8Array> {
    const acc = await this.account(key.address);
    return encodeTx(
      { msgs, fee: { amount: [], gasLimit } },
      [{ privateKey: key.privateKey, accountNumber: acc.accountNumber, sequence: acc.sequence + offset }],
      chainId,
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.consensus.close(), this.mempool.close(), this.snapshot.close(), this.query.close()]);
  }
}

/** One request, then Flush (CometBFT's synchronous call); the response's field of that kind. */
export async function one<K extends keyof Response>(c: AbciClient, req: Parameters<AbciClient['call']>[0], kind: K): Promise<NonNullable<Response[K]>> {
  const res = await c.call(req);
  const r = res[kind];
  if (r === undefined)
    throw new Error(`expected a ${String(kind)} response, got ${JSON.stringify(Object.keys(res).filter((k) => res[k as keyof Response] !== undefined))}`);
  return r as NonNullable<Response[K]>;
}

export interface NetworkValidator {
  /** The consensus address (20 bytes). */
  readonly address: Uint8Array;
  readonly power: bigint;
}

export interface CometNetworkOptions {
  readonly genesis: GenesisDoc;
  readonly validators: readonly NetworkValidator[];
  /** Seconds between block times (default 1). */
  readonly blockSeconds?: bigint;
  /** max_tx_bytes of PrepareProposal (default 1 MiB). */
  readonly maxTxBytes?: bigint;
}

/** What every app answered for one decided block. */
export interface NetworkBlock {
  readonly request: RequestFinalizeBlock;
  readonly results: readonly ResponseFinalizeBlock[];
}

/**
 * A network's CometBFT, deciding blocks once and feeding them to every app. It keeps every decided
 * block, so an app that comes back (a restart, a new binary) is brought up to date by `handshake`.
 */
export class CometNetwork {
  readonly blocks: RequestFinalizeBlock[] = [];
  /** The app hash FinalizeBlock returned at each height (all apps agreed). */
  readonly appHashes = new Map<bigint, Uint8Array>();
  /** Txs accepted by CheckTx and not yet in a block, as CometBFT's mempool would hold them. */
  mempool: Uint8Array[] = [];
  /** What each app answered to InitChain in its handshake, by app index. */
  readonly initChainResponses: (ResponseInitChain | undefined)[] = [];
  private initialAppHash: Uint8Array = new Uint8Array(0);

  constructor(
    readonly apps: (AppConnections | undefined)[],
    private readonly o: CometNetworkOptions,
  ) {}

  get height(): bigint {
    return this.blocks.length === 0 ? this.initialHeight - 1n : this.blocks[this.blocks.length - 1].height;
  }

  private get initialHeight(): bigint {
    return this.o.genesis.initialHeight > 0n ? this.o.genesis.initialHeight : 1n;
  }

  /** InitChain as CometBFT builds it from genesis.json. */
  initChainRequest(): RequestInitChain {
    return toRequestInitChain(this.o.genesis);
  }

  /**
   * CometBFT's handshake with app `i`: Info, then InitChain for an empty app or a replay of every
   * decided block above its height (FinalizeBlock + Commit, no proposal calls), checking its app hash
   * against the one the network recorded. Returns the heights replayed.
   */
  async handshake(i: number): Promise<bigint[]> {
    const app = this.conn(i);
    const info = await app.info();
    const replayed: bigint[] = [];
    let h = info.lastBlockHeight;
    if (h === 0n) {
      const res = await one(app.consensus, { initChain: this.initChainRequest() }, 'initChain');
      this.initChainResponses[i] = res;
      if (this.blocks.length === 0 && i === 0) this.initialAppHash = res.appHash;
      else assert.deepEqual(Buffer.from(res.appHash).toString('hex'), Buffer.from(this.initialAppHash).toString('hex'), `app ${i}: InitChain app hash`);
      h = this.initialHeight - 1n;
    } else {
      const want = this.appHashes.get(h);
      if (want !== undefined) assert.equal(Buffer.from(info.lastBlockAppHash).toString('hex'), Buffer.from(want).toString('hex'), `app ${i}: app hash at ${h}`);
    }
    for (const req of this.blocks) {
      if (req.height <= h) continue;
      const res = await one(app.consensus, { finalizeBlock: req }, 'finalizeBlock');
      this.checkHash(i, req.height, res.appHash);
      await one(app.consensus, { commit: {} }, 'commit');
      replayed.push(req.height);
    }
    return replayed;
  }

  private conn(i: number): AppConnections {
    const a = this.apps[i];
    if (a === undefined) throw new Error(`app ${i} is not connected`);
    return a;
  }

  private checkHash(i: number, h: bigint, hash: Uint8Array): void {
    const want = this.appHashes.get(h);
    const got = Buffer.from(hash).toString('hex');
    if (want === undefined) this.appHashes.set(h, hash);
    else assert.equal(got, Buffer.from(want).toString('hex'), `app ${i} disagrees on the app hash of height ${h}`);
  }

  /** Submits a tx to app `i`'s mempool connection (CheckTx NEW); kept for the next block when accepted. */
  async submit(i: number, tx: Uint8Array): Promise<ResponseCheckTx> {
    const r = await this.conn(i).checkTx(tx);
    if (r.code === 0) this.mempool.push(tx);
    return r;
  }

  /** The next block's request, before its txs are chosen; `advance` seconds after the last block. */
  private nextRequest(txs: Uint8Array[], advance?: bigint): RequestFinalizeBlock {
    const height = this.height + 1n;
    const last = this.blocks.length === 0 ? this.o.genesis.genesisTime : (this.blocks[this.blocks.length - 1].time as Timestamp);
    const time: Timestamp = { seconds: last.seconds + (advance ?? this.o.blockSeconds ?? 1n), nanos: 0 };
    const vals = this.o.validators;
    const proposer = vals[Number(height % BigInt(vals.length))].address;
    const lastCommit =
      height === this.initialHeight
        ? []
        : vals.map((v) => ({ validator: { address: v.address, power: v.power }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT }));
    return {
      txs,
      decidedLastCommit: { round: 0, votes: lastCommit },
      misbehavior: [],
      hash: sha256('block', height.toString(), ...txs),
      height,
      time,
      nextValidatorsHash: sha256('validators', ...vals.map((v) => v.address)),
      proposerAddress: proposer,
    };
  }

  /**
   * Decides and executes one block over the connected apps: the proposer (by height, round robin)
   * prepares it from the mempool, every app must accept it, every app finalizes it and must agree on
   * the app hash, every app commits, then every app rechecks what is left. Apps given in `skip`
   * (e.g. one that is down) are left out and catch up by `handshake`.
   */
  async block(o: { skip?: readonly number[]; advance?: bigint } = {}): Promise<NetworkBlock> {
    const live = this.apps.map((_, i) => i).filter((i) => this.apps[i] !== undefined && !(o.skip ?? []).includes(i));
    assert.ok(live.length > 0, 'no app to run the block');
    const draft = this.nextRequest([], o.advance);
    const proposerIndex = live[Number(draft.height % BigInt(live.length))];
    const { decidedLastCommit, ...rest } = draft;
    const prepared = await one(
      this.conn(proposerIndex).consensus,
      {
        prepareProposal: {
          maxTxBytes: this.o.maxTxBytes ?? 1_048_576n,
          txs: this.mempool,
          localLastCommit: {
            round: 0,
            votes: decidedLastCommit?.votes.map((v) => ({ ...v, voteExtension: new Uint8Array(0), extensionSignature: new Uint8Array(0) })) ?? [],
          },
          misbehavior: [],
          height: rest.height,
          time: rest.time,
          nextValidatorsHash: rest.nextValidatorsHash,
          proposerAddress: rest.proposerAddress,
        },
      },
      'prepareProposal',
    );
    const req = this.nextRequest(prepared.txs, o.advance);
    const { decidedLastCommit: proposedLastCommit, ...fields } = req;
    for (const i of live) {
      const pp = await one(this.conn(i).consensus, { processProposal: { ...fields, proposedLastCommit } }, 'processProposal');
      assert.equal(pp.status, ResponseProcessProposal_ProposalStatus.ACCEPT, `app ${i} rejected block ${req.height}`);
    }
    const results: ResponseFinalizeBlock[] = [];
    for (const i of live) {
      const res = await one(this.conn(i).consensus, { finalizeBlock: req }, 'finalizeBlock');
      assert.equal(res.txResults.length, req.txs.length, `app ${i}: one result per tx`);
      this.checkHash(i, req.height, res.appHash);
      results.push(res);
    }
    this.blocks.push(req);
    for (const i of live) await one(this.conn(i).consensus, { commit: {} }, 'commit');
    const included = new Set(req.txs.map((t) => Buffer.from(t).toString('hex')));
    const left = this.mempool.filter((t) => !included.has(Buffer.from(t).toString('hex')));
    // RECHECK on the proposer's mempool connection, as CometBFT's mempool does after Commit
    const kept: Uint8Array[] = [];
    for (const tx of left) if ((await this.conn(proposerIndex).checkTx(tx, CheckTxType.RECHECK)).code === 0) kept.push(tx);
    this.mempool = kept;
    return { request: req, results };
  }

  /**
   * Decides the next block (with `txs`, default none) without committing it anywhere (the halt of an
   * upgrade, a CometBFT that dies mid-block): FinalizeBlock to every connected app; each answer is a
   * response or the error it failed with.
   */
  async finalizeOnly(txs: Uint8Array[] = []): Promise<{ request: RequestFinalizeBlock; outcomes: (ResponseFinalizeBlock | Error)[] }> {
    const req = this.nextRequest(txs);
    const outcomes: (ResponseFinalizeBlock | Error)[] = [];
    for (let i = 0; i < this.apps.length; i++) {
      const a = this.apps[i];
      if (a === undefined) continue;
      outcomes.push(await one(a.consensus, { finalizeBlock: req }, 'finalizeBlock').catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
    }
    // CometBFT has stored the block before executing it: a restart replays it
    this.blocks.push(req);
    return { request: req, outcomes };
  }
}

export interface AbciTestAppOptions {
  /** An existing home (a restart); default: a new one. */
  readonly home?: string;
  readonly upgrades?: readonly Upgrade[];
  /** Where broadcasts, tx lookups and header times go (default: a CometBFT RPC nobody listens on). */
  readonly comet?: TxAdmission & TxLookup & HeaderTimes;
  readonly address?: string;
  readonly haltHeight?: bigint;
  /** Where the driver reports CheckTx and FinalizeBlock durations (default: nowhere). */
  readonly metrics?: NodeMetrics;
  /** The state database's size limit (app.toml state-db-max-bytes; default none). */
  readonly stateDbMaxBytes?: number;
}

/** chaind's app behind its ABCI server, in this process, listening on a free loopback port. */
export class AbciTestApp {
  private constructor(
    readonly home: string,
    readonly logger: MemoryLogger,
    readonly chain: ChainApp,
    readonly driver: AbciDriver,
  ) {}

  static async start(o: AbciTestAppOptions = {}): Promise<AbciTestApp> {
    const home = o.home ?? newHome();
    const logger = new MemoryLogger();
    const chain = createChainApp({
      dbPath: join(home, 'data', 'application.db'),
      upgradeInfoPath: upgradeInfoPath(home),
      chainId: CHAIN_ID,
      logger,
      upgrades: o.upgrades ?? [],
      stateDbMaxBytes: o.stateDbMaxBytes === undefined ? undefined : { maxBytes: o.stateDbMaxBytes, setting: 'app.toml state-db-max-bytes' },
    });
    const comet = o.comet ?? new CometRpc({ url: 'http://127.0.0.1:9', timeoutMs: 1000, maxTxBytes: 1_048_576, maxResponseBytes: 1_048_576 });
    try {
      const driver = await AbciDriver.listen(
        { app: chain.app, address: o.address ?? 'tcp://127.0.0.1:0', comet, logger, haltHeight: o.haltHeight, metrics: o.metrics },
        CHAIN_ID,
      );
      return new AbciTestApp(home, logger, chain, driver);
    } catch (e) {
      await chain.close();
      throw e;
    }
  }

  get address(): string {
    return this.driver.address;
  }

  /** Stops the server and closes the database. */
  async stop(): Promise<void> {
    await this.driver.stop();
    await this.chain.close();
  }
}
