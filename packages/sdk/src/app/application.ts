import { ChaindError, errorMessage } from '@chaind/errors';
import '../codec/int64.ts';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import {
  CheckTxType,
  ResponseProcessProposal_ProposalStatus,
  type Event,
  type ExecTxResult,
  type RequestCheckTx,
  type RequestFinalizeBlock,
  type RequestInfo,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestProcessProposal,
  type RequestQuery,
  type ResponseCheckTx,
  type ResponseCommit,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  type ResponseInitChain,
  type ResponsePrepareProposal,
  type ResponseProcessProposal,
  type ResponseQuery,
  type ValidatorUpdate,
} from 'cosmjs-types/tendermint/abci/types';
import { defaultStoreLoader, ScratchMultiStore, type CommitMultiStore, type MultiStore, type Snapshot, type StoreLoader } from '../store/index.ts';
import { Context, type BlockHeader, type ExecMode, type Timestamp } from './context.ts';
import { abciError, CodedError, errors } from './errors.ts';
import { BasicGasMeter, InfiniteGasMeter, type GasMeter } from './gas.ts';
import { nopLogger, type Logger } from './logger.ts';
import { txProtoSize } from './proposal.ts';
import { QueryCache, UNCACHED_QUERY_PREFIX } from './query-cache.ts';
import type { ModuleManager } from './manager.ts';

/** The ABCI 2.0 method set. Both consensus drivers (solo, CometBFT socket) call exactly this. */
export interface Application {
  info(req: RequestInfo): ResponseInfo;
  initChain(req: RequestInitChain): ResponseInitChain;
  checkTx(req: RequestCheckTx): ResponseCheckTx;
  prepareProposal(req: RequestPrepareProposal): ResponsePrepareProposal;
  processProposal(req: RequestProcessProposal): ResponseProcessProposal;
  finalizeBlock(req: RequestFinalizeBlock): ResponseFinalizeBlock;
  commit(): ResponseCommit;
  query(req: RequestQuery): ResponseQuery;
}

/** The least a decoded transaction offers the framework: its messages and its gas limit. */
export interface Tx {
  readonly msgs: readonly Any[];
  readonly gasLimit: bigint;
}

export type TxDecoder<T extends Tx> = (bytes: Uint8Array) => T;

/** Signature, sequence, fee and other checks before the messages run; its writes survive a failing message. */
export type AnteHandler<T extends Tx> = (ctx: Context, tx: T, simulate: boolean) => void;

export interface TxRunResult extends ExecTxResult {
  /** Message responses, decoded from `data`, for callers that want them without decoding. */
  readonly msgResponses: Any[];
}

export interface BaseAppOptions<T extends Tx> {
  readonly name: string;
  readonly version: string;
  readonly store: CommitMultiStore;
  readonly modules: ModuleManager;
  readonly txDecoder: TxDecoder<T>;
  readonly anteHandler?: AnteHandler<T>;
  readonly logger?: Logger;
  /** The chain id from genesis; block requests do not carry it (ABCI 2.0). */
  readonly chainId?: string;
  /** Most gas a simulation may use (undefined: unmetered); `simulate`'s own cap wins. */
  readonly simulationGasLimit?: bigint;
  /** Largest tx `simulate` runs (undefined: any size). */
  readonly simulationMaxTxBytes?: number;
  /** Most gas one query (`query`) may use, its store reads metered as a tx's (undefined: unmetered): the SDK's query-gas-limit. */
  readonly queryGasLimit?: bigint;
}

const ZERO_TIME: Timestamp = { seconds: 0n, nanos: 0 };

/** The empty data of a result without message responses (shared: a zero-length array cannot change). */
const NO_DATA = new Uint8Array(0);

/** The result of a tx that failed: its error's code, codespace and log, the gas it used and the events it kept. */
function failedTx(e: unknown, gasWanted: bigint, gasUsed: bigint, events: Event[]): TxRunResult {
  return { ...abciError(e), data: NO_DATA, info: '', gasWanted, gasUsed, events, msgResponses: [] };
}

export class AppError extends ChaindError<'app'> {
  override readonly name = 'AppError';
  constructor(message: string, options?: ErrorOptions) {
    super('app', message, options);
  }
}

/**
 * Where the app is in its ABCI life. load: unloaded → ready; InitChain (at height 0): → genesis;
 * FinalizeBlock: ready at height > 0, or genesis → finalized; Commit: finalized → ready; a failed
 * InitChain or FinalizeBlock and abortBlock: → ready, their writes discarded (genesis's with block 1's).
 */
