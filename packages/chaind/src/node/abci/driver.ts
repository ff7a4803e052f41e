// The consensus driver behind CometBFT (`chaind start`, CometBFT its child or, with --with-comet=false, the operator's): chaind is the ABCI server
// CometBFT dials (proxy_app) and makes no block of its own. The consensus connection executes
// CometBFT's blocks; the mempool connection runs CheckTx on the last committed state (the app's check
// state, reset at Commit) even while a block executes; the query connection answers Info, Query and
// Echo. A block that halts the chain (an upgrade) answers FinalizeBlock with an exception and is never
// committed, so CometBFT replays it to the next binary (shared/reference/cometbft-v038.md §1.6). Any
// other failure of FinalizeBlock or Commit stops the node with that error (exit 1): CometBFT would only
// replay the block into the same failure, again and again (§5).
import { AbciProtocolError, listenAbci, type AbciConnectionInfo, type AbciServer } from '@chaind/abci';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { Request, RequestFinalizeBlock, Response } from 'cosmjs-types/tendermint/abci/types';
import { nopLogger, type Application, type Logger } from '@chaind/sdk/app';
import { toHex } from '@chaind/sdk/store';
import type { CommittedBlock, ConsensusDriver, DriverStopResult, TxAdmission, TxLookup } from '../driver.ts';
import { stopResultFromError } from '../driver.ts';
import { userTxCount, userTxRecords } from '../user-txs.ts';
import { answerQuery, type AnswerApp } from '../query/simulate.ts';
import { nopMetrics, type NodeMetrics } from '../metrics/index.ts';
import { BlockTimes, type HeaderTimes } from './block-times.ts';
import { AbciConnection, snapshotResponse, type RequestKind } from './connection.ts';
import { errorMessage } from '@chaind/errors';

/** The app as CometBFT calls it, and dropping a finalized block that will not be committed. */
export type AbciApp = Application &
  AnswerApp & {
    abortBlock(): void;
    readonly lastBlockHeight: bigint;
  };

export interface AbciDriverOptions {
  readonly app: AbciApp;
  /** Where chaind listens for CometBFT: tcp://host:port or unix:///path. */
  readonly address: string;
  /** The largest ABCI message accepted (CometBFT's own limit is math.MaxInt32). */
  readonly maxMessageBytes?: number;
  /** ABCI connections served at once (app.toml [abci] max-connections); CometBFT opens four. */
  readonly maxConnections?: number;
  /** Silence before TCP keepalive probes start on an ABCI connection (app.toml [abci] keepalive-initial-delay). */
  readonly keepAliveInitialDelayMs?: number;
  /** CometBFT's side of the node: its mempool (broadcasts), its tx index and its headers' times. */
  readonly comet: TxAdmission & TxLookup & HeaderTimes;
  readonly logger?: Logger;
  /** Stop once this height is committed (`--halt-height`, app.toml halt-height). */
  readonly haltHeight?: bigint;
  /** Where CheckTx's and FinalizeBlock's durations go (default: nowhere). */
  readonly metrics?: NodeMetrics;
  /** At the upgrade halt, how long FinalizeBlock(H) stays unanswered before its exception (app.toml `[abci] halt-linger`; default 0). */
  readonly haltLingerMs?: number;
}

/** How long a halt or a failed block waits for its exception to be written to CometBFT before the node stops anyway. */
const HALT_GRACE_MS = 2_000;

export class AbciDriver implements ConsensusDriver {
  readonly chainId: string;
  readonly done: Promise<DriverStopResult>;
  /**
   * Resolves at the first Commit of a block this node saw proposed (PrepareProposal or ProcessProposal): the
   * network is making blocks with it. Not at the handshake's replay, nor in block sync: after an upgrade the
   * restarted validators are then still deciding block H+1, which the servers' start-up would delay.
   */
  readonly serving: Promise<void>;
  private resolveServing!: () => void;
  private proposalSeen = false;
  readonly admission: TxAdmission;
  readonly txs: TxLookup;
  private readonly app: AbciApp;
  private readonly logger: Logger;
  private readonly haltHeight: bigint | undefined;
  private readonly metrics: NodeMetrics;
  private readonly haltLingerMs: number;
  private readonly listeners = new Set<(b: CommittedBlock) => void>();
  private readonly times: BlockTimes;
  private server: AbciServer | undefined;
  private resolveDone!: (r: DriverStopResult) => void;
  /** Serving; stopping on a halt or a failed block (its exception on its way to CometBFT); or done. */
  private life: { readonly state: 'running' } | { readonly state: 'halting'; readonly result: DriverStopResult } | { readonly state: 'finished' } = {
    state: 'running',
  };
  private cometStopping = false;
  /** The consensus connection: the newest that sent a consensus request. */
  private consensus: AbciConnectionInfo | undefined;
  /** The block FinalizeBlock executed and Commit has not yet committed. */
  private pending: { readonly req: RequestFinalizeBlock; readonly res: CommittedBlock['results'] } | undefined;

