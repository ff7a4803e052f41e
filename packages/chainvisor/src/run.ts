import { mkdirSync } from 'node:fs';
import { readUpgradeInfoFile, UPGRADE_INFO_FILE, type UpgradeInfoFile } from '@chaind/upgrade-plan';
import { watchBatch } from './batch-watch.ts';
import { upgradeInfoLimit } from './config.ts';
import { ChainvisorError, EXIT, type ExitCode } from './exit-codes.ts';
import { currentBinary } from './layout.ts';
import { ms } from './log.ts';
import { nopVisorMetrics } from './metrics.ts';
import { describeExit, launch, type Daemon } from './process.ts';
import { skipUpgradeHeights } from './skip.ts';
import { keepStandby, type Standby } from './standby.ts';
import { nodeHeight, waitForHeight } from './rpc.ts';
import { isPending, performUpgrade, type Timings, type UpgradeContext, type UpgradeDone } from './upgrade.ts';
import { watchFile } from './watch.ts';
import { errorMessage } from '@chaind/errors';

export interface RunOptions {
  /** DAEMON_PREPARE_UPGRADE: runs while the daemon runs, stopped through the signal */
  readonly autoPrepare?: (signal: AbortSignal) => Promise<void>;
  /** signals to forward; tests use none and drive the process directly */
  readonly signals?: readonly NodeJS.Signals[];
}

const sleep = (n: number): Promise<void> => new Promise((r) => setTimeout(r, n));

/**
 * data/upgrade-info.json when it names an upgrade `current` has not been switched to, at a height the daemon
 * is not told to skip. A file that is not complete JSON is waited for (someone is writing it) for a bounded
 * time; a complete but invalid file is an error.
 */
async function pendingUpgrade(ctx: UpgradeContext, skip: ReadonlySet<bigint>): Promise<UpgradeInfoFile | undefined> {
  const waitMs = Math.max(2000, 10 * ctx.cfg.pollIntervalMs);
  const deadline = performance.now() + waitMs;
  for (let warned = false; ; ) {
    const r = readUpgradeInfoFile(ctx.l.upgradeInfoFile, upgradeInfoLimit(ctx.cfg));
    if (r.state === 'absent') return undefined;
    if (r.state === 'invalid') throw new ChainvisorError(EXIT.UPGRADE_INFO_INVALID, `${ctx.l.upgradeInfoFile} is invalid: ${r.why}`);
    if (r.state === 'ok') {
      if (!isPending(ctx, r.info)) return undefined;
      if (!skip.has(r.info.height)) return r.info;
      ctx.log.info(
        `upgrade ${r.info.name} at height ${r.info.height} is skipped (--unsafe-skip-upgrades): starting the current release, which clears the plan`,
      );
      return undefined;
    }
    if (performance.now() > deadline)
      throw new ChainvisorError(EXIT.UPGRADE_INFO_INVALID, `${ctx.l.upgradeInfoFile} is invalid: still ${r.why} after ${ms(waitMs)}`);
    if (!warned) ctx.log.warn(`${ctx.l.upgradeInfoFile} is incomplete (${r.why}): waiting for it to be completed`);
    warned = true;
    await sleep(ctx.cfg.pollIntervalMs);
  }
}

function breakdown(t: Timings): string {
  return `stop ${ms(t.stop)}, delay ${ms(t.delay)}, backup ${ms(t.backup)}, pre-upgrade script ${ms(t.script)}, binary ${ms(t.binary)}, pre-upgrade ${ms(t.preUpgrade)}, switch ${ms(t.switch)}`;
}

/**
 * `chainvisor run`: launches `current`'s binary with `args`, watches for an upgrade, performs it and relaunches.
 * Resolves with the exit code; every failure has been logged as one error line.
 */