type Phase =
  | { readonly kind: 'unloaded' }
  /** loaded, nothing uncommitted (at height 0: InitChain comes next) */
  | { readonly kind: 'ready' }
  /** InitChain's writes wait in the working set for block 1 */
  | { readonly kind: 'genesis' }
  /** block `height` is executed and waits for its Commit */
  | { readonly kind: 'finalized'; readonly height: bigint };

/**
 * The application: wires the module manager, routers and multistore into the ABCI 2.0 method set.
 * A block runs pre-blockers, begin-blockers, txs and end-blockers over the block's write set;
 * Commit makes it durable. A block that throws leaves nothing behind.
 */
export class BaseApp<T extends Tx = Tx> implements Application {
  readonly name: string;
  readonly version: string;
  readonly store: CommitMultiStore;
  readonly modules: ModuleManager;
  readonly logger: Logger;
  private readonly txDecoder: TxDecoder<T>;
  private anteHandler: AnteHandler<T> | undefined;
  private storeLoader: StoreLoader = defaultStoreLoader;
  private readonly queryCache = new QueryCache();
  private phase: Phase = { kind: 'unloaded' };
  private chainId: string | undefined;
  /** Protocol version reported by Info; the upgrade module raises it. */
  appVersion = 0n;
  private initialHeight = 1n;
  private lastHeader: BlockHeader | null = null;
  /**
   * The last committed state, read by the check state and `withQueryContext`, taken at each commit. Its
   * point reads are cached: the node pre-verifies a tx (reading its signer's account), then CheckTx reads
   * that account again, and the fee payer's balance twice.
   */
  private committedSnap: Snapshot | null = null;
  /** The tx runTx decoded last, with its bytes (a decoded tx is never changed). */
  private lastDecoded: { readonly bytes: Uint8Array; readonly tx: T } | null = null;
  private checkState: ScratchMultiStore | null = null;
  private readonly simulationGasLimit: bigint | undefined;
  private readonly simulationMaxTxBytes: number | undefined;
  private readonly queryGasLimit: bigint | undefined;

  constructor(o: BaseAppOptions<T>) {
    this.name = o.name;
    this.version = o.version;
    this.store = o.store;
    this.modules = o.modules;
    this.txDecoder = o.txDecoder;
    this.anteHandler = o.anteHandler;
    this.logger = o.logger ?? nopLogger;
    this.chainId = o.chainId;
    this.simulationGasLimit = o.simulationGasLimit;
    this.simulationMaxTxBytes = o.simulationMaxTxBytes;
    this.queryGasLimit = o.queryGasLimit;
    this.modules.registerServices();
  }

  setAnteHandler(h: AnteHandler<T>): void {
    this.anteHandler = h;
  }

  /** The spec's `app#SetStoreLoader`: how the multistore is loaded at start-up (store upgrades). */
  setStoreLoader(loader: StoreLoader): void {
    if (this.phase.kind !== 'unloaded') throw new AppError('the store loader must be set before the app is loaded');
    this.storeLoader = loader;
  }

  /** Mounts every module's stores and runs the store loader. */
  load(): void {
    if (this.phase.kind !== 'unloaded') throw new AppError('the app is already loaded');
    this.store.mount(this.modules.storeKeys());
    this.storeLoader(this.store);
    this.phase = { kind: 'ready' };
    this.resetCheckState();
  }

  private assertLoaded(): void {
    if (this.phase.kind === 'unloaded') throw new AppError('the app is not loaded: call load() first');
  }

  get lastBlockHeight(): bigint {
    return this.store.lastCommitInfo().height;
  }

  info(_req: RequestInfo): ResponseInfo {
    const last = this.store.lastCommitInfo();
    return {
      data: this.name,
      version: this.version,
      appVersion: this.appVersion,
      lastBlockHeight: last.height,
      lastBlockAppHash: last.appHash,
    };
  }

