// The soak's summary and its bounds: per metric the value at start, after warm-up, at its peak and at the
// end, with its growth per hour after warm-up (a least-squares slope); per-process figures of the node
// are taken for the v1 and the v2 process apart, since the upgrade replaces the process.

export interface Sample {
  /** seconds since the chain started */
  readonly t: number;
  readonly height: number;
  /** v1 until the load pauses for the upgrade, upgrading until v2 makes blocks, then v2; end: the last sample, after the load stopped */
  readonly phase: 'v1' | 'upgrading' | 'v2' | 'end';
  readonly nodePid: number | undefined;
  readonly nodeRssMiB: number | undefined;
  readonly nodeAnonMiB: number | undefined;
  readonly nodeFileMiB: number | undefined;
  readonly nodeFds: number | undefined;
  /** chainvisor's RSS; the soak forces a full collection in it every sample interval (visor-probe.cjs) */
  readonly visorRssMiB: number | undefined;
  /** chainvisor's V8 heap in use right after its last forced full collection: what its JavaScript keeps */
  readonly visorHeapMiB: number | undefined;
  readonly visorFds: number | undefined;
  /** the node's data folder (LMDB and the rest), bytes allocated on disk */
  readonly dataMiB: number;
  readonly dataApparentMiB: number;
  /** the soak's txs committed so far (code 0) */
  readonly committedTxs: number;
  /** the soak's txs accepted by CheckTx so far */
  readonly acceptedTxs: number;
  /** CheckTx refusals plus committed txs with a non-zero code */
  readonly txErrors: number;
  readonly mempool: number | undefined;
}

/** The stated bounds (docs/reliability.md, "Soak"). */
export const BOUNDS = {
  /** the node's private memory (RssAnon) after warm-up, per process */
  nodeAnonMiBPerHour: 64,
  visorRssMiBPerHour: 16,
  /** chainvisor's heap after a full collection, before and after the upgrade apart */
  visorHeapMiBPerHour: 4,
  /** open descriptors: within this many of the value after warm-up, per process */
  nodeFds: 16,
  visorFds: 8,
  /** data bytes per committed tx in the second half after warm-up, at most this times the first half's (plus the slack) */
  dataPerTxRatio: 1.5,
  dataSlackMiB: 8,
  /** a growth rate is judged only over at least this long a stretch */
  minJudgedSeconds: 300,
} as const;

export interface Verdict {
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
}

type Key =
  | 'nodeRssMiB'
  | 'nodeAnonMiB'
  | 'nodeFileMiB'
  | 'nodeFds'
  | 'visorRssMiB'
  | 'visorHeapMiB'
  | 'visorFds'
  | 'dataMiB'
  | 'height'
  | 'committedTxs'
  | 'txErrors'
  | 'mempool';

const values = (s: readonly Sample[], k: Key): [number, number][] =>
  s.flatMap((x) => (x[k] === undefined || Number.isNaN(x[k]) ? [] : [[x.t, x[k] as number] as [number, number]]));

/** Least-squares slope of (t, v) in units per hour; undefined with fewer than 3 points. */
export function perHour(points: readonly [number, number][]): number | undefined {
  if (points.length < 3) return undefined;
  const n = points.length;
  const mt = points.reduce((a, p) => a + p[0], 0) / n;
  const mv = points.reduce((a, p) => a + p[1], 0) / n;
  const num = points.reduce((a, p) => a + (p[0] - mt) * (p[1] - mv), 0);
  const den = points.reduce((a, p) => a + (p[0] - mt) ** 2, 0);
  return den === 0 ? undefined : (num / den) * 3600;
}

/**
 * Growth per hour of a sawtooth (a heap between collections): the lowest value of the last third of the
 * points against the lowest of the first third, over the time between the thirds' middles. The floors are
 * what the process keeps after a collection, so a leak raises them; a collection landing on one sample
 * does not tilt the figure as it tilts a slope. Undefined with fewer than 6 points.
 */
