// For the CLI tests: the real `chaind` binary run as a child process, its homes made with `tmpDir`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runInGroup } from '@chaind/upgrade-plan/testing';

export const BIN = fileURLToPath(new URL('../../bin/chaind.js', import.meta.url));

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  readonly input?: string;
  /** Added to a copy of the environment from which every CHAIND_* variable was removed. */
  readonly env?: Readonly<Record<string, string>>;
  /** The launcher to run (a copy's, e.g. `sourcesWithNextRelease(…).bin`); default BIN. */
  readonly bin?: string;
}

/** This process's environment without any CHAIND_* variable, plus `extra`. */
export function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHAIND_')) env[k] = v;
  return Object.assign(env, extra);
}

export async function chaind(args: readonly string[], o: RunOptions = {}): Promise<Run> {
  const r = await runInGroup(process.execPath, [o.bin ?? BIN, ...args], { env: childEnv(o.env), ...(o.input === undefined ? {} : { input: o.input }) });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** `p`, or a failed assertion naming `what` once `ms` have passed. */
export async function within<T>(p: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([p, new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), ms)))]);
  clearTimeout(timer);
  if (r === 'timeout') assert.fail(`timed out: ${what()}`);
  return r;
}

/** Runs and asserts success; returns stdout. */
export async function ok(args: readonly string[], o: RunOptions = {}): Promise<Run> {
  const r = await chaind(args, o);
  assert.equal(r.code, 0, `chaind ${args.join(' ')} failed:\n${r.stderr}`);
  return r;
}

/** The line the first command opening a home's test keyring prints first on stderr (once per home). */
export const TEST_BACKEND_WARNING =
  /^WARNING: the test keyring backend keeps private keys unencrypted in .+; use it for development only \(--keyring-backend file\)\n/;

/** stderr without the test backend's warning line. */
export const withoutWarning = (stderr: string): string => stderr.replace(TEST_BACKEND_WARNING, '');

/**
 * Runs and asserts a user error: exit code 1 and exactly one line on stderr (besides the test
 * backend's warning), no stack trace, containing each of `wants`.
 */
export async function fails(args: readonly string[], wants: readonly (string | RegExp)[], o: RunOptions = {}): Promise<Run> {
  const r = await chaind(args, o);
  assert.equal(r.code, 1, `chaind ${args.join(' ')} should fail; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const lines = withoutWarning(r.stderr).trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], /^(Error|error): /);
  assert.doesNotMatch(r.stderr, /\n\s+at |internal error/, 'no stack trace, not an internal error');
  for (const w of wants) {
    if (typeof w === 'string') assert.ok(r.stderr.includes(w), `stderr should include ${JSON.stringify(w)}:\n${r.stderr}`);
    else assert.match(r.stderr, w);
  }
  return r;
}

/** A child's stderr as it comes, and the first match of a pattern in it. */
export interface WatchedLog {
  /** Rejects if the child exits first or nothing matches within the time limit. */
  readonly match: Promise<RegExpExecArray>;
  log(): string;
}

/** Collects a child's stderr and resolves the first match of `pattern` in it. */
export function watchLog(child: ChildProcess, what: string, pattern: RegExp, timeoutMs = 60_000): WatchedLog {
  let log = '';
  const match = new Promise<RegExpExecArray>((res, rej) => {
    let found = false;
    const timer = setTimeout(() => rej(new Error(`${what}: no ${pattern} within ${timeoutMs} ms:\n${log}`)), timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
      const m = found ? null : pattern.exec(log);
      if (m) {
        found = true;
        clearTimeout(timer);
        res(m);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rej(new Error(`${what} exited (${code ?? signal}):\n${log}`));
    });
  });
  // a rejection after the match (the child exiting later) is expected, not an error
  match.catch(() => {});
  return { match, log: () => log };
}

/** A running node child: its JSON-RPC url once it listens, and everything it has logged so far. */
export interface WatchedNode {
  readonly url: Promise<string>;
  log(): string;
}

/** Collects a node child's stderr and resolves its RPC url from the `RPC server listening url=` line. */
export function watchNode(child: ChildProcess, what: string): WatchedNode {
  const w = watchLog(child, what, /RPC server listening url=(\S+)/);
  const url = w.match.then((m) => m[1]);
  url.catch(() => {});
  return { url, log: w.log };
}

export interface AbciNodeOptions {
  /** CHAIND_RELEASE of the binary (default: the latest release). */
  readonly release?: string;
  /** `--address` (default tcp://127.0.0.1:0: a free loopback port, read back from the log). */
  readonly address?: string;
  /** More flags for `chaind start`. */
  readonly args?: readonly string[];
}

/** How a child ended: its exit code, or the signal that killed it. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * `chaind start --with-comet=false` over a home as a child process (REST and gRPC off, so nodes side by
 * side need no ports but their ABCI one). Every one started is killed by `AbciNode.killAll`.
 */
export class AbciNode {
  private static readonly running = new Set<AbciNode>();
  /** The address it listens on for CometBFT, from its `waiting for CometBFT` line. */
  readonly address: Promise<string>;
  readonly exited: Promise<ChildExit>;
  private readonly watched: WatchedLog;

  private constructor(
    readonly child: ChildProcess,
    readonly what: string,
  ) {
    this.watched = watchLog(child, what, /waiting for CometBFT address=(\S+)/);
    this.address = this.watched.match.then((m) => m[1]);
    this.address.catch(() => {});
    this.exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
    AbciNode.running.add(this);
    void this.exited.then(() => AbciNode.running.delete(this));
  }

  static start(home: string, o: AbciNodeOptions = {}): AbciNode {
    const args = [
      'start',
      '--with-comet=false',
      '--address',
      o.address ?? 'tcp://127.0.0.1:0',
      '--api.enable=false',
      '--grpc.enable=false',
      '--home',
      home,
      ...(o.args ?? []),
    ];
    const env = childEnv(o.release === undefined ? {} : { CHAIND_RELEASE: o.release });
    // its own process group, so that a kill reaches anything it may have started as well
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    return new AbciNode(child, `chaind start --with-comet=false (${o.release ?? 'latest'}) over ${home}`);
  }

  /** Everything it has logged on stderr so far. */
  log(): string {
    return this.watched.log();
  }

  /** Resolves once a line matching `pattern` has been logged (polling the collected log). */
  async waitForLog(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m = pattern.exec(this.log());
      if (m) return m;
      if (Date.now() > until) throw new Error(`${this.what}: no ${pattern} within ${timeoutMs} ms:\n${this.log()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Sends `signal` to its process group and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<ChildExit> {
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-pid, signal);
      } catch {
        this.child.kill(signal); // the group is gone already
      }
    }
    return this.exited;
  }

  /** SIGKILLs every node still running (a test's `after`). */
  static async killAll(): Promise<void> {
    await Promise.all([...AbciNode.running].map((n) => n.kill('SIGKILL')));
  }
}
