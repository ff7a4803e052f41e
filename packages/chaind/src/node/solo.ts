// The solo consensus driver: this node is the only validator and produces every block itself, calling
// the same ABCI 2.0 methods CometBFT would (docs/architecture.md "Processes"). On start it runs CometBFT's
// handshake (Info, InitChain for a new chain, replay of a block the block store holds but the app never
// committed); then, every interval, one block: PrepareProposal over the mempool, ProcessProposal,
// FinalizeBlock, block-store save, Commit, mempool update. The block store is written *before* the
// app's Commit, so a crash between the two is repaired by replay; unlike CometBFT, the block is saved
// after FinalizeBlock, so a block that halts the chain (an upgrade) is never stored.
// Only the driver reads the wall clock (block times); the state machine sees time only through headers.
import { ChaindError } from '@chaind/errors';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import {
  ResponseFinalizeBlock,
  ResponseProcessProposal_ProposalStatus,
  type RequestExtendVote,
  type RequestFinalizeBlock,
} from 'cosmjs-types/tendermint/abci/types';
import type { Block } from 'cosmjs-types/tendermint/types/block';
import type { BlockID, Commit, Header } from 'cosmjs-types/tendermint/types/types';
import { sign, type KeyObject } from 'node:crypto';
import { nopLogger, voteExtensionSignBytes, type Application, type Logger } from '@chaind/sdk/app';
import { toRequestInitChain, type GenesisDoc } from '@chaind/sdk/genesis';
import type { Mempool } from '@chaind/sdk/admission';
import { toHex } from '@chaind/sdk/store';
import type { BlockStore } from './blockstore.ts';
import {
  commitInfo,
  emptyCommit,
  extendedCommitInfo,
  GO_ZERO_TIME,
  makeCommit,
  signingKey,
  timestampFromMs,
  voteTime,
  type SignedExtension,
  type ValidatorKey,
} from './commit.ts';
import {
  committedTxIn,
  stopResultFromError,
  type BlockProducer,
  type BlockSource,
  type CommittedBlock,
  type DriverStopResult,
  type TxAdmission,
  type TxLookup,
} from './driver.ts';
import { commitHash, consensusHash, dataHash, EMPTY_HASH, emptyBlockId, encodeBlock, resultsHash, validatorsHash } from './hash.ts';
import { ABCI_VERSION, BLOCK_PROTOCOL, COMETBFT_VERSION, MAX_BLOCK_SIZE_BYTES, maxDataBytes, P2P_PROTOCOL, txProtoSize, txsProtoSize } from './protocol.ts';
import { genesisState, nextState, validatorAddress, type ChainState } from './state.ts';
import { nopMetrics, type NodeMetrics } from './metrics/index.ts';
import { userTxRecords } from './user-txs.ts';

/** What the driver calls on the app: the ABCI consensus methods, and dropping a finalized block it will not commit. */
export type SoloApp = Pick<Application, 'info' | 'initChain' | 'prepareProposal' | 'processProposal' | 'finalizeBlock' | 'commit' | 'extendVote'> & {
  abortBlock(): void;
};

export type SoloMempool = Pick<Mempool, 'reap' | 'update' | 'submit' | 'submitLater' | 'maxTxBytes'>;

export interface SoloDriverOptions {
  readonly app: SoloApp;
  readonly mempool: SoloMempool;
  /** The driver writes it; the caller opens and closes it (and the app). */
  readonly blockStore: BlockStore;
  /** A validated genesis document (validateGenesis). */
  readonly genesis: GenesisDoc;
  readonly validatorKey: ValidatorKey;
  /** Time between the starts of consecutive blocks. */
  readonly blockIntervalMs: number;
  readonly logger?: Logger;
  /** Stop cleanly once this height is committed (`--halt-height`). */
  readonly haltHeight?: bigint;
  /** Source of block times (default: the wall clock, millisecond precision). */
  readonly clock?: () => Timestamp;
  /** Where FinalizeBlock's duration goes (default: nowhere). */
  readonly metrics?: NodeMetrics;
}

