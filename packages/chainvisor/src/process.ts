import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

export interface DaemonExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** set when the process could not be started at all (ENOENT, EACCES…) */
  readonly error?: Error;
  /** performance.now() when the exit was seen */
  readonly at: number;
}

export interface Daemon {
  readonly pid: number | undefined;
  readonly exited: Promise<DaemonExit>;
  /** Sends a signal if still running. */
  signal(sig: NodeJS.Signals): void;
  /**
   * SIGTERM, then SIGKILL after `graceMs`; 0: SIGKILL alone, as cosmovisor does. Nothing when it has already exited.
   * Resolves with the exit and whether SIGKILL ended it (read from the exit, so a log never claims a kill that did not happen).
   */
  stop(graceMs: number): Promise<DaemonExit & { readonly killed: boolean }>;
}

export function describeExit(e: DaemonExit): string {
  if (e.error) return `could not be started: ${e.error.message}`;
  if (e.signal) return `was killed by ${e.signal}`;
  return `exited with code ${e.code ?? '?'}`;
}

/** Starts `bin args…`; stdio inherited by default (the node's stdout stays the operator's). */
export function launch(bin: string, args: readonly string[], stdio: StdioOptions = 'inherit', env: NodeJS.ProcessEnv = process.env): Daemon {
  return adopt(spawn(bin, [...args], { stdio, env }));
}

/** The Daemon of a child already spawned (a warm standby that became the node). */
export function adopt(child: ChildProcess): Daemon {
  let done = false;
  const exited = new Promise<DaemonExit>((resolve) => {
    const finish = (e: DaemonExit): void => {
      if (done) return;
      done = true;
      resolve(e);
    };
    if (child.exitCode !== null || child.signalCode !== null) finish({ code: child.exitCode, signal: child.signalCode, at: performance.now() });
    child.once('error', (error) => finish({ code: null, signal: null, error, at: performance.now() }));
    child.once('exit', (code, signal) => finish({ code, signal, at: performance.now() }));
  });
  const signal = (sig: NodeJS.Signals): void => {
    if (!done) child.kill(sig);
  };
  return {
    pid: child.pid,
    exited,
    signal,
    async stop(graceMs: number) {
      if (done) return { ...(await exited), killed: false };
      signal(graceMs === 0 ? 'SIGKILL' : 'SIGTERM');
      const timer = graceMs === 0 ? undefined : setTimeout(() => signal('SIGKILL'), graceMs);
      const e = await exited;
      clearTimeout(timer);
      return { ...e, killed: e.signal === 'SIGKILL' };
    },
  };
}
