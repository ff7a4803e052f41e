// The one way the kit runs a short-lived command: in a process group of its own, killed with the group when it
// outlives its timeout, and the group killed after it exits too, so nothing it started can outlive the test.
import { spawn } from 'node:child_process';

export interface GroupRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** set when the timeout ended it */
  readonly timedOut: boolean;
}

export interface GroupRunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** written to stdin, which is then closed; without it stdin is closed at once */
  readonly input?: string;
  /** the group gets SIGKILL after this long; default none */
  readonly timeoutMs?: number;
}

/** SIGKILL to the process group `pid` leads (a child spawned with `detached: true`); nothing if it is gone. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

/** Runs `cmd args` to its end in its own process group; its output collected. */
export function runInGroup(cmd: string, args: readonly string[], o: GroupRunOptions = {}): Promise<GroupRun> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, [...args], {
      env: o.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), killGroup(child.pid)), o.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => (clearTimeout(timer), rej(e)));
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup(child.pid);
      res({ code, stdout, stderr, timedOut });
    });
    child.stdin.on('error', () => {}); // a command that exits without reading its input
    child.stdin.end(o.input ?? '');
  });
}
