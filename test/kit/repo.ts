// Scripts run as a user runs them, each in its own process group so that whatever it starts (a node,
// chainvisor, the node chainvisor starts) goes with it; and temporary copies of the repository to run
// them on (its files and node_modules hard-linked: quick, and `npm run release` packages from it).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT: string = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  readonly code: number | null;
  /** stdout and stderr as they came. */
  readonly out: string;
}

export interface RunOptions {
  readonly cwd?: string;
  /** The group is killed after this long (the run then ends with code null). */
  readonly timeoutMs: number;
  /** Added to the environment (which never carries this test runner's NODE_TEST_CONTEXT). */
  readonly env?: Readonly<Record<string, string>>;
}

const groups = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** `node <args>` in its own process group; the whole group is killed when it exits or times out. */
export async function runNode(args: readonly string[], o: RunOptions): Promise<Run> {
  // a child of the test runner must not report to it as a subtest
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, args, { cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...env, ...o.env } });
  const pid = child.pid as number;
  groups.add(pid);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => killGroup(pid), o.timeoutMs);
  try {
    const code = await new Promise<number | null>((res) => child.once('exit', res));
    return { code, out };
  } finally {
    clearTimeout(timer);
    killGroup(pid);
    groups.delete(pid);
  }
}

const copies = new Set<string>();

/** A copy of the working tree (its tracked and new files, not ignored ones) with node_modules hard-linked. */
export function copyOfRepository(): string {
  const top = mkdtempSync(join(tmpdir(), 'chaind-repo-'));
  copies.add(top);
  const dir = join(top, 'repo');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(ROOT, f)));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  // workspace packages are relative links (node_modules/@chaind/x → ../../packages/x): they resolve inside the copy
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  return dir;
}

/** Kills the groups still running and removes the copies: for a test file's `after`. */
export function cleanUp(): void {
  for (const pid of groups) killGroup(pid);
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  copies.clear();
}
