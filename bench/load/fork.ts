// The load's client processes (client.ts, queries.ts): forked with tsx, each reports once it is ready
// (its txs signed), then waits for the start message.
import { fork, type ChildProcess } from 'node:child_process';

/** `script` (relative to bench/load/) with its spec file, once it said it is ready. */
export function forkReady(script: string, specFile: string): Promise<{ child: ChildProcess; msg: { signMs?: number } }> {
  const child = fork(new URL(script, import.meta.url).pathname, [specFile], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { signMs?: number }) => resolve({ child, msg: m }));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
}

export const exited = (c: ChildProcess): Promise<void> => new Promise((res) => (c.exitCode !== null ? res() : c.once('exit', () => res())));