export function floorPerHour(points: readonly [number, number][]): number | undefined {
  if (points.length < 6) return undefined;
  const third = Math.floor(points.length / 3);
  const [first, last] = [points.slice(0, third), points.slice(points.length - third)];
  const floor = (xs: readonly [number, number][]): number => Math.min(...xs.map((p) => p[1]));
  const middle = (xs: readonly [number, number][]): number => (xs[0][0] + xs[xs.length - 1][0]) / 2;
  const dt = middle(last) - middle(first);
  return dt <= 0 ? undefined : ((floor(last) - floor(first)) / dt) * 3600;
}

export interface Segment {
  readonly label: string;
  /** every sample of the segment */
  readonly all: readonly Sample[];
  /** its samples after warm-up */
  readonly warm: readonly Sample[];
}

/**
 * The run after warm-up, and the v1 and v2 node processes each after their own warm-up; the halt and the
 * switch (phase "upgrading") belong to neither process: the old one closes its servers, the new one opens them;
 * nor does the last sample, taken once the load has stopped and the mempool drained.
 */
export function segments(samples: readonly Sample[], warmupS: number): { run: Segment; v1: Segment; v2: Segment } {
  const v1 = samples.filter((s) => s.phase === 'v1');
  const v2 = samples.filter((s) => s.phase === 'v2');
  const v2Start = v2[0]?.t ?? Infinity;
  return {
    run: { label: 'whole run', all: samples, warm: samples.filter((s) => s.t >= warmupS) },
    v1: { label: 'v1 node', all: v1, warm: v1.filter((s) => s.t >= warmupS) },
    v2: { label: 'v2 node', all: v2, warm: v2.filter((s) => s.t >= v2Start + warmupS) },
  };
}

const fmt = (n: number | undefined, digits = 1): string => (n === undefined ? '-' : n.toFixed(digits));

/** One table row: start / after warm-up / peak / end / growth per hour after warm-up. */
function rowOf(label: string, seg: Segment, k: Key, digits = 1): string[] {
  const all = values(seg.all, k);
  const warm = values(seg.warm, k);
  const peak = all.length ? Math.max(...all.map((p) => p[1])) : undefined;
  return [label, seg.label, fmt(all[0]?.[1], digits), fmt(warm[0]?.[1], digits), fmt(peak, digits), fmt(all.at(-1)?.[1], digits), fmt(perHour(warm), digits)];
}