/** A committed block, as this driver announces it: with the block it built. */
export interface BlockEvent extends CommittedBlock {
  readonly blockId: BlockID;
  readonly block: Block;
}

export type BlockListener = (e: BlockEvent) => void;

/** A block built from the mempool, not yet executed. */
export interface ProposedBlock {
  readonly block: Block;
  readonly blockId: BlockID;
  /** Its protobuf bytes, over which the block id's parts were computed. */
  readonly bytes: Uint8Array;
}

export interface ExecutedBlock extends ProposedBlock {
  readonly results: ResponseFinalizeBlock;
}

export interface SavedBlock extends ExecutedBlock {
  readonly seenCommit: Commit;
  readonly state: ChainState;
}

/** The node cannot start: its block store and its app disagree. */
export class HandshakeError extends ChaindError<'handshake'> {
  override readonly name = 'HandshakeError';
  constructor(message: string, options?: ErrorOptions) {
    super('handshake', message, options);
  }
}

/** The chain's tip: what the next block is built on. */
interface Tip {
  /** Last committed height (initial height - 1 before the first block). */
  readonly height: bigint;
  readonly blockId: BlockID;
  /** Its header time; genesis time before the first block. */
  readonly time: Timestamp;
  /** The commit the next block carries. */
  readonly lastCommit: Commit;
  /** The next header's app_hash: FinalizeBlock's of the tip, or InitChain's. */
  readonly appHash: Uint8Array;
  readonly lastResultsHash: Uint8Array;
  readonly state: ChainState;
}

type Stage = 'idle' | 'proposed' | 'executed' | 'saved';

/**
 * The block loop, one value: `ready` until run() (tests may drive the steps by hand), `waiting` for the
 * next block's time, `in-block` while one is produced (a stop asked for then takes effect after it),
 * `finished` for good.
 */
type Loop =
  | { readonly kind: 'ready' }
  | { readonly kind: 'waiting'; readonly timer: NodeJS.Timeout }
  | { readonly kind: 'in-block'; readonly stopAfter: boolean }
  | { readonly kind: 'finished' };

const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

export class SoloDriver implements BlockProducer {
  /** Resolves once, when the driver has stopped for good. */
  readonly done: Promise<DriverStopResult>;
  readonly chainId: string;
  private readonly app: SoloApp;
  private readonly mempool: SoloMempool;
  private readonly store: BlockStore;
  private readonly genesis: GenesisDoc;
  private readonly key: ValidatorKey;
  private readonly signer: KeyObject | undefined;
  private readonly interval: number;
  private readonly logger: Logger;
  private readonly haltHeight: bigint | undefined;
  private readonly clock: () => Timestamp;
  private readonly metrics: NodeMetrics;
  private readonly listeners = new Set<BlockListener>();
  private resolveDone!: (r: DriverStopResult) => void;
  private tip!: Tip;
  /** Our extension of the last precommit (vote extensions on), for the next proposal's local_last_commit. */
  private ownExtension: SignedExtension | undefined;
  private stage: Stage = 'idle';
  private loop: Loop = { kind: 'ready' };
  private nextAt = 0;
  private readonly dueBlockFirst: TxAdmission;