  private constructor(o: AbciDriverOptions, chainId: string) {
    this.app = o.app;
    this.chainId = chainId;
    this.admission = o.comet;
    this.txs = o.comet;
    this.times = new BlockTimes(o.comet);
    this.logger = o.logger ?? nopLogger;
    this.haltHeight = o.haltHeight;
    this.metrics = o.metrics ?? nopMetrics;
    this.haltLingerMs = o.haltLingerMs ?? 0;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.serving = new Promise((resolve) => (this.resolveServing = resolve));
  }

  /** Listens on the ABCI address; rejects with the listen error (address in use, bad address). */
  static async listen(o: AbciDriverOptions, chainId: string): Promise<AbciDriver> {
    const d = new AbciDriver(o, chainId);
    if (d.haltHeight !== undefined && o.app.lastBlockHeight >= d.haltHeight) {
      d.logger.info('halt height reached', { height: o.app.lastBlockHeight.toString(), haltHeight: d.haltHeight.toString() });
      d.finish({ reason: 'halt-height', height: o.app.lastBlockHeight });
      return d;
    }
    d.server = await listenAbci({
      address: o.address,
      maxMessageBytes: o.maxMessageBytes,
      maxConnections: o.maxConnections,
      keepAliveInitialDelayMs: o.keepAliveInitialDelayMs,
      connect: (info) => {
        const conn = new AbciConnection({ claimConsensus: () => d.claimConsensus(info), handle: (kind, req) => d.handle(kind, req, info) });
        d.logger.debug('CometBFT connected', { connection: info.id, remote: info.remote });
        return {
          handle: (req: Request) => conn.handle(req),
          closed: (err?: Error) => d.connectionClosed(info.id, conn.connectionRole, err),
        };
      },
      // the server's own lines are detail: this driver logs what an operator needs (listening, CometBFT gone)
      // (and connections closing because the node stops are no news)
      log: (level, msg, fields) =>
        d.logger[level === 'info' || (d.life.state === 'finished' && level === 'warn') ? 'debug' : level](
          msg,
          fields === undefined ? undefined : definedFields(fields),
        ),
    });
    d.logger.info('ABCI server listening: waiting for CometBFT', { address: d.server.address, height: o.app.lastBlockHeight.toString() });
    return d;
  }

  /** The bound address (the real port when listening on :0). */
  get address(): string {
    return this.server?.address ?? '';
  }

  get height(): bigint {
    return this.app.lastBlockHeight;
  }

  /** The times of the blocks this process committed, else CometBFT's `header` (kept, bounded). */
  blockTime(height: bigint): Promise<Timestamp | undefined> {
    if (height < 1n || height > this.app.lastBlockHeight) return Promise.resolve(undefined);
    return this.times.get(height);
  }

