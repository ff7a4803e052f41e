// `npm run load`: a real `chaind start` on loopback under bank sends from N client processes, for a bounded
// time, then the accounting of every tx CheckTx accepted. Modes: send (the sends alone), query (the same
// sends with REST, gRPC and abci_query queries beside them), flood (more than the mempool holds), all (the
// three in turn, each on a fresh home and node). See docs/reliability.md ("Load").
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanup, tempDir } from '../lib.ts';
import { CHAIN_ID, DENOM, makeHome, type NodeSettings } from './home.ts';
import { exited, forkReady } from './fork.ts';
import { memoryMiB, readBlocks, rpcCall, startNode, stopNode } from './node.ts';
import { monotonicMicros, summariseProfiles, type ProfileSummary } from './profile.ts';
import { MEMPOOL_FULL, nowMs, type ClientResult, type ClientSpec, type Lane, type QueryResult, type QuerySpec, type Sent } from './protocol.ts';
import { signSend } from './sign.ts';

type Mode = 'send' | 'query' | 'flood';
const MODES: readonly Mode[] = ['send', 'query', 'flood'];

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    clients: { type: 'string', default: '2' },
    lanes: { type: 'string' },
    rate: { type: 'string', default: '6000' },
    mode: { type: 'string', default: 'all' },
    out: { type: 'string' },
    profile: { type: 'boolean', default: true },
    'no-profile': { type: 'boolean', default: false },
    'profile-out': { type: 'string' },
  },
  strict: true,
});
const SECONDS = Number(opts.seconds);
const CLIENTS = Number(opts.clients);
const RATE = Number(opts.rate);
if (!(SECONDS > 0) || !Number.isInteger(CLIENTS) || CLIENTS < 1 || !(RATE > 0)) throw new Error('--seconds, --clients and --rate take positive numbers');
if (opts.mode !== 'all' && !MODES.includes(opts.mode as Mode)) throw new Error(`--mode is send, query, flood or all, not ${opts.mode}`);
const modes: readonly Mode[] = opts.mode === 'all' ? MODES : [opts.mode as Mode];
const PROFILE = opts.profile && !opts['no-profile'];

/** The settings of each mode: what the node is configured with, and how hard the clients push. */
interface ModePlan {
  readonly settings: NodeSettings;
  readonly lanesPerClient: number;
  readonly retryMs: number;
}
function plan(mode: Mode): ModePlan {
  const lanes = opts.lanes === undefined ? undefined : Number(opts.lanes);
  if (mode === 'flood') {
    // a small mempool and pending queue, and more sends in flight than both hold; the lanes' connections
    // stay under JSON-RPC's 900 and REST's 1000 open connections, so no lane waits to be accepted
    return { settings: { blockIntervalMs: 1000, mempoolSize: 1000, maxPendingTxs: 500 }, lanesPerClient: lanes ?? Math.floor(1536 / CLIENTS), retryMs: 5 };
  }
  // room for two intervals of the goal's 5,000 tx/s and more in the pool; 1 s blocks (the default)
  return { settings: { blockIntervalMs: 1000, mempoolSize: 20_000, maxPendingTxs: 20_000 }, lanesPerClient: lanes ?? 128, retryMs: 50 };
}

/** When, VmRSS, RssAnon (MiB). */
type MemorySample = readonly [number, number, number];

interface MemoryFigures {
  readonly start: number;
  /** 20% into the window. */
  readonly afterWarmup: number;
  /** Over the window and the drain; the accounting's own block reads after them are not the load's. */
  readonly peak: number;
  /** When the clients stopped. */
  readonly end: number;
  readonly afterDrain: number;
  /** Every 5 s from the window's start, through the accounting. */
  readonly series: readonly (readonly [number, number])[];
}

function memoryFigures(samples: readonly MemorySample[], field: 1 | 2, at: { start: number; warm: number; end: number; drained: number }): MemoryFigures {
  const v = (s: MemorySample | undefined): number => round(s?.[field] ?? NaN);
  const last = (t: number): MemorySample | undefined => samples.filter((s) => s[0] <= t).at(-1);
  const inRun = samples.filter((s) => s[0] >= at.start);
  const series: [number, number][] = [];
  for (const s of inRun)
    if (series.length === 0 || s[0] - at.start >= series[series.length - 1][0] * 1000 + 5000)
      series.push([round((s[0] - at.start) / 1000, 0), round(s[field], 0)]);
  return {
    start: v(last(at.start) ?? inRun[0]),
    afterWarmup: v(samples.find((s) => s[0] >= at.warm)),
    peak: round(Math.max(...inRun.filter((s) => s[0] <= at.drained).map((s) => s[field]))),
    end: v(last(at.end)),
    afterDrain: v(last(at.drained)),
    series,
  };
}