  private constructor(o: SoloDriverOptions) {
    if (!Number.isFinite(o.blockIntervalMs) || o.blockIntervalMs < 0)
      throw new Error(`blockIntervalMs must be a non-negative number, got ${o.blockIntervalMs}`);
    this.app = o.app;
    this.mempool = o.mempool;
    this.dueBlockFirst = {
      submit: (tx) => {
        this.catchUp();
        return this.mempool.submit(tx);
      },
      submitLater: (tx) => {
        this.catchUp();
        return this.mempool.submitLater(tx);
      },
      maxTxBytes: o.mempool.maxTxBytes,
    };
    this.store = o.blockStore;
    this.genesis = o.genesis;
    this.chainId = o.genesis.chainId;
    this.key = o.validatorKey;
    this.signer = signingKey(o.validatorKey);
    this.interval = o.blockIntervalMs;
    this.logger = o.logger ?? nopLogger;
    this.haltHeight = o.haltHeight;
    this.clock = o.clock ?? ((): Timestamp => timestampFromMs(Date.now()));
    this.metrics = o.metrics ?? nopMetrics;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /**
   * Runs the handshake (which may InitChain or replay blocks) and returns a driver that produces no
   * block until `run()` — or until a caller drives the step functions itself. Throws a HandshakeError
   * when the stores disagree, or whatever the app throws while replaying (see stopResultFromError).
   */
  static open(o: SoloDriverOptions): SoloDriver {
    const d = new SoloDriver(o);
    d.handshake();
    return d;
  }

  /** `open` then `run`: the node's block production, until `done`. */
  static async start(o: SoloDriverOptions): Promise<SoloDriver> {
    const d = SoloDriver.open(o);
    d.run();
    return d;
  }

  /** The last committed height (initial height - 1 before the first block). */
  get height(): bigint {
    return this.tip.height;
  }

  /** The consensus state the next block is built from. */
  get state(): ChainState {
    return this.tip.state;
  }

  /** This node's admission pipeline: the mempool the driver reaps, each broadcast first giving a due block its turn (`catchUp`). */
  get admission(): TxAdmission {
    return this.dueBlockFirst;
  }

  /** The block store the driver writes. */
  get blocks(): BlockSource {
    return this.store;
  }

  /** Committed txs from the block store, with their block's time. */
  get txs(): TxLookup {
    return {
      committedTx: async (hash) => {
        const r = committedTxIn(this.store, this.tip.height, hash);
        return r === undefined ? undefined : { ...r, time: this.store.blockMeta(r.height)?.header.time };
      },
    };
  }

  /** A committed block's header time, from the block store. */
  async blockTime(height: bigint): Promise<Timestamp | undefined> {
    return height <= this.tip.height ? this.store.blockMeta(height)?.header.time : undefined;
  }

  /** Subscribes to committed blocks; returns the unsubscribe function. */
  onBlock(listener: BlockListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- handshake (consensus/replay.go) ----

  private handshake(): void {
    const info = this.app.info({ version: COMETBFT_VERSION, blockVersion: BLOCK_PROTOCOL, p2pVersion: P2P_PROTOCOL, abciVersion: ABCI_VERSION });
    const appHeight = info.lastBlockHeight;
    const storeHeight = this.store.height;
    const initial = this.genesis.initialHeight > 0n ? this.genesis.initialHeight : 1n;
    if (appHeight < 0n) throw new HandshakeError(`the app reports a negative last block height ${appHeight}`);
    if (appHeight > storeHeight) {
      throw new HandshakeError(
        `the app is at height ${appHeight} but the block store only at ${storeHeight}: the block store is missing blocks the app committed (ErrAppBlockHeightTooHigh)`,
      );
    }
    let tip: Tip;
    if (appHeight === 0n) {
      if (storeHeight > 0n && this.store.base !== initial) {
        throw new HandshakeError(`the app has no state but the block store starts at ${this.store.base}, not at the initial height ${initial}`);
      }
      tip = this.initChain(info.appVersion, initial);
    } else {
      if (appHeight < this.store.base) throw new HandshakeError(`the app is at height ${appHeight}, below the block store's base ${this.store.base}`);
      tip = this.storedTip(appHeight);
      if (!eq(info.lastBlockAppHash, tip.appHash)) {
        throw new HandshakeError(
          `app hash mismatch at height ${appHeight}: the app has ${toHex(info.lastBlockAppHash)}, the block store ${toHex(tip.appHash)}`,
        );
      }
    }
    for (let h = tip.height + 1n; h <= storeHeight; h++) tip = this.replay(h, tip, h === storeHeight);
    this.tip = tip;
    this.assertValidator(tip.height + 1n);
    this.logger.info('handshake done', {
      height: tip.height.toString(),
      appHash: toHex(tip.appHash),
      replayed: (storeHeight - (appHeight === 0n ? initial - 1n : appHeight)).toString(),
    });
  }

  private initChain(infoAppVersion: bigint, initial: bigint): Tip {
    const req = toRequestInitChain(this.genesis);
    const res = this.app.initChain(req);
    const state = genesisState({
      validators: res.validators.length > 0 ? res.validators : req.validators,
      consensusParams: this.genesis.consensusParams,
      paramUpdates: res.consensusParams,
      infoAppVersion,
    });
    this.logger.info('InitChain', { chainId: this.chainId, initialHeight: initial.toString(), validators: state.validators.length });
    return {
      height: initial - 1n,
      blockId: emptyBlockId(),
      time: this.genesis.genesisTime,
      lastCommit: emptyCommit(),
      // the genesis app hash only when the app returned none (consensus/replay.go)
      appHash: res.appHash.length > 0 ? res.appHash : this.genesis.appHash,
      // "update the last results hash with the empty hash, to conform with RFC-6962"
      lastResultsHash: EMPTY_HASH,
      state,
    };
  }

  private storedTip(h: bigint): Tip {
    const block = this.store.block(h);
    const blockId = this.store.blockId(h);
    const lastCommit = this.store.seenCommit(h);
    const results = this.store.results(h);
    const state = this.store.state(h);
    if (block === undefined || blockId === undefined || lastCommit === undefined || results === undefined || state === undefined) {
      throw new HandshakeError(`the block store has no complete record of height ${h}`);
    }
    return { height: h, blockId, time: block.header.time, lastCommit, appHash: results.appHash, lastResultsHash: resultsHash(results.txResults), state };
  }

  /** ExecCommitBlock: a stored block the app has not committed, executed again (FinalizeBlock then Commit). */
  private replay(h: bigint, tip: Tip, latest: boolean): Tip {
    const block = this.store.block(h);
    const blockId = this.store.blockId(h);
    const lastCommit = this.store.seenCommit(h);
    const stored = this.store.results(h);
    if (block === undefined || blockId === undefined || lastCommit === undefined || stored === undefined) {
      throw new HandshakeError(`the block store has no complete record of height ${h}`);
    }
    if (!eq(block.header.appHash, tip.appHash)) {
      throw new HandshakeError(
        `app hash mismatch replaying height ${h}: the block expects ${toHex(block.header.appHash)}, the app is at ${toHex(tip.appHash)}`,
      );
    }
    this.logger.info('replaying block', { height: h.toString() });
    const res = this.app.finalizeBlock(finalizeRequest(block, blockId, tip.state));
    if (res.txResults.length !== block.data.txs.length) {
      this.app.abortBlock();
      throw new Error(`FinalizeBlock returned ${res.txResults.length} tx results for ${block.data.txs.length} txs at height ${h}`);
    }
    const state = nextState(tip.state, res);
    if (!eq(ResponseFinalizeBlock.encode(res).finish(), ResponseFinalizeBlock.encode(stored).finish())) {
      this.logger.warn('replayed block results differ from the stored ones', {
        height: h.toString(),
        stored: toHex(stored.appHash),
        replayed: toHex(res.appHash),
      });
      // the app commits this execution, so it is the one to keep (CometBFT saves the response again)
      if (latest) this.store.replaceResults(h, res, state);
    }
    this.app.commit();
    return { height: h, blockId, time: block.header.time, lastCommit, appHash: res.appHash, lastResultsHash: resultsHash(res.txResults), state };
  }

  private assertValidator(h: bigint): void {
    const own = Buffer.from(this.key.address);
    if (!this.tip.state.validators.some((v) => own.equals(Buffer.from(validatorAddress(v))))) {
      throw new HandshakeError(
        `this node's validator ${toHex(this.key.address)} is not in the validator set of height ${h}: a solo node must be the chain's validator`,
      );
    }
  }

  // ---- one block, in steps (exposed so tests can stop between them) ----

  private expect(stage: Stage, step: string): void {
    if (this.loop.kind === 'finished') throw new Error(`${step}: the driver has stopped`);
    if (this.stage !== stage) throw new Error(`${step} called at stage "${this.stage}", expected "${stage}"`);
  }

  /** The next block's time: our precommit's timestamp for the tip (the weighted median of one vote), or genesis time. */
  private nextTime(): Timestamp {
    const own = Buffer.from(this.key.address);
    const sig = this.tip.lastCommit.signatures.find((s) => own.equals(Buffer.from(s.validatorAddress)));
    return sig?.timestamp ?? this.tip.time;
  }

  /** Step 1: reap the mempool, PrepareProposal, build the block and its id (`CreateProposalBlock`). */
  proposeBlock(): ProposedBlock {
    this.expect('idle', 'proposeBlock');
    const tip = this.tip;
    const s = tip.state;
    const height = tip.height + 1n;
    this.assertValidator(height);
    const params = s.consensusParams;
    const configured = params.block?.maxBytes ?? -1n;
    const noLimit = configured === -1n;
    const maxData = maxDataBytes(noLimit ? MAX_BLOCK_SIZE_BYTES : configured, s.validators.length);
    const reaped = this.mempool.reap(noLimit ? -1n : maxData, params.block?.maxGas ?? -1n);
    // the mempool counts raw tx bytes; a block bounds their proto size (tag + length + bytes)
    const txs: Uint8Array[] = [];
    let size = 0n;
    for (const tx of reaped) {
      size += txProtoSize(tx);
      if (size > maxData) break;
      txs.push(tx);
    }
    const time = this.nextTime();
    const nextValidatorsHash = validatorsHash(s.nextValidators);
    const proposerAddress = Uint8Array.from(this.key.address);
    const rpp = this.app.prepareProposal({
      maxTxBytes: maxData,
      txs,
      localLastCommit: extendedCommitInfo(tip.lastCommit, s.lastValidators, this.extensionOf(tip)),
      misbehavior: [],
      height,
      time,
      nextValidatorsHash,
      proposerAddress,
    });
    const proposed = txsProtoSize(rpp.txs);
    if (proposed > maxData) throw new Error(`PrepareProposal returned ${proposed} bytes of txs, more than the ${maxData} allowed`);
    const header: Header = {
      version: { block: BLOCK_PROTOCOL, app: s.appVersion },
      chainId: this.chainId,
      height,
      time,
      lastBlockId: tip.blockId,
      lastCommitHash: commitHash(tip.lastCommit),
      dataHash: dataHash(rpp.txs),
      validatorsHash: validatorsHash(s.validators),
      nextValidatorsHash,
      consensusHash: consensusHash(params),
      appHash: tip.appHash,
      lastResultsHash: tip.lastResultsHash,
      evidenceHash: EMPTY_HASH,
      proposerAddress,
    };
    const block: Block = { header, data: { txs: rpp.txs }, evidence: { evidence: [] }, lastCommit: tip.lastCommit };
    const { bytes, blockId } = encodeBlock(block);
    this.stage = 'proposed';
    return { block, blockId, bytes };
  }

  /** Step 2: ProcessProposal (the proposer runs it too in v0.38), then FinalizeBlock. A throwing app leaves nothing behind. */
  executeBlock(p: ProposedBlock): ExecutedBlock {
    this.expect('proposed', 'executeBlock');
    this.stage = 'idle';
    const req = finalizeRequest(p.block, p.blockId, this.tip.state);
    const { decidedLastCommit, ...rest } = req;
    const pp = this.app.processProposal({ ...rest, proposedLastCommit: decidedLastCommit });
    if (pp.status !== ResponseProcessProposal_ProposalStatus.ACCEPT)
      throw new Error(`the app rejected this node's own proposal at height ${p.block.header.height}`);
    const results = this.metrics.timeFinalizeBlock(() => this.app.finalizeBlock(req));
    if (results.txResults.length !== p.block.data.txs.length) {
      this.app.abortBlock();
      throw new Error(`FinalizeBlock returned ${results.txResults.length} tx results for ${p.block.data.txs.length} txs`);
    }
    this.stage = 'executed';
    return { ...p, results };
  }

  /** Step 3: our signed precommit, and the block with everything of it in the block store, before the app commits. */
  saveBlock(e: ExecutedBlock): SavedBlock {
    this.expect('executed', 'saveBlock');
    this.stage = 'idle';
    try {
      const h = e.block.header.height;
      const timestamp = voteTime(this.clock(), e.block.header.time);
      const seenCommit = makeCommit({
        chainId: this.chainId,
        height: h,
        blockId: e.blockId,
        timestamp,
        validators: this.tip.state.validators,
        key: this.key,
        signer: this.signer,
      });
      this.ownExtension = this.extendVote(e, h);
      const state = nextState(this.tip.state, e.results);
      this.store.save({ block: e.block, blockId: e.blockId, blockBytes: e.bytes, seenCommit, results: e.results, state });
      this.stage = 'saved';
      return { ...e, seenCommit, state };
    } catch (err) {
      this.app.abortBlock();
      throw err;
    }
  }

  /**
   * ExtendVote for our precommit of block `h` when vote extensions are on at `h` (consensus params'
   * `abci.vote_extensions_enable_height`), signed as CometBFT signs it: what the next proposal carries.
   */
  private extendVote(e: ExecutedBlock, h: bigint): SignedExtension | undefined {
    const { header } = e.block;
    return this.signedExtension(h, {
      hash: e.blockId.hash,
      height: h,
      time: header.time,
      txs: e.block.data.txs,
      proposedLastCommit: commitInfo(e.block.lastCommit ?? emptyCommit(), this.tip.state.lastValidators),
      misbehavior: [],
      nextValidatorsHash: header.nextValidatorsHash,
      proposerAddress: header.proposerAddress,
    });
  }

  /** Our extension of the tip's commit; after a restart it is made again (ed25519 signs deterministically). */
  private extensionOf(tip: Tip): SignedExtension | undefined {
    if (this.ownExtension?.height === tip.height) return this.ownExtension;
    const none = new Uint8Array(0);
    const req: RequestExtendVote = {
      hash: tip.blockId.hash,
      height: tip.height,
      time: GO_ZERO_TIME,
      txs: [],
      proposedLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      nextValidatorsHash: none,
      proposerAddress: none,
    };
    return this.signedExtension(tip.height, req);
  }

  private signedExtension(h: bigint, req: RequestExtendVote): SignedExtension | undefined {
    const enable = this.tip.state.consensusParams.abci?.voteExtensionsEnableHeight ?? 0n;
    if (enable <= 0n || h < enable || this.signer === undefined) return undefined;
    const extension = this.app.extendVote(req).voteExtension;
    const signature = new Uint8Array(sign(null, voteExtensionSignBytes(this.chainId, h, 0n, extension), this.signer));
    return { height: h, address: Uint8Array.from(this.key.address), extension, signature };
  }

  /** Step 4: the app's Commit, the new tip, the mempool's update (recheck), then the block event. */
  commitBlock(s: SavedBlock): void {
    this.expect('saved', 'commitBlock');
    this.stage = 'idle';
    const h = s.block.header.height;
    this.app.commit();
    this.tip = {
      height: h,
      blockId: s.blockId,
      time: s.block.header.time,
      lastCommit: s.seenCommit,
      appHash: s.results.appHash,
      lastResultsHash: resultsHash(s.results.txResults),
      state: s.state,
    };
    // a tx CheckTx accepted leaves the pool only in a block or here, with the recheck's reason
    for (const e of this.mempool.update(h, s.block.data.txs).evicted)
      this.logger.info('evicted tx', { height: h.toString(), hash: e.hash, code: e.code, codespace: e.codespace, reason: e.log });
    const txs = userTxRecords(h, s.block.data.txs, s.results.txResults);
    this.logger.info('committed block', { height: h.toString(), txs: txs.length, hash: toHex(s.blockId.hash), appHash: toHex(s.results.appHash) });
    const event: BlockEvent = { height: h, blockId: s.blockId, block: s.block, results: s.results, txs, time: s.block.header.time };
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (err) {
        // a subscriber's bug must not stop the chain
        this.logger.error('block listener failed', { height: h.toString(), error: String(err) });
      }
    }
  }

  /** One whole block: propose, execute, save, commit. */
  produceBlock(): SavedBlock {
    const saved = this.saveBlock(this.executeBlock(this.proposeBlock()));
    this.commitBlock(saved);
    return saved;
  }

  // ---- the loop ----

  /** Starts producing a block every interval until a halt, an error, the halt height or `stop()`. */
  run(): void {
    if (this.loop.kind === 'finished') throw new Error('the driver has stopped');
    if (this.loop.kind !== 'ready') throw new Error('the driver is already running');
    if (this.haltHeight !== undefined && this.tip.height >= this.haltHeight) {
      this.logger.info('halt height reached', { height: this.tip.height.toString(), haltHeight: this.haltHeight.toString() });
      this.finish({ reason: 'halt-height', height: this.tip.height });
      return;
    }
    // the first block comes at once (as CometBFT's first round after start): a restart, and the new
    // binary after an upgrade halt, produce their next block without waiting out an interval
    this.nextAt = performance.now();
    this.schedule();
  }

  private schedule(): void {
    this.loop = { kind: 'waiting', timer: setTimeout(() => this.tick(), Math.max(0, this.nextAt - performance.now())) };
  }

  /**
   * Produces the next block now if it is due. Under a flood of requests libuv's poll phase runs up to 48
   * batches of 1,024 ready sockets before the timers' phase, so the block timer alone would fire seconds late.
   */
  private catchUp(): void {
    if (this.loop.kind !== 'waiting' || performance.now() < this.nextAt) return;
    clearTimeout(this.loop.timer);
    this.tick();
  }

  private tick(): void {
    // a fixed cadence: the interval runs from one block's start to the next's
    this.nextAt = performance.now() + this.interval;
    this.loop = { kind: 'in-block', stopAfter: false };
    try {
      this.produceBlock();
    } catch (e) {
      const r = stopResultFromError(e, this.tip.height);
      if (r.reason === 'halt') this.metrics.haltedForUpgrade();
      if (r.reason === 'halt') this.logger.error('halting', { height: (this.tip.height + 1n).toString(), kind: r.kind, exitCode: r.exitCode, msg: r.message });
      else if (r.reason === 'error') this.logger.error('block production failed', { height: (this.tip.height + 1n).toString(), error: r.error.message });
      return this.finish(r);
    }
    if (this.haltHeight !== undefined && this.tip.height >= this.haltHeight) {
      this.logger.info('halt height reached', { height: this.tip.height.toString() });
      return this.finish({ reason: 'halt-height', height: this.tip.height });
    }
    // a block listener may have stopped the driver (finished) or asked it to stop after this block
    const loop = this.loop as Loop;
    if (loop.kind === 'finished') return;
    if (loop.kind === 'in-block' && loop.stopAfter) return this.finish({ reason: 'stopped', height: this.tip.height });
    this.schedule();
  }

  /** Stops after the block in progress, if any (never half a block); resolves with `done`. */
  stop(): Promise<DriverStopResult> {
    // inside a block (a listener calling stop), tick() finishes once the block is committed
    if (this.loop.kind === 'in-block') this.loop = { kind: 'in-block', stopAfter: true };
    else this.finish({ reason: 'stopped', height: this.tip.height });
    return this.done;
  }

  private finish(r: DriverStopResult): void {
    if (this.loop.kind === 'finished') return;
    if (this.loop.kind === 'waiting') clearTimeout(this.loop.timer);
    this.loop = { kind: 'finished' };
    // a block stopped between its steps (a test driving them) must not stay half-done in the app
    if (this.stage === 'executed' || this.stage === 'saved') this.app.abortBlock();
    this.stage = 'idle';
    this.resolveDone(r);
  }
}

/** The FinalizeBlock (and ProcessProposal) request for a block, as CometBFT builds it from the block and the state before it. */
function finalizeRequest(block: Block, blockId: BlockID, before: ChainState): RequestFinalizeBlock {
  const h = block.header;
  return {
    txs: block.data.txs,
    decidedLastCommit: commitInfo(block.lastCommit ?? emptyCommit(), before.lastValidators),
    misbehavior: [],
    hash: blockId.hash,
    height: h.height,
    time: h.time,
    nextValidatorsHash: h.nextValidatorsHash,
    proposerAddress: h.proposerAddress,
  };
}
