// Small helpers shared by the benchmarks: timing, medians, temp dirs and aligned output.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Prints the benchmark's title and the goal it measures against. */
export function header(title: string, goal: string): void {
  console.log(`== ${title}`);
  console.log(`   goal: ${goal}`);
}

/** Milliseconds taken by fn. */
export function timeMs(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** 1234567 -> "1.23M", 45678 -> "45.7k". */
export function si(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return n.toFixed(0);
}

export function ms(n: number): string {
  return n < 10 ? `${n.toFixed(2)} ms` : n < 1000 ? `${n.toFixed(1)} ms` : `${(n / 1000).toFixed(2)} s`;
}

/** One aligned output line: a label and its figures. */
export function row(label: string, ...cols: string[]): void {
  console.log(`   ${label.padEnd(44)} ${cols.map((c) => c.padStart(14)).join(' ')}`);
}

const dirs: string[] = [];
/** A fresh temp dir, removed by cleanup() (and at exit). */
export function tempDir(tag: string): string {
  const d = mkdtempSync(join(tmpdir(), `chaind-bench-${tag}-`));
  dirs.push(d);
  return d;
}
/** BENCH_KEEP=1 keeps the temp dirs (homes, logs) to read after the run. */
export function cleanup(): void {
  if (process.env.BENCH_KEEP === '1' && dirs.length > 0) console.log(`   kept (BENCH_KEEP=1): ${dirs.splice(0).join(' ')}`);
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
}
process.on('exit', cleanup);

/** The Node flags chaind's launchers start it with: the shebang of packages/chaind/bin/chaind.js (releases copy it). */
export function chaindNodeFlags(): string[] {
  if (process.env.BENCH_NODE_DEFAULTS === '1') return [];
  const shebang = readFileSync(new URL('../packages/chaind/bin/chaind.js', import.meta.url), 'utf8').split('\n')[0];
  const m = /^#!\/usr\/bin\/env -S node(.*)$/.exec(shebang);
  if (m === null) throw new Error(`unexpected chaind launcher shebang: ${shebang}`);
  return m[1]
    .trim()
    .split(/\s+/)
    .filter((f) => f !== '');
}

/**
 * A bench that times the node's own code in process runs under the Node flags the node runs with:
 * started without them, it runs itself again with them and exits with that run's status.
 * BENCH_NODE_DEFAULTS=1 keeps Node's defaults, to compare.
 */
export function runWithChaindNodeFlags(): void {
  if (process.env.BENCH_NODE_DEFAULTS === '1') return;
  const flags = chaindNodeFlags().filter((f) => !process.execArgv.includes(f));
  if (flags.length === 0) return;
  const r = spawnSync(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

/** Key i of the migration benches: 16 to 32 bytes, unique (i is in bytes 4..7), scattered in key order by the leading mix. */
export function migrationKey(i: number): Buffer {
  const k = Buffer.alloc(16 + (i % 17), i & 0xff);
  k.writeUInt32BE(Math.imul(i, 0x9e3779b1) >>> 0, 0);
  k.writeUInt32BE(i, 4);
  return k;
}

/** Value i of the migration benches: four u64 words. */
export function migrationValue(i: number): Buffer {
  const v = Buffer.alloc(32);
  for (let w = 0; w < 4; w++) v.writeUInt32LE(Math.imul(i + w, 0x85ebca6b) >>> 0, w * 8);
  return v;
}

/** Spawns a child and resolves with it once `ready` matches what it has written to `stream`. */
export function spawnUntil(
  cmd: string,
  args: string[],
  stream: 'stdout' | 'stderr',
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<{ child: ChildProcess; m: RegExpExecArray; ms: number }> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`not ready within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    child[stream]?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        res({ child, m, ms: performance.now() - t0 });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`exited (${code}) before ready:\n${out}`));
    });
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((res) => child.once('exit', res));
  child.kill('SIGTERM');
  await exited;
}