const pct = (sorted: readonly number[], p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
const sortNum = (xs: Iterable<number>): number[] => [...xs].sort((a, b) => a - b);
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

async function mempoolSize(rpc: string): Promise<number> {
  const r = await rpcCall<{ n_txs: string; total: string }>(rpc, 'num_unconfirmed_txs');
  return Number(r.total);
}

/** A tx found by its hash over REST: its height and code, or undefined. */
async function txByHash(rest: string, hash: string): Promise<{ height: number; code: number } | undefined> {
  const r = await fetch(`${rest}/cosmos/tx/v1beta1/txs/${hash}`);
  if (r.status !== 200) return undefined;
  const j = (await r.json()) as { tx_response: { height: string; code: number } };
  return { height: Number(j.tx_response.height), code: j.tx_response.code };
}

interface ModeReport {
  readonly mode: Mode;
  readonly settings: NodeSettings & { readonly clients: number; readonly lanes: number; readonly signedAhead: number; readonly signSeconds: number };
  readonly window: { readonly seconds: number; readonly startHeight: number; readonly endHeight: number };
  readonly throughput: {
    readonly committedInWindow: number;
    readonly committedTxPerSec: number;
    readonly per10s: readonly number[];
    readonly acceptedTxPerSec: number;
  };
  readonly latency: {
    readonly blocksP50: number;
    readonly blocksP99: number;
    readonly msP50: number;
    readonly msP99: number;
    readonly ackMsP50: number;
    readonly ackMsP99: number;
  };
  readonly mempool: { readonly max: number; readonly median: number; readonly series: readonly (readonly [number, number])[] };
  /** VmRSS (with LMDB's mapped pages, which grow with the chain) and RssAnon (the node's own memory: the goals' measure). */
  readonly rssMiB: MemoryFigures;
  readonly anonMiB: MemoryFigures;
  readonly blockInterval: {
    readonly targetMs: number;
    readonly medianMs: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    readonly stdevMs: number;
    readonly commitObservedMedianMs: number;
    readonly commitObservedMaxMs: number;
  };
  readonly accounting: {
    readonly accepted: number;
    readonly committed: number;
    readonly evicted: number;
    readonly evictedByReason: Readonly<Record<string, number>>;
    readonly pendingAfterDrain: number;
    readonly lost: number;
    readonly checkedByHash: number;
    readonly byHashMismatches: number;
  };
  readonly refusals: Readonly<Record<string, number>>;
  readonly refusalSamples: Readonly<Record<string, string>>;
  readonly lanesOutOfSignedTxs: number;
  readonly queries?: QueryResult & { readonly errors: number };
  readonly flood?: { readonly mempoolFullRefusals: number; readonly recovered: boolean; readonly recoveryTx?: string; readonly recoveryHeight?: number };
  readonly goals: Readonly<Record<string, boolean>>;
  /** The node's warning and error log lines during the run (the first 20). */
  readonly nodeProblems: readonly string[];
  readonly profile?: readonly ProfileSummary[];
}

async function runMode(mode: Mode): Promise<ModeReport> {
  const p = plan(mode);
  const dir = tempDir(`load-${mode}`);
  const lanesTotal = p.lanesPerClient * CLIENTS;
  // one more account than the clients use: the send after a flood
  const { home, lanes } = makeHome(dir, lanesTotal + 1, p.settings);
  const spare = lanes[lanesTotal];
  const perLane = Math.max(4, Math.ceil((RATE * SECONDS * 1.2) / lanesTotal));
  const profileDir = PROFILE && mode === 'send' ? join(dir, 'profile') : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir);
  console.log(
    `\n== load ${mode}: ${CLIENTS} clients x ${p.lanesPerClient} lanes, ${SECONDS} s; block_interval ${p.settings.blockIntervalMs} ms, mempool size ${p.settings.mempoolSize}, max_pending_txs ${p.settings.maxPendingTxs}${profileDir ? ', node under --cpu-prof' : ''}`,
  );
  const node = await startNode(home, profileDir);
  const pid = node.child.pid ?? 0;
  const children: ChildProcess[] = [];
  try {
    // the clients sign before the window, so the window measures the node, not the signers sharing its cores
    const t0 = nowMs();
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) => {
        const spec: ClientSpec = {
          chainId: CHAIN_ID,
          denom: DENOM,
          rpc: node.rpc,
          rest: node.rest,
          lanes: lanes.slice(c * p.lanesPerClient, (c + 1) * p.lanesPerClient),
          txsPerLane: perLane,
          retryMs: p.retryMs,
          out: join(dir, `client-${c}.json`),
        };
        const file = join(dir, `client-${c}.spec.json`);
        writeFileSync(file, JSON.stringify(spec));
        return forkReady('./client.ts', file);
      }),
    );
    children.push(...clients.map((c) => c.child));
    const signSeconds = (nowMs() - t0) / 1000;
    console.log(`   signed ${perLane * lanesTotal} sends ahead in ${signSeconds.toFixed(1)} s`);
    let queryChild: ChildProcess | undefined;
    if (mode === 'query') {
      const qs: QuerySpec = {
        rpc: node.rpc,
        rest: node.rest,
        grpc: node.grpc,
        addresses: lanes.slice(0, 64).map((l: Lane) => l.address),
        denom: DENOM,
        inFlight: 4,
        out: join(dir, 'queries.json'),
      };
      writeFileSync(join(dir, 'queries.spec.json'), JSON.stringify(qs));
      queryChild = (await forkReady('./queries.ts', join(dir, 'queries.spec.json'))).child;
      children.push(queryChild);
    }

    // samplers: RSS and the mempool's size, every 250 ms, until the node stops
    const mem: MemorySample[] = [];
    const pool: [number, number][] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const t = nowMs();
        const m = memoryMiB(pid);
        mem.push([t, m.rss, m.anon]);
        try {
          pool.push([t, await mempoolSize(node.rpc)]);
        } catch {
          // a busy node answers late; the next sample counts
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    const start = nowMs() + 500;
    const until = start + SECONDS * 1000;
    const monoStart = monotonicMicros() + (start - nowMs()) * 1000;
    for (const c of clients) c.child.send({ start, until });
    if (queryChild !== undefined) {
      await new Promise((r) => setTimeout(r, start - nowMs()));
      queryChild.send({ cmd: 'go' });
    }
    await Promise.all(clients.map((c) => exited(c.child)));
    const clientsDoneAt = nowMs();
    let queries: ModeReport['queries'];
    if (queryChild !== undefined) {
      queryChild.send({ cmd: 'stop' });
      await exited(queryChild);
      const q = JSON.parse(readFileSync(join(dir, 'queries.json'), 'utf8')) as QueryResult;
      queries = { ...q, errors: Object.values(q.byKind).reduce((n, k) => n + k.errors, 0) };
    }

    // drain: the mempool empties into blocks (or what stays is counted as pending)
    const drainUntil = Date.now() + 60_000;
    let pending = await mempoolSize(node.rpc);
    while (pending > 0 && Date.now() < drainUntil) {
      await new Promise((r) => setTimeout(r, 250));
      pending = await mempoolSize(node.rpc);
    }
    // one more block, so evictions of the last recheck are logged
    const h0 = Math.max(...node.committedAt.keys());
    while (Math.max(...node.committedAt.keys()) <= h0 && Date.now() < drainUntil + 10_000) await new Promise((r) => setTimeout(r, 50));

    let flood: ModeReport['flood'];
    const results = clients.map((_, c) => JSON.parse(readFileSync(join(dir, `client-${c}.json`), 'utf8')) as ClientResult);
    const refusals: Record<string, number> = {};
    const samples: Record<string, string> = {};
    for (const r of results) {
      for (const [code, n] of Object.entries(r.refusals)) refusals[code] = (refusals[code] ?? 0) + n;
      Object.assign(samples, r.refusalSamples);
    }
    if (mode === 'flood') {
      // admission after the flood: a new account's send is accepted and committed
      const s = signSend(spare, 0, CHAIN_ID, DENOM);
      const r = await rpcCall<{ code: number; log: string }>(node.rpc, 'broadcast_tx_sync', { tx: s.tx.toString('base64') });
      let found: { height: number; code: number } | undefined;
      const deadline = Date.now() + 3 * p.settings.blockIntervalMs + 10_000;
      while (r.code === 0 && found === undefined && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 100));
        found = await txByHash(node.rest, s.hash);
      }
      flood = {
        mempoolFullRefusals: refusals[MEMPOOL_FULL] ?? 0,
        recovered: r.code === 0 && found?.code === 0,
        recoveryTx: s.hash,
        recoveryHeight: found?.height,
      };
    }
    const drainedAt = nowMs();

    // the accounting: every accepted tx is in a block, or evicted with a reason, or still pending
    const { blocks, heightOf } = await readBlocks(node.rpc);
    const sent: Sent[] = results.flatMap((r) => r.sent);
    const evictedHashes = new Map(node.evictions.map((e) => [e.hash, e]));
    let committed = 0;
    let evicted = 0;
    const evictedByReason: Record<string, number> = {};
    const missing: string[] = [];
    for (const s of sent) {
      if (heightOf.has(s.hash)) committed++;
      else {
        const e = evictedHashes.get(s.hash);
        if (e !== undefined) {
          evicted++;
          const k = `${e.code}: ${e.reason.replace(/\d+/g, 'N')}`;
          evictedByReason[k] = (evictedByReason[k] ?? 0) + 1;
        } else missing.push(s.hash);
      }
    }
    const pendingAfterDrain = await mempoolSize(node.rpc);
    const lost = Math.max(0, missing.length - pendingAfterDrain);
    // "found by hash": a sample of the committed txs looked up over REST, at the height their block says
    const sample = sent
      .filter((s) => heightOf.has(s.hash))
      .filter((_, i, a) => i % Math.max(1, Math.floor(a.length / 100)) === 0)
      .slice(0, 100);
    let mismatches = 0;
    for (const s of sample) {
      const f = await txByHash(node.rest, s.hash);
      if (f === undefined || f.code !== 0 || f.height !== heightOf.get(s.hash)) mismatches++;
    }

    // figures
    const commits = sortNum(node.committedAt.keys()).map((h) => ({ h, at: node.committedAt.get(h) ?? 0, txs: node.txsAt.get(h) ?? 0 }));
    const inWindow = commits.filter((c) => c.at > start && c.at <= until);
    const committedInWindow = inWindow.reduce((n, c) => n + c.txs, 0);
    const per10s: number[] = [];
    for (let t = start; t + 10_000 <= until + 1; t += 10_000)
      per10s.push(round(commits.filter((c) => c.at > t && c.at <= t + 10_000).reduce((n, c) => n + c.txs, 0) / 10, 0));
    const heightAt = (t: number): number => {
      let lo = 0;
      let hi = commits.length - 1;
      let best = 0;
      while (lo <= hi) {
        const m = (lo + hi) >> 1;
        if (commits[m].at <= t) {
          best = commits[m].h;
          lo = m + 1;
        } else hi = m - 1;
      }
      return best;
    };
    const latBlocks: number[] = [];
    const latMs: number[] = [];
    const ackMs: number[] = [];
    for (const s of sent) {
      ackMs.push(s.ack - s.submit);
      const h = heightOf.get(s.hash);
      const at = h === undefined ? undefined : node.committedAt.get(h);
      if (h === undefined || at === undefined) continue;
      latBlocks.push(h - heightAt(s.submit));
      latMs.push(at - s.submit);
    }
    const lb = sortNum(latBlocks);
    const lm = sortNum(latMs);
    const am = sortNum(ackMs);
    const startHeight = heightAt(start);
    const endHeight = heightAt(until);
    const windowBlocks = blocks.filter((b) => b.height > startHeight && b.height <= endHeight + 1);
    const intervals = sortNum(windowBlocks.slice(1).map((b, i) => b.timeMs - windowBlocks[i].timeMs));
    const mean = intervals.reduce((a, b) => a + b, 0) / Math.max(1, intervals.length);
    const stdev = Math.sqrt(intervals.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, intervals.length));
    const observed = sortNum(inWindow.slice(1).map((c, i) => c.at - inWindow[i].at));
    const poolInWindow = pool.filter(([t]) => t >= start && t <= until);
    const poolSorted = sortNum(poolInWindow.map(([, n]) => n));
    const series: [number, number][] = [];
    for (const [t, n] of pool)
      if (series.length === 0 || t - start >= series[series.length - 1][0] * 1000 + 1000) series.push([round((t - start) / 1000, 0), n]);
    sampling = false;
    await sampler;
    const at = { start, warm: start + SECONDS * 200, end: clientsDoneAt, drained: drainedAt };
    const rssFigures = memoryFigures(mem, 1, at);
    const anonFigures = memoryFigures(mem, 2, at);

    const target = p.settings.blockIntervalMs;
    const rate = committedInWindow / SECONDS;
    const goals: Record<string, boolean> = { 'lost = 0': lost === 0, 'committed > 0': committed > 0 };
    if (mode !== 'flood') {
      goals['≥ 5,000 committed tx/s'] = rate >= 5000;
      goals['p99 submit→commit ≤ 2 block intervals'] = pct(lm, 0.99) <= 2 * target;
      goals['RSS flat after warm-up (RssAnon end ≤ 1.1 × after warm-up)'] = anonFigures.end <= anonFigures.afterWarmup * 1.1;
    }
    if (queries !== undefined) goals['no query error'] = queries.errors === 0;
    if (mode !== 'send') goals['blocks on time (p99 interval ≤ 1.5 × target)'] = pct(intervals, 0.99) <= 1.5 * target;
    if (flood !== undefined) {
      goals['refusals: mempool full (code 20)'] = flood.mempoolFullRefusals > 0;
      goals['admission recovers after the flood'] = flood.recovered;
      goals['RSS bounded (RssAnon peak ≤ 1.5 × after warm-up)'] = anonFigures.peak <= anonFigures.afterWarmup * 1.5;
    }

    await stopNode(node);
    const profile = profileDir === undefined ? undefined : summariseProfiles(profileDir, monoStart, monoStart + SECONDS * 1e6);
    // the whole profiles, for Chrome DevTools or `node --cpu-prof` tooling
    if (profileDir !== undefined && opts['profile-out'] !== undefined) cpSync(profileDir, opts['profile-out'], { recursive: true });
    return {
      mode,
      settings: { ...p.settings, clients: CLIENTS, lanes: lanesTotal, signedAhead: perLane * lanesTotal, signSeconds: round(signSeconds) },
      window: { seconds: SECONDS, startHeight, endHeight },
      throughput: {
        committedInWindow,
        committedTxPerSec: round(rate, 0),
        per10s,
        acceptedTxPerSec: round(sent.filter((s) => s.ack <= until).length / SECONDS, 0),
      },
      latency: {
        blocksP50: pct(lb, 0.5),
        blocksP99: pct(lb, 0.99),
        msP50: round(pct(lm, 0.5), 0),
        msP99: round(pct(lm, 0.99), 0),
        ackMsP50: round(pct(am, 0.5)),
        ackMsP99: round(pct(am, 0.99)),
      },
      mempool: { max: poolSorted[poolSorted.length - 1] ?? 0, median: pct(poolSorted, 0.5), series },
      rssMiB: rssFigures,
      anonMiB: anonFigures,
      blockInterval: {
        targetMs: target,
        medianMs: pct(intervals, 0.5),
        p99Ms: pct(intervals, 0.99),
        maxMs: intervals[intervals.length - 1] ?? NaN,
        stdevMs: round(stdev),
        commitObservedMedianMs: round(pct(observed, 0.5), 0),
        commitObservedMaxMs: round(observed[observed.length - 1] ?? NaN, 0),
      },
      accounting: {
        accepted: sent.length,
        committed,
        evicted,
        evictedByReason,
        pendingAfterDrain,
        lost,
        checkedByHash: sample.length,
        byHashMismatches: mismatches,
      },
      refusals,
      refusalSamples: samples,
      lanesOutOfSignedTxs: results.reduce((n, r) => n + r.exhaustedLanes, 0),
      queries,
      flood,
      goals,
      nodeProblems: [...node.problems],
      profile,
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await stopNode(node);
  }
}

