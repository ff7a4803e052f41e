// A short summary of the node's V8 CPU profile (--cpu-prof): the functions with the most self time,
// and the share of idle, garbage collection and the rest, over the load's window.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly children?: readonly number[];
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  readonly fn: string;
  readonly where: string;
  readonly selfMs: number;
  /** The caller this self time came from most. */
  readonly caller: string;
  /** Share of the busy (non-idle) time. */
  readonly share: number;
}

export interface ProfileSummary {
  /** Node's thread id: 0 the main thread, others the signature workers. */
  readonly thread: number;
  readonly totalMs: number;
  readonly idleMs: number;
  readonly gcMs: number;
  readonly top: readonly ProfileEntry[];
}

/** Monotonic microseconds, the clock of V8's profile timestamps (CLOCK_MONOTONIC, as Node's hrtime). */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * A summary per thread of the .cpuprofile files in `dir` (Node writes one per thread: CPU.<date>.<time>.
 * <pid>.<thread>.<seq>.cpuprofile), main thread first, of the samples taken between `from` and `to`
 * (monotonicMicros): the load's window, not the node's start-up or the reading after.
 */
export function summariseProfiles(dir: string, from: number, to: number, top = 15): ProfileSummary[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => summarise(join(dir, f), Number(/\.(\d+)\.\d+\.cpuprofile$/.exec(f)?.[1] ?? -1), from, to, top))
    .sort((a, b) => a.thread - b.thread);
}

function summarise(file: string, thread: number, from: number, to: number, top: number): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (f: CpuProfile['nodes'][number]['callFrame']): string =>
    `${f.functionName || '(anonymous)'}${f.url === '' ? '' : ` ${basename(f.url)}:${f.lineNumber + 1}`}`;
  const self = new Map<string, { fn: string; where: string; us: number; callers: Map<string, number> }>();
  let total = 0;
  let idle = 0;
  let gc = 0;
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    const us = p.timeDeltas[i] ?? 0;
    at += us;
    if (at < from || at > to) return;
    total += us;
    const f = byId.get(id);
    if (f === undefined) return;
    if (f.functionName === '(idle)') {
      idle += us;
      return;
    }
    if (f.functionName === '(garbage collector)') gc += us;
    const where = f.url === '' ? '' : `${basename(f.url)}:${f.lineNumber + 1}`;
    const key = `${f.functionName}@${where}`;
    const e = self.get(key) ?? { fn: f.functionName || '(anonymous)', where, us: 0, callers: new Map<string, number>() };
    e.us += us;
    const up = byId.get(parent.get(id) ?? -1);
    const caller = up === undefined ? '' : name(up);
    e.callers.set(caller, (e.callers.get(caller) ?? 0) + us);
    self.set(key, e);
  });
  const busy = total - idle;
  const entries = [...self.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((e) => ({
      fn: e.fn,
      where: e.where,
      selfMs: e.us / 1000,
      share: busy > 0 ? e.us / busy : 0,
      caller: [...e.callers].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '',
    }));
  return { thread, totalMs: total / 1000, idleMs: idle / 1000, gcMs: gc / 1000, top: entries };
}