  initChain(req: RequestInitChain): ResponseInitChain {
    this.assertLoaded();
    if (this.lastBlockHeight !== 0n) throw new AppError(`InitChain on a chain already at height ${this.lastBlockHeight}`);
    // CometBFT sends InitChain again after it restarts before block 1 (possibly with a corrected genesis):
    // the uncommitted writes of an earlier one must not leak into this one
    this.store.discard();
    this.phase = { kind: 'ready' };
    if (this.chainId !== undefined && req.chainId !== this.chainId) {
      throw new AppError(`InitChain chain id "${req.chainId}" differs from the configured chain id "${this.chainId}"`);
    }
    if (req.chainId.length === 0) throw new AppError('genesis chain_id must not be empty');
    this.chainId = req.chainId;
    this.initialHeight = req.initialHeight > 0n ? req.initialHeight : 1n;
    let appState: unknown = {};
    if (req.appStateBytes.length > 0) {
      try {
        appState = JSON.parse(Buffer.from(req.appStateBytes).toString('utf8'));
      } catch (e) {
        throw new AppError(`genesis app_state is not valid JSON: ${errorMessage(e)}`);
      }
    }
    if (typeof appState !== 'object' || appState === null || Array.isArray(appState)) throw new AppError('genesis app_state must be a JSON object');
    const header: BlockHeader = { chainId: req.chainId, height: this.initialHeight, time: req.time ?? ZERO_TIME, proposerAddress: new Uint8Array(0) };
    const ctx = new Context({ store: this.store, header, mode: 'init', logger: this.logger });
    let validators: ValidatorUpdate[] | undefined;
    try {
      validators = this.modules.initGenesis(ctx, appState as Record<string, unknown>);
    } catch (e) {
      this.store.discard();
      throw e;
    }
    this.phase = { kind: 'genesis' };
    // the app's genesis validator set wins: CometBFT's genesis.json carries none of its own
    return { validators: validators ?? req.validators, appHash: this.store.workingAppHash() };
  }

  private header(height: bigint, time: Timestamp | undefined, proposer: Uint8Array): BlockHeader {
    if (this.chainId === undefined) throw new AppError('chain id unknown: run InitChain or configure it from genesis');
    return { chainId: this.chainId, height, time: time ?? ZERO_TIME, proposerAddress: proposer };
  }

  finalizeBlock(req: RequestFinalizeBlock): ResponseFinalizeBlock {
    this.assertLoaded();
    const last = this.lastBlockHeight;
    const expected = last === 0n ? this.initialHeight : last + 1n;
    if (req.height !== expected) throw new AppError(`FinalizeBlock for height ${req.height}, expected ${expected}`);
    if (this.phase.kind === 'finalized') throw new AppError(`FinalizeBlock for height ${req.height} while block ${this.phase.height} waits for its Commit`);
    if (last === 0n && this.phase.kind !== 'genesis') throw new AppError('FinalizeBlock of the first block needs InitChain first');
    const header = this.header(req.height, req.time, req.proposerAddress);
    const ctx = new Context({ store: this.store, header, mode: 'finalize', logger: this.logger });
    const txResults: ExecTxResult[] = [];
    let consensusParamsChanged = false;
    try {
      for (const m of this.modules.order('preBlock')) {
        if (m.preBlock?.(ctx)?.consensusParamsChanged) consensusParamsChanged = true;
      }
      for (const m of this.modules.order('beginBlock')) m.beginBlock?.(ctx);
      for (const tx of req.txs) txResults.push(this.runTx('finalize', tx, this.store, header));
      for (const m of this.modules.order('endBlock')) m.endBlock?.(ctx);
    } catch (e) {
      this.store.discard();
      // a failed first block takes the genesis writes with it: InitChain must run again
      this.phase = { kind: 'ready' };
      throw e;
    }
    this.phase = { kind: 'finalized', height: req.height };
    this.lastHeader = header;
    const events: Event[] = ctx.events.events();
    return {
      events,
      txResults,
      validatorUpdates: [],
      // a pre-blocker that changed consensus params (an applied upgrade) hands the new app version to consensus
      consensusParamUpdates: consensusParamsChanged ? { version: { app: this.appVersion } } : undefined,
      appHash: this.store.workingAppHash(),
    };
  }

  commit(): ResponseCommit {
    this.assertLoaded();
    if (this.phase.kind !== 'finalized') throw new AppError('Commit without a finalized block');
    this.store.commit(this.phase.height);
    this.phase = { kind: 'ready' };
    this.resetCheckState();
    return { retainHeight: 0n };
  }

  /** Drops a finalized but uncommitted block (a driver that decided not to commit it). */
  abortBlock(): void {
    this.store.discard();
    // the first block's write set holds the genesis writes too: InitChain must run again
    if (this.phase.kind !== 'unloaded') this.phase = { kind: 'ready' };
  }

  private resetCheckState(): void {
    this.committedSnap?.release();
    this.committedSnap = this.store.snapshot();
    this.checkState = new ScratchMultiStore(this.committedSnap);
  }

