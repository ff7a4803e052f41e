import { ChaindError, errorMessage } from '@chaind/errors';
import '../codec/int64.ts';
import { TxMsgData } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import {
  CheckTxType,
  CommitInfo,
  ResponseProcessProposal_ProposalStatus,
  type Event,
  type ExecTxResult,
  type ExtendedCommitInfo,
  ResponseVerifyVoteExtension_VerifyStatus,
  type RequestCheckTx,
  type RequestExtendVote,
  type RequestVerifyVoteExtension,
  type ResponseExtendVote,
  type ResponseVerifyVoteExtension,
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
import {
  checkExtendedCommit,
  decodeInjectedTx,
  encodeInjectedTx,
  isInjectedTx,
  type ExtendedCommitCheck,
  type VerifiedExtension,
  type VoteExtensionHandler,
} from './vote-extensions.ts';

/** The ABCI 2.0 method set. Both consensus drivers (solo, CometBFT socket) call exactly this. */
export interface Application {
  info(req: RequestInfo): ResponseInfo;
  initChain(req: RequestInitChain): ResponseInitChain;
  checkTx(req: RequestCheckTx): ResponseCheckTx;
  prepareProposal(req: RequestPrepareProposal): ResponsePrepareProposal;
  processProposal(req: RequestProcessProposal): ResponseProcessProposal;
  extendVote(req: RequestExtendVote): ResponseExtendVote;
  verifyVoteExtension(req: RequestVerifyVoteExtension): ResponseVerifyVoteExtension;
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
  /** Vote extensions (none: ExtendVote adds nothing and VerifyVoteExtension accepts, as with the SDK's defaults). */
  readonly voteExtensions?: VoteExtensionHandler;
}

const ZERO_TIME: Timestamp = { seconds: 0n, nanos: 0 };

/** The empty data of a result without message responses (shared: a zero-length array cannot change). */
const NO_DATA = new Uint8Array(0);

/** The result of the block's extended-commit tx: not a user tx, it runs nothing and costs no gas. */
const INJECTED_RESULT: ExecTxResult = { code: 0, data: NO_DATA, log: '', info: 'extended commit', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '' };

/** The extended-commit tx ProcessProposal verified last: its height, its bytes (a copy of its own), the last commit it was checked against, its votes. */
interface VerifiedInjected {
  readonly height: bigint;
  readonly tx: Uint8Array;
  readonly lastCommit: Uint8Array;
  readonly votes: readonly VerifiedExtension[];
}

/**
 * The votes `v` holds when FinalizeBlock carries the very tx ProcessProposal verified, at the same height and
 * against the same last commit (so over the same committed state); otherwise undefined: check it again.
 */
function verifiedBefore(v: VerifiedInjected | null, height: bigint, tx: Uint8Array, lastCommit: CommitInfo): readonly VerifiedExtension[] | undefined {
  if (v === null || v.height !== height || Buffer.compare(v.tx, tx) !== 0) return undefined;
  return Buffer.compare(v.lastCommit, CommitInfo.encode(lastCommit).finish()) === 0 ? v.votes : undefined;
}

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
  private readonly voteExtensions: VoteExtensionHandler | undefined;
  /** So that FinalizeBlock does not verify again every signature ProcessProposal just did (bench/README.md, "Vote extensions"); one entry, memory only. */
  private verifiedInjected: VerifiedInjected | null = null;

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
    this.voteExtensions = o.voteExtensions;
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
      this.voteExtensions?.initChain(ctx, req.consensusParams?.abci?.voteExtensionsEnableHeight ?? 0n);
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
    const ve = this.voteExtensions;
    const injected = ve !== undefined && ve.onAt(ctx, req.height) && req.txs.length > 0 && isInjectedTx(req.txs[0]);
    try {
      if (injected) {
        // checked again unless this node's ProcessProposal verified these very bytes: a block replayed or fetched
        // by block sync never went through it, and a restart forgets what it verified
        const votes = verifiedBefore(this.verifiedInjected, req.height, req.txs[0], req.decidedLastCommit);
        const c: ExtendedCommitCheck = votes !== undefined ? { ok: true, votes } : this.checkInjected(ctx, req.txs[0], req.decidedLastCommit, req.height);
        if (c.ok) ve.finalize(ctx, c.votes);
        else
          this.logger.error('the block carries an extended commit that does not verify: its extensions are not recorded', {
            height: req.height.toString(),
            why: c.why,
          });
      }
      for (const m of this.modules.order('preBlock')) {
        if (m.preBlock?.(ctx)?.consensusParamsChanged) consensusParamsChanged = true;
      }
      for (const m of this.modules.order('beginBlock')) m.beginBlock?.(ctx);
      for (const [i, tx] of req.txs.entries()) txResults.push(i === 0 && injected ? INJECTED_RESULT : this.runTx('finalize', tx, this.store, header));
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
    if (isInjectedTx(req.tx)) {
      const e = abciError(errors.invalidRequest.wrap('an extended-commit tx is put in a block by its proposer, never sent'));
      return { ...e, data: NO_DATA, info: '', gasWanted: 0n, gasUsed: 0n, events: [] };
    }
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
      if (this.extensionsOnAt(req.height)) {
        // first, whatever its size: a proposal without it is refused by every validator
        const ext = encodeInjectedTx(req.localLastCommit ?? { round: 0, votes: [] });
        txs.push(ext);
        bytes += txProtoSize(ext);
      }
      for (const tx of req.txs) {
        if (isInjectedTx(tx)) continue;
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

  /**
   * Every tx decodes; with vote extensions on at this height the first is the extended commit of the block
   * before and verifies against the block's last commit (a proposer cannot forge, swap or drop an extension).
   */
  processProposal(req: RequestProcessProposal): ResponseProcessProposal {
    const reject = (why: string): ResponseProcessProposal => {
      this.logger.info('proposal rejected', { height: req.height.toString(), why });
      return { status: ResponseProcessProposal_ProposalStatus.REJECT };
    };
    let first = 0;
    if (this.extensionsOnAt(req.height)) {
      if (req.txs.length === 0 || !isInjectedTx(req.txs[0])) return reject('the first tx is not the extended commit of the block before');
      // checked on a copy of its own: FinalizeBlock compares its tx with what was verified, which must not change
      const tx = req.txs[0].slice();
      const lastCommit = req.proposedLastCommit ?? { round: 0, votes: [] };
      const c = this.checkInjected(this.committedContext(), tx, lastCommit, req.height);
      if (!c.ok) return reject(c.why);
      this.verifiedInjected = { height: req.height, tx, lastCommit: CommitInfo.encode(lastCommit).finish(), votes: c.votes };
      first = 1;
    }
    for (const tx of req.txs.slice(first)) {
      if (isInjectedTx(tx)) return reject('an extended-commit tx out of place');
      try {
        this.txDecoder(tx);
      } catch {
        return reject('a tx does not decode');
      }
    }
    return { status: ResponseProcessProposal_ProposalStatus.ACCEPT };
  }

  private checkInjected(ctx: Context, tx: Uint8Array, lastCommit: CommitInfo, height: bigint): ExtendedCommitCheck {
    const ve = this.voteExtensions;
    if (ve === undefined) return { ok: false, why: 'vote extensions are not handled by this app' };
    let ec: ExtendedCommitInfo;
    try {
      ec = decodeInjectedTx(tx);
    } catch {
      return { ok: false, why: 'the extended commit does not decode' };
    }
    return checkExtendedCommit(ec, lastCommit, { chainId: this.chainId ?? '', height, keyOf: (a) => ve.consensusKey(ctx, a) });
  }

  /** Whether the proposal at `height` carries an extended commit; never the first block (no block before it). */
  private extensionsOnAt(height: bigint): boolean {
    const ve = this.voteExtensions;
    return ve !== undefined && this.lastBlockHeight > 0n && ve.onAt(this.committedContext(), height);
  }

  /** A read-only context over the last committed state (ExtendVote, ProcessProposal). */
  private committedContext(): Context {
    if (this.committedSnap === null) throw new AppError('the app is closed: its committed state was released');
    return this.queryContext(this.committedSnap);
  }

  /** ExtendVote: the handler's extension, over the last committed state; none without a handler. */
  extendVote(req: RequestExtendVote): ResponseExtendVote {
    this.assertLoaded();
    const ve = this.voteExtensions;
    // nothing is scheduled before the first block commits (the upgrade module has no genesis state)
    return { voteExtension: ve === undefined || this.lastBlockHeight === 0n ? NO_DATA : ve.extendVote(this.committedContext(), req.height) };
  }

  /** VerifyVoteExtension: the handler's verdict; every extension is accepted without a handler. */
  verifyVoteExtension(req: RequestVerifyVoteExtension): ResponseVerifyVoteExtension {
    this.assertLoaded();
    const ve = this.voteExtensions;
    const ok =
      ve === undefined || (this.lastBlockHeight === 0n ? req.voteExtension.length === 0 : ve.verifyVoteExtension(this.committedContext(), req.voteExtension));
    return { status: ok ? ResponseVerifyVoteExtension_VerifyStatus.ACCEPT : ResponseVerifyVoteExtension_VerifyStatus.REJECT };
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