  onBlock(listener: (b: CommittedBlock) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * CometBFT opens one consensus connection, so a second one is a restarted CometBFT whose old connection
   * never closed (its host vanished without a FIN): the newest wins, the old one is closed.
   */
  private claimConsensus(info: AbciConnectionInfo): void {
    const old = this.consensus;
    this.consensus = info;
    if (old === undefined) return;
    this.logger.warn('a new consensus connection replaces the open one (CometBFT restarted; the old one is closed)', { connection: info.id, replaced: old.id });
    // dropped now, not at the old connection's close event, which comes after this connection's first request
    this.dropPending('the consensus connection was replaced between FinalizeBlock and Commit: the block is dropped and will be replayed');
    old.close(new AbciProtocolError(`replaced by the newer consensus connection ${info.id}`));
  }

  /** CometBFT replays an uncommitted block when it comes back: drop our execution of it. */
  private dropPending(msg: string): void {
    if (this.pending === undefined) return;
    this.app.abortBlock();
    this.logger.warn(msg, { height: this.pending.req.height.toString() });
    this.pending = undefined;
  }

  /** chaind is stopping its own CometBFT: the connections closing then are expected, not a CometBFT gone missing. */
  expectCometStop(): void {
    this.cometStopping = true;
  }

  private connectionClosed(id: number, role: string | undefined, err: Error | undefined): void {
    // a replaced connection's close is no news: its successor already took over
    if (role === 'consensus' && this.consensus?.id !== id) {
      this.logger.debug('the replaced consensus connection closed', { connection: id, error: err?.message });
      return;
    }
    if (role === 'consensus') {
      this.consensus = undefined;
      if (this.life.state === 'halting') this.finish(this.life.result);
      this.dropPending('the consensus connection closed between FinalizeBlock and Commit: the block is dropped and will be replayed');
    }
    if (this.life.state === 'finished') return;
    const fields = { connection: id, role: role ?? 'none', error: err?.message };
    if (role === 'consensus' && this.cometStopping) this.logger.debug('CometBFT closed the consensus connection: it is stopping', fields);
    else if (role === 'consensus') this.logger.warn('CometBFT closed the consensus connection; waiting for it to reconnect', fields);
    else this.logger.debug('ABCI connection closed', fields);
  }

  private handle(kind: RequestKind, req: Request, from: AbciConnectionInfo): Response | Promise<Response> {
    if (this.life.state === 'finished') throw new AbciProtocolError('the node is stopping');
    const app = this.app;
    switch (kind) {
      case 'echo':
        return { echo: { message: req.echo?.message ?? '' } };
      case 'info':
        return { info: app.info(req.info!) };
      case 'query':
        return { query: answerQuery(app, req.query!, app.lastBlockHeight) };
      case 'checkTx':
        return { checkTx: this.metrics.timeCheckTx(() => app.checkTx(req.checkTx!)) };
      case 'initChain': {
        this.assertConsensus(from);
        const res = app.initChain(req.initChain!);
        this.logger.info('InitChain', { chainId: req.initChain!.chainId, validators: res.validators.length, appHash: toHex(res.appHash) });
        return { initChain: res };
      }
      case 'prepareProposal':
        this.assertConsensus(from);
        this.proposalSeen = true;
        return { prepareProposal: app.prepareProposal(req.prepareProposal!) };
      case 'processProposal':
        this.assertConsensus(from);
        this.proposalSeen = true;
        return { processProposal: app.processProposal(req.processProposal!) };
      case 'finalizeBlock':
        this.assertConsensus(from);
        return this.lingerOnHalt(() => ({
          finalizeBlock: this.failStops('FinalizeBlock', req.finalizeBlock!.height, () => this.finalizeBlock(req.finalizeBlock!)),
        }));
      case 'commit':
        this.assertConsensus(from);
        return { commit: this.failStops('Commit', this.pending?.req.height ?? this.app.lastBlockHeight + 1n, () => this.commit()) };
      case 'extendVote':
        this.assertConsensus(from);
        return { extendVote: app.extendVote(req.extendVote!) };
      case 'verifyVoteExtension':
        this.assertConsensus(from);
        return { verifyVoteExtension: app.verifyVoteExtension(req.verifyVoteExtension!) };
      default: {
        const r = snapshotResponse(kind);
        if (r === undefined) throw new AbciProtocolError(`unsupported request ${kind}`);
        return r;
      }
    }
  }

  /**
   * The upgrade halt's exception makes CometBFT stop itself at once, before its gossip has given block H's
   * precommits to peers still missing some; those would wait at H until restarted validators tell them,
   * restarting a whole upgrade later. So the exception is sent after haltLingerMs, CometBFT running meanwhile.
   */
  private lingerOnHalt(run: () => Response): Response | Promise<Response> {
    try {
      return run();
    } catch (e) {
      if (this.life.state !== 'halting' || this.life.result.reason !== 'halt' || this.haltLingerMs <= 0) throw e;
      return new Promise((_, reject) => setTimeout(() => reject(e), this.haltLingerMs));
    }
  }

  /** A replaced connection's requests still queued when it was closed are not run. */
  private assertConsensus(from: AbciConnectionInfo): void {
    if (this.consensus?.id !== from.id) throw new AbciProtocolError('this consensus connection was replaced by a newer one');
  }

  /**
   * Runs FinalizeBlock or Commit; a failure other than an upgrade halt stops the node with that error, once
   * the exception has reached CometBFT (its replay would fail the same way, and it would crash-loop).
   */
  private failStops<T>(method: 'FinalizeBlock' | 'Commit', height: bigint, run: () => T): T {
    try {
      return run();
    } catch (e) {
      if (this.life.state !== 'running') throw e; // the upgrade halt, already on its way
      const error = e instanceof Error ? e : new Error(String(e));
      this.logger.error(`${method} failed: the node stops (CometBFT would replay the block into the same failure)`, {
        height: height.toString(),
        error: error.message,
      });
      const r: DriverStopResult = { reason: 'error', error, height: this.app.lastBlockHeight };
      this.life = { state: 'halting', result: r };
      setTimeout(() => this.finish(r), HALT_GRACE_MS).unref();
      throw e;
    }
  }

  private finalizeBlock(req: RequestFinalizeBlock): CommittedBlock['results'] {
    if (this.pending !== undefined) {
      // a FinalizeBlock without the previous block's Commit: CometBFT decided again, keep only this one
      this.app.abortBlock();
      this.pending = undefined;
    }
    let res: CommittedBlock['results'];
    try {
      res = this.metrics.timeFinalizeBlock(() => this.app.finalizeBlock(req));
    } catch (e) {
      const r = stopResultFromError(e, this.app.lastBlockHeight);
      if (r.reason === 'halt') {
        this.metrics.haltedForUpgrade();
        // nothing of block H is committed: CometBFT stores H and replays it to the next binary
        this.logger.error('halting', { height: req.height.toString(), kind: r.kind, exitCode: r.exitCode, msg: r.message });
        // the exception reaches CometBFT before the process exits: finish when the server has written it
        // and closed the connection, or after a grace period
        this.life = { state: 'halting', result: r };
        setTimeout(() => this.finish(r), this.haltLingerMs + HALT_GRACE_MS).unref();
      }
      throw e;
    }
    if (res.txResults.length !== req.txs.length) {
      this.app.abortBlock();
      throw new Error(`FinalizeBlock returned ${res.txResults.length} tx results for ${req.txs.length} txs at height ${req.height}`);
    }
    this.pending = { req, res };
    return res;
  }

  private commit(): ReturnType<Application['commit']> {
    const p = this.pending;
    if (p === undefined) throw new AbciProtocolError('Commit without a finalized block');
    const res = this.app.commit();
    this.pending = undefined;
    const h = p.req.height;
    this.logger.info('committed block', { height: h.toString(), txs: userTxCount(p.req.txs), hash: toHex(p.req.hash), appHash: toHex(p.res.appHash) });
    // FinalizeBlock carries the header's time: kept, so the dashboard and metrics need not ask CometBFT for it
    this.times.record(h, p.req.time);
    // a block's tx hashes are for listeners only: none listens behind CometBFT unless something subscribed
    if (this.listeners.size > 0) {
      const block: CommittedBlock = { height: h, results: p.res, txs: userTxRecords(h, p.req.txs, p.res.txResults), time: p.req.time };
      for (const l of [...this.listeners]) {
        try {
          l(block);
        } catch (err) {
          this.logger.error('block listener failed', { height: h.toString(), error: String(err) });
        }
      }
    }
    if (this.haltHeight !== undefined && h >= this.haltHeight) {
      this.logger.info('halt height reached', { height: h.toString() });
      setImmediate(() => this.finish({ reason: 'halt-height', height: h }));
    }
    if (this.proposalSeen) this.resolveServing();
    return res;
  }

  /** Stops serving CometBFT: closes the listener and the connections (an uncommitted block is dropped). */
  async stop(): Promise<DriverStopResult> {
    this.finish({ reason: 'stopped', height: this.app.lastBlockHeight });
    return this.done;
  }

  private finish(r: DriverStopResult): void {
    if (this.life.state === 'finished') return;
    this.life = { state: 'finished' };
    const server = this.server;
    this.server = undefined;
    void (async () => {
      try {
        await server?.close();
      } catch (e) {
        this.logger.warn('closing the ABCI server failed', { error: errorMessage(e) });
      }
      if (this.pending !== undefined) {
        this.app.abortBlock();
        this.pending = undefined;
      }
      this.resolveDone(r);
    })();
  }
}

const definedFields = (f: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
