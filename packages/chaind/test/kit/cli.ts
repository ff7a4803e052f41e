// For the CLI tests: the real `chaind` binary run as a child process, its homes made with `tmpDir`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
}

export function chaind(args: readonly string[], o: RunOptions = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHAIND_')) env[k] = v;
  Object.assign(env, o.env);
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code, stdout, stderr }));
    child.stdin.end(o.input ?? '');
  });
}

/** Runs and asserts success; returns stdout. */
export async function ok(args: readonly string[], o: RunOptions = {}): Promise<Run> {
  const r = await chaind(args, o);
  assert.equal(r.code, 0, `chaind ${args.join(' ')} failed:\n${r.stderr}`);
  return r;
}

/** Runs and asserts a user error: exit code 1 and exactly one line on stderr, no stack trace, containing each of `wants`. */
export async function fails(args: readonly string[], wants: readonly (string | RegExp)[], o: RunOptions = {}): Promise<Run> {
  const r = await chaind(args, o);
  assert.equal(r.code, 1, `chaind ${args.join(' ')} should fail; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], /^(Error|error): /);
  assert.doesNotMatch(r.stderr, /\n\s+at |internal error/, 'no stack trace, not an internal error');
  for (const w of wants) {
    if (typeof w === 'string') assert.ok(r.stderr.includes(w), `stderr should include ${JSON.stringify(w)}:\n${r.stderr}`);
    else assert.match(r.stderr, w);
  }
  return r;
}

/** A running node child: its JSON-RPC url once it listens, and everything it has logged so far. */
export interface WatchedNode {
  readonly url: Promise<string>;
  log(): string;
}

/** Collects a node child's stderr and resolves its RPC url from the `RPC server listening url=` line. */
export function watchNode(child: ChildProcess, what: string): WatchedNode {
  let log = '';
  const url = new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`no RPC url within 60s:\n${log}`)), 60_000);
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
      const m = /RPC server listening url=(\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`${what} exited (${code}):\n${log}`));
    });
  });
  // a rejection after the url resolved (the node exiting later) is expected, not an error
  url.catch(() => {});
  return { url, log: () => log };
}