  /** The header queries and CheckTx run under: the last block's, or a synthetic one after a restart. */
  private stateHeader(height: bigint): BlockHeader {
    return this.lastHeader !== null && this.lastHeader.height === height
      ? this.lastHeader
      : { chainId: this.chainId ?? '', height, time: ZERO_TIME, proposerAddress: new Uint8Array(0) };
  }

  checkTx(req: RequestCheckTx): ResponseCheckTx {
    this.assertLoaded();
    const mode: ExecMode = req.type === CheckTxType.RECHECK ? 'recheck' : 'check';
    const state = this.checkState;
    if (state === null) throw new AppError('the app is closed: its committed state was released');
    const r = this.runTx(mode, req.tx, state, this.stateHeader(this.lastBlockHeight + 1n));
    return { code: r.code, data: r.data, log: r.log, info: r.info, gasWanted: r.gasWanted, gasUsed: r.gasUsed, events: r.events, codespace: r.codespace };
  }

  /** Runs a tx on a throw-away copy of committed state, without signature checks' effect on the result's state. */
  simulate(txBytes: Uint8Array, gasCap: bigint | undefined = this.simulationGasLimit): TxRunResult {
    this.assertLoaded();
    const max = this.simulationMaxTxBytes;
    // anyone may simulate, for free: a tx no mempool would take is not worth decoding
    if (max !== undefined && txBytes.length > max)
      return failedTx(errors.txTooLarge.wrap(`tx of ${txBytes.length} bytes exceeds the simulation limit of ${max} bytes`), 0n, 0n, []);
    const snap = this.store.snapshot();
    try {
      return this.runTx('simulate', txBytes, new ScratchMultiStore(snap), this.stateHeader(snap.height + 1n), gasCap);
    } finally {
      snap.release();
    }
  }

  /**
   * The app's decoding of tx bytes (throws on bytes that are no tx). The tx runTx decoded last is not
   * decoded again: the mempool reads the sender of the tx CheckTx just admitted.
   */
  decodeTx(bytes: Uint8Array): T {
    const last = this.lastDecoded;
    return last !== null && last.bytes === bytes ? last.tx : this.txDecoder(bytes);
  }

  /**
   * The proposer's txs, in order, that still pass the ante handler on the last committed state (one
   * after the other, as the block will run them: the SDK's PrepareProposalVerifyTx), within
   * `max_tx_bytes` counted as CometBFT counts the block's data. Undecodable txs are dropped too.
   */
  prepareProposal(req: RequestPrepareProposal): ResponsePrepareProposal {
    this.assertLoaded();
    const snap = this.store.snapshot();
    try {
      const state = new ScratchMultiStore(snap);
      const header = this.header(req.height, req.time, req.proposerAddress);
      const txs: Uint8Array[] = [];
      let bytes = 0n;
      for (const tx of req.txs) {
        const size = txProtoSize(tx);
        if (bytes + size > req.maxTxBytes) break;
        if (this.runTx('prepare', tx, state, header).code !== 0) continue;
        txs.push(tx);
        bytes += size;
      }
      return { txs };
    } finally {
      snap.release();
    }
  }

  processProposal(req: RequestProcessProposal): ResponseProcessProposal {
    for (const tx of req.txs) {
      try {
        this.txDecoder(tx);
      } catch {
        return { status: ResponseProcessProposal_ProposalStatus.REJECT };
      }
    }
    return { status: ResponseProcessProposal_ProposalStatus.ACCEPT };
  }