function print(r: ModeReport): void {
  const row = (label: string, value: string): void => console.log(`   ${label.padEnd(38)} ${value}`);
  row('committed tx/s (window)', `${r.throughput.committedTxPerSec} (${r.throughput.committedInWindow} txs; per 10 s: ${r.throughput.per10s.join(', ')})`);
  row('accepted tx/s (CheckTx code 0)', String(r.throughput.acceptedTxPerSec));
  row('submit→commit p50 / p99', `${r.latency.blocksP50} / ${r.latency.blocksP99} blocks, ${r.latency.msP50} / ${r.latency.msP99} ms`);
  row('broadcast answer p50 / p99', `${r.latency.ackMsP50} / ${r.latency.ackMsP99} ms`);
  row('mempool size median / max', `${r.mempool.median} / ${r.mempool.max}`);
  row(
    'mempool size every 5 s',
    r.mempool.series
      .filter((_, i) => i % 5 === 0)
      .map(([t, n]) => `${t}s:${n}`)
      .join(' '),
  );
  for (const [label, f] of [
    ['node RSS', r.rssMiB],
    ['node RssAnon', r.anonMiB],
  ] as const) {
    row(`${label} start / warm / peak / end / drained`, `${f.start} / ${f.afterWarmup} / ${f.peak} / ${f.end} / ${f.afterDrain} MiB`);
    row(`${label} every 5 s (MiB)`, f.series.map(([t, m]) => `${t}s:${m}`).join(' '));
  }
  const b = r.blockInterval;
  row(
    'block interval median / p99 / max (stdev)',
    `${b.medianMs} / ${b.p99Ms} / ${b.maxMs} ms (${b.stdevMs}), target ${b.targetMs}; commits seen: median ${b.commitObservedMedianMs}, max ${b.commitObservedMaxMs} ms`,
  );
  const a = r.accounting;
  row(
    'accounting',
    `accepted ${a.accepted} = committed ${a.committed} + evicted ${a.evicted} + pending ${a.pendingAfterDrain} + lost ${a.lost}; ${a.checkedByHash} found by hash over REST, ${a.byHashMismatches} mismatches`,
  );
  if (a.evicted > 0) row('evicted by reason', JSON.stringify(a.evictedByReason));
  row('refusals by code (resends counted)', JSON.stringify(r.refusals));
  if (r.queries !== undefined)
    row(
      'queries',
      `${r.queries.errors} errors; ${Object.entries(r.queries.byKind)
        .map(([k, v]) => `${k} ${v.ok} ok p50 ${round(v.p50Ms)} p99 ${round(v.p99Ms)} ms`)
        .join('; ')}`,
    );
  if (r.flood !== undefined)
    row('flood', `${r.flood.mempoolFullRefusals} "mempool is full" refusals; recovered: ${r.flood.recovered} (height ${r.flood.recoveryHeight})`);
  if (r.lanesOutOfSignedTxs > 0) row('lanes out of signed txs', `${r.lanesOutOfSignedTxs} (raise --rate)`);
  for (const l of r.nodeProblems) row('node log', l);
  for (const [g, ok] of Object.entries(r.goals)) row(`goal: ${g}`, ok ? 'met' : 'NOT MET');
  for (const pr of r.profile ?? []) {
    const who = pr.thread === 0 ? 'main thread' : `worker thread ${pr.thread}`;
    console.log(
      `   node CPU profile, ${who}, the window: busy ${round((pr.totalMs - pr.idleMs) / 1000)} s of ${round(pr.totalMs / 1000)} s, GC ${round(pr.gcMs / 1000)} s; top self time (share of busy):`,
    );
    for (const e of pr.top.slice(0, pr.thread === 0 ? 15 : 3))
      console.log(
        `     ${(e.share * 100).toFixed(1).padStart(5)}%  ${round(e.selfMs, 0).toString().padStart(7)} ms  ${e.fn} ${e.where}${e.caller ? ` ← ${e.caller}` : ''}`,
      );
  }
}

const reports: ModeReport[] = [];
try {
  for (const m of modes) {
    const r = await runMode(m);
    print(r);
    reports.push(r);
  }
} finally {
  if (opts.out !== undefined)
    writeFileSync(opts.out, JSON.stringify({ command: process.argv.slice(2), at: new Date().toISOString(), reports }, null, 2) + '\n');
  cleanup();
}
// lost txs or a failed accounting are a failure of the run; a missed throughput goal is a figure
process.exit(reports.every((r) => r.accounting.lost === 0 && r.accounting.byHashMismatches === 0) ? 0 : 1);