export async function run(ctx: UpgradeContext, args: readonly string[], o: RunOptions = {}): Promise<ExitCode> {
  const { cfg, l, log } = ctx;
  const metrics = ctx.metrics ?? nopVisorMetrics;
  let daemon: Daemon | undefined;
  let stopping: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    stopping = sig;
    log.info(`received ${sig}: forwarding it to ${l.daemonName}`);
    daemon?.signal(sig);
  };
  const signals = o.signals ?? ['SIGINT', 'SIGTERM'];
  for (const s of signals) process.on(s, onSignal);
  const skip = skipUpgradeHeights(args);
  const standby: { current?: Standby } = {};
  try {
    mkdirSync(l.dataDir, { recursive: true }); // watched from the first launch, before the node creates it
    let next: UpgradeInfoFile | undefined;
    let haltSeenAt: number | undefined;
    let stopMs = 0;
    let launches = 0;
    for (;;) {
      if (stopping) return EXIT.OK;
      // before EVERY launch: never start the old binary past an upgrade height (cosmovisor #25861)
      next ??= await pendingUpgrade(ctx, skip);
      let done: UpgradeDone<Standby> | undefined;
      let t0 = 0;
      if (next) {
        metrics.state('upgrading');
        t0 = haltSeenAt ?? performance.now();
        const warm = standby.current;
        standby.current = undefined; // performUpgrade uses it or ends it
        done = await performUpgrade(ctx, next, stopMs, warm);
        next = undefined;
        if (!cfg.restartAfterUpgrade) {
          log.info(
            `upgrade ${done.info.name} at height ${done.info.height} done, not restarted (DAEMON_RESTART_AFTER_UPGRADE=false): downtime so far ${ms(performance.now() - t0)} (${breakdown(done.timings)})`,
          );
          done.standby?.cancel();
          return EXIT.OK;
        }
        if (stopping) {
          done.standby?.cancel();
          return EXIT.OK;
        }
      }
      haltSeenAt = undefined;
      stopMs = 0;

      const bin = currentBinary(l);
      const startAt = performance.now();
      const warmed = done?.standby?.start();
      if (warmed) log.info(`starting ${bin}${args.length ? ' ' + args.join(' ') : ''}: the standby (pid ${warmed.pid ?? '?'}) runs it`);
      else {
        if (done?.standby) log.warn(`warm start: the standby (pid ${done.standby.pid ?? '?'}) exited after its pre-upgrade: starting ${bin} cold`);
        log.info(`starting ${bin}${args.length ? ' ' + args.join(' ') : ''}`);
      }
      const d = warmed ?? launch(bin, args);
      metrics.state('running');
      if (launches++ > 0) metrics.restarted();
      daemon = d;
      const stopTasks = new AbortController();
      if (done) void summarize(ctx, done, t0, startAt, stopTasks.signal);
      void watchBatch(ctx, stopTasks.signal);
      if (cfg.warmStart && cfg.restartAfterUpgrade) void keepStandby(ctx, args, standby, stopTasks.signal);
      if (o.autoPrepare) void o.autoPrepare(stopTasks.signal).catch((e: unknown) => log.warn(`prepare-upgrade: ${errorMessage(e)}`));

      let waitingLogged = '';
      let busyLogged = '';
      let writtenAhead = false;
      let invalidLogged = '';
      let errorLogged = '';
      const watcher = watchFile(
        l.dataDir,
        UPGRADE_INFO_FILE,
        cfg.pollIntervalMs,
        async () => {
          const r = readUpgradeInfoFile(l.upgradeInfoFile, upgradeInfoLimit(cfg));
          if (r.state === 'invalid' && invalidLogged !== r.why) {
            invalidLogged = r.why;
            log.warn(`${l.upgradeInfoFile} is invalid: ${r.why}`);
          }
          if (r.state !== 'ok' || !isPending(ctx, r.info) || skip.has(r.info.height)) return false;
          // a plan written ahead of its height (a batch entry, add-upgrade --upgrade-height) waits for the chain.
          // A node that takes the request but does not answer in time is alive and busy, not halted: wait (one
          // missed answer under load stopped a node at 10 for an upgrade at 10010). Nothing answering → act.
          const n = await nodeHeight(cfg.rpcAddress, 1000);
          if (n.state === 'busy') {
            if (busyLogged !== r.info.name) log.info(`upgrade ${r.info.name} at height ${r.info.height}: the node did not tell its height within 1s: waiting`);
            busyLogged = r.info.name;
            return false;
          }
          if (n.state === 'down' && waitingLogged === r.info.name) return false;
          if (n.state === 'height' && n.height < r.info.height - 1n) {
            if (waitingLogged !== r.info.name) log.info(`upgrade ${r.info.name} is due at height ${r.info.height}, the node is at ${n.height}: waiting`);
            waitingLogged = r.info.name;
            return false;
          }
          // written ahead of its height (a batch entry, add-upgrade --upgrade-height): no halt of the node's
          // own comes, so it is stopped at once, before it commits that height
          writtenAhead = waitingLogged === r.info.name;
          return true;
        },
        (e) => {
          const m = `checking ${l.upgradeInfoFile}: ${errorMessage(e)}`;
          if (m !== errorLogged) log.warn(m); // once, not every poll
          errorLogged = m;
        },
      );
      const first = await Promise.race([d.exited.then(() => 'exit' as const), watcher.detected.then(() => 'upgrade' as const)]);
      watcher.close();
      if (first === 'upgrade') {
        haltSeenAt = performance.now();
        metrics.state('upgrading');
        // chaind writes the file at the halt and exits by itself (code 10) after its halt-linger: never killed mid-exit
        const byItself = await Promise.race([d.exited.then(() => true), sleep(writtenAhead ? cfg.pollIntervalMs : cfg.haltExitWaitMs).then(() => false)]);
        if (byItself) log.info(`upgrade detected in ${l.upgradeInfoFile}: ${l.daemonName} stopped by itself`);
        else {
          log.info(`upgrade detected in ${l.upgradeInfoFile}: stopping ${l.daemonName} (pid ${d.pid ?? '?'})`);
          const s = await d.stop(cfg.shutdownGraceMs);
          if (s.killed && cfg.shutdownGraceMs === 0) log.info(`sent SIGKILL to ${l.daemonName} (DAEMON_SHUTDOWN_GRACE is 0)`);
          else if (s.killed) log.warn(`${l.daemonName} did not stop within DAEMON_SHUTDOWN_GRACE (${ms(cfg.shutdownGraceMs)}): sent SIGKILL`);
        }
      }
      const exit = await d.exited;
      haltSeenAt ??= exit.at;
      stopMs = exit.at - haltSeenAt;
      stopTasks.abort();
      daemon = undefined;
      log.info(`${l.daemonName} ${describeExit(exit)}`);
      if (stopping) {
        const sigCode = exit.signal !== null || exit.code === 0 || exit.code === 130 || exit.code === 143;
        if (sigCode) return EXIT.OK;
        log.error(`${l.daemonName} ${describeExit(exit)} while stopping on ${stopping}`);
        return EXIT.DAEMON_FAILED;
      }
      // the node halts by itself at the height (exit code 10) after writing the file: check it in every case
      next = await pendingUpgrade(ctx, skip);
      if (next) continue;
      if (exit.code === 0) return EXIT.OK;
      log.error(`${l.daemonName} ${describeExit(exit)} and no upgrade is pending: not restarted; current and data/ left untouched`);
      return EXIT.DAEMON_FAILED;
    }
  } finally {
    standby.current?.cancel();
    for (const s of signals) process.off(s, onSignal);
  }
}