export function table(samples: readonly Sample[], warmupS: number): string {
  const { run, v1, v2 } = segments(samples, warmupS);
  const rows: string[][] = [['metric', 'over', 'start', 'after warm-up', 'peak', 'end', 'growth/h after warm-up']];
  for (const seg of [v1, v2]) {
    rows.push(rowOf('node RSS (MiB)', seg, 'nodeRssMiB'));
    rows.push(rowOf('node RssAnon (MiB)', seg, 'nodeAnonMiB'));
    rows.push(rowOf('node RssFile (MiB)', seg, 'nodeFileMiB'));
    rows.push(rowOf('node open fds', seg, 'nodeFds', 0));
  }
  rows.push(rowOf('chainvisor RSS (MiB)', run, 'visorRssMiB'));
  rows.push(rowOf('chainvisor heap after GC (MiB)', run, 'visorHeapMiB', 2));
  rows.push(rowOf('chainvisor open fds', run, 'visorFds', 0));
  rows.push(rowOf('data on disk (MiB)', run, 'dataMiB', 2));
  rows.push(rowOf('height', run, 'height', 0));
  rows.push(rowOf('committed txs', run, 'committedTxs', 0));
  rows.push(rowOf('tx errors', run, 'txErrors', 0));
  rows.push(rowOf('mempool (txs)', run, 'mempool', 0));
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map(
      (r, j) =>
        `| ${r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |${j === 0 ? `\n|${widths.map((w, i) => (i < 2 ? `${'-'.repeat(w + 2)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|` : ''}`,
    )
    .join('\n');
}

const span = (seg: Segment): number => (seg.warm.length ? seg.warm[seg.warm.length - 1].t - seg.warm[0].t : 0);

/** Judged on the floors' growth (floorPerHour); the least-squares slope is shown beside it. */
function growthBound(what: string, seg: Segment, k: Key, bound: number): Verdict {
  const s = span(seg);
  const points = values(seg.warm, k);
  const rate = floorPerHour(points);
  if (s < BOUNDS.minJudgedSeconds || rate === undefined)
    return { what, ok: true, detail: `not judged: ${s.toFixed(0)} s after warm-up (< ${BOUNDS.minJudgedSeconds} s)` };
  return {
    what,
    ok: rate < bound,
    detail: `floor ${rate.toFixed(1)} MiB/h (slope ${fmt(perHour(points))} MiB/h) over ${(s / 60).toFixed(1)} min after warm-up (bound: floor < ${bound} MiB/h)`,
  };
}

function fdBound(what: string, seg: Segment, k: Key, within: number): Verdict {
  const v = values(seg.warm, k).map((p) => p[1]);
  if (v.length === 0) return { what, ok: true, detail: 'not judged: no sample after warm-up' };
  const lo = Math.min(...v) - v[0];
  const hi = Math.max(...v) - v[0];
  return { what, ok: -lo <= within && hi <= within, detail: `${v[0]} after warm-up, then ${v[0] + lo}..${v[0] + hi} (bound ±${within})` };
}

/** LMDB (the data folder) grows with the committed txs and no faster: per tx, the second half after warm-up vs the first. */
function dataBound(run: Segment): Verdict {
  const w = run.warm;
  if (w.length < 3) return { what: 'data on disk per committed tx', ok: true, detail: 'not judged: too few samples after warm-up' };
  const mid = w[Math.floor(w.length / 2)];
  const [a, z] = [w[0], w[w.length - 1]];
  const first = { mib: mid.dataMiB - a.dataMiB, txs: mid.committedTxs - a.committedTxs };
  const second = { mib: z.dataMiB - mid.dataMiB, txs: z.committedTxs - mid.committedTxs };
  const perTx = (x: { mib: number; txs: number }): number => (x.txs > 0 ? (x.mib * 1024 * 1024) / x.txs : 0);
  const allowed = BOUNDS.dataPerTxRatio * perTx(first) * second.txs + BOUNDS.dataSlackMiB * 1024 * 1024;
  return {
    what: 'data on disk per committed tx',
    ok: second.mib * 1024 * 1024 <= allowed,
    detail: `first half ${first.mib.toFixed(2)} MiB for ${first.txs} txs (${perTx(first).toFixed(0)} B/tx), second half ${second.mib.toFixed(2)} MiB for ${second.txs} txs (${perTx(second).toFixed(0)} B/tx); bound: second ≤ ${BOUNDS.dataPerTxRatio}× the first's rate + ${BOUNDS.dataSlackMiB} MiB`,
  };
}

export function verdicts(samples: readonly Sample[], warmupS: number): Verdict[] {
  const { run, v1, v2 } = segments(samples, warmupS);
  return [
    growthBound('v1 node RssAnon growth', v1, 'nodeAnonMiB', BOUNDS.nodeAnonMiBPerHour),
    growthBound('v2 node RssAnon growth', v2, 'nodeAnonMiB', BOUNDS.nodeAnonMiBPerHour),
    // the upgrade itself (download, backup, switch) is a one-time step in chainvisor's memory, not a growth
    growthBound('chainvisor RSS growth before the upgrade', v1, 'visorRssMiB', BOUNDS.visorRssMiBPerHour),
    growthBound('chainvisor RSS growth after the upgrade', v2, 'visorRssMiB', BOUNDS.visorRssMiBPerHour),
    growthBound('chainvisor heap growth before the upgrade', v1, 'visorHeapMiB', BOUNDS.visorHeapMiBPerHour),
    growthBound('chainvisor heap growth after the upgrade', v2, 'visorHeapMiB', BOUNDS.visorHeapMiBPerHour),
    fdBound('v1 node open fds', v1, 'nodeFds', BOUNDS.nodeFds),
    fdBound('v2 node open fds', v2, 'nodeFds', BOUNDS.nodeFds),
    fdBound('chainvisor open fds', run, 'visorFds', BOUNDS.visorFds),
    dataBound(run),
  ];
}