  /**
   * One transaction: decode, ante handler in a branch (kept when it succeeds), then every message in a
   * second branch written only if all succeed. Failures are results, never exceptions.
   */
  /** `simulateGasCap` bounds a simulation's gas (simulations are otherwise unmetered). */
  runTx(mode: ExecMode, bytes: Uint8Array, store: MultiStore, header: BlockHeader, simulateGasCap?: bigint): TxRunResult {
    let tx: T;
    try {
      tx = this.txDecoder(bytes);
      this.lastDecoded = { bytes, tx };
    } catch (e) {
      // a decoder that already chose a registered error keeps it; anything else is a parse error
      return failedTx(e instanceof CodedError ? e : errors.txDecode.wrap(errorMessage(e)), 0n, 0n, []);
    }
    if (tx.msgs.length === 0) return failedTx(errors.invalidRequest.wrap('must contain at least one message'), tx.gasLimit, 0n, []);
    const meter: GasMeter =
      mode !== 'simulate' ? new BasicGasMeter(tx.gasLimit) : simulateGasCap === undefined ? new InfiniteGasMeter() : new BasicGasMeter(simulateGasCap);
    const ctx = new Context({ store, header, mode, logger: this.logger, gasMeter: meter });
    try {
      const ante = ctx.branch();
      this.anteHandler?.(ante.ctx, tx, mode === 'simulate');
      ante.write();
      if (mode === 'check' || mode === 'recheck' || mode === 'prepare') {
        return {
          code: 0,
          codespace: '',
          log: '',
          data: NO_DATA,
          info: '',
          gasWanted: tx.gasLimit,
          gasUsed: meter.consumed(),
          events: ctx.events.events(),
          msgResponses: [],
        };
      }
      const run = ctx.branch();
      const router = this.modules.msgRouter;
      const msgResponses = tx.msgs.map((any) => {
        const { route, msg } = router.decode(any);
        return router.execute(run.ctx, route, msg);
      });
      run.write();
      return {
        code: 0,
        codespace: '',
        log: '',
        info: '',
        data: TxMsgData.encode(TxMsgData.fromPartial({ msgResponses })).finish(),
        gasWanted: tx.gasLimit,
        gasUsed: meter.consumed(),
        events: ctx.events.events(),
        msgResponses,
      };
    } catch (e) {
      return failedTx(e, tx.gasLimit, meter.consumed(), ctx.events.events());
    }
  }

  private queryContext(snap: Snapshot, gasLimit?: bigint): Context {
    const gasMeter = gasLimit === undefined ? undefined : new BasicGasMeter(gasLimit);
    return new Context({ store: new ScratchMultiStore(snap), header: this.stateHeader(snap.height), mode: 'query', logger: this.logger, gasMeter });
  }

  /** Runs `fn` over a read-only view of the latest committed state (writes are discarded). */
  withQueryContext<R>(fn: (ctx: Context) => R): R {
    this.assertLoaded();
    if (this.committedSnap === null) throw new AppError('the app is closed: its committed state was released');
    return fn(this.queryContext(this.committedSnap));
  }

  /** Releases the committed state CheckTx and `withQueryContext` read (before the store closes). */
  releaseQuerySnapshot(): void {
    this.committedSnap?.release();
    this.committedSnap = null;
    this.checkState = null;
  }

  /** ABCI Query: gRPC method paths through the query router, and `/store/<name>/key` raw reads. Latest height only. */
  query(req: RequestQuery): ResponseQuery {
    this.assertLoaded();
    // a committed height never changes: the same request at the same height gets the same answer, so
    // answers are kept until the next commit (the REST, gRPC and JSON-RPC servers all come through here)
    const last = this.store.lastCommitInfo();
    if (this.queryCache.commit !== last) this.queryCache.reset(last);
    const cacheable = (req.height === 0n || req.height === last.height) && !req.path.startsWith(UNCACHED_QUERY_PREFIX);
    const key = cacheable ? `${req.path}\n${Buffer.from(req.data.buffer, req.data.byteOffset, req.data.byteLength).toString('latin1')}` : '';
    if (cacheable) {
      const hit = this.queryCache.get(key);
      if (hit !== undefined) return hit;
    }
    const res = this.runQuery(req);
    if (cacheable) this.queryCache.set(key, res);
    return res;
  }

  private runQuery(req: RequestQuery): ResponseQuery {
    const snap = this.store.snapshot();
    const base: ResponseQuery = { code: 0, log: '', info: '', index: 0n, key: req.data, value: new Uint8Array(0), height: snap.height, codespace: '' };
    try {
      if (req.height !== 0n && req.height !== snap.height) {
        throw errors.invalidHeight.wrap(`cannot query height ${req.height}: only the latest height ${snap.height} is available`);
      }
      const raw = /^\/store\/([^/]+)\/key$/.exec(req.path);
      if (raw !== null) {
        if (!snap.hasStore(raw[1])) throw errors.unknownRequest.wrap(`unknown store "${raw[1]}"`);
        return { ...base, value: snap.getStore(raw[1]).get(req.data) ?? new Uint8Array(0) };
      }
      // a query is free to anyone: its reads are metered, so one request cannot walk the whole state
      return { ...base, value: this.modules.queryRouter.query(this.queryContext(snap, this.queryGasLimit), req.path, req.data) };
    } catch (e) {
      return { ...base, ...abciError(e) };
    } finally {
      snap.release();
    }
  }
}