/** The summary line after an upgrade: downtime = halt seen → first block committed by the new binary. */
async function summarize(ctx: UpgradeContext, done: UpgradeDone, t0: number, startAt: number, signal: AbortSignal): Promise<void> {
  const at = await waitForHeight(ctx.cfg.rpcAddress, done.info.height, signal);
  const t = done.timings;
  const sec = (n: number): number => n / 1000;
  const phases = {
    stop: sec(t.stop),
    delay: sec(t.delay),
    backup: sec(t.backup),
    script: sec(t.script),
    binary: sec(t.binary),
    preUpgrade: sec(t.preUpgrade),
    switch: sec(t.switch),
  };
  ctx.metrics?.upgraded(done.info.name, at === undefined ? undefined : sec(at - t0), { ...phases, start: at === undefined ? 0 : sec(at - startAt) });
  const head = `upgrade ${done.info.name} at height ${done.info.height} done`;
  if (at === undefined) {
    ctx.log.warn(
      `${head}: downtime unknown, the node did not report height ${done.info.height} at ${ctx.cfg.rpcAddress} before it stopped (${breakdown(done.timings)})`,
    );
    return;
  }
  ctx.log.info(`${head}: downtime ${ms(at - t0)} (${breakdown(done.timings)}, start→first block ${ms(at - startAt)})`);
}
