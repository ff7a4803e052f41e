// One validator on CometBFT (`chaind start`, the pinned cometbft as chaind's child over a unix socket)
// against the same home run solo (`chaind dev`, chaind makes the blocks), in the same run: the same home
// recipe (bench/load/home.ts, block_interval = timeout_commit), the same pre-signed bank sends from
// BENCH_LANES funded accounts over JSON-RPC broadcast_tx_sync at BENCH_RATE tx/s for BENCH_SECONDS
// (bench/load/client.ts), then drained. A tx is committed when chaind logs its block's commit (the line's
// arrival here: nothing polls the node during the window). Goal: comet/solo ≥ 0.8 for committed tx/s
// and for 1/p99 submit→commit.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { header, row, tempDir } from './lib.ts';
import { exited, forkReady } from './load/fork.ts';
import { CHAIN_ID, DENOM, listenOn, makeHome } from './load/home.ts';
import { readBlocks, rpcCall, startNode, stopNode, type RunningNode } from './load/node.ts';
import { nowMs, type ClientResult, type ClientSpec, type Sent } from './load/protocol.ts';
import { cpuSecondsOf } from './soak/proc.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 1000);
const LANES = Number(process.env.BENCH_LANES ?? 256);
const CLIENTS = 2;

type Mode = 'solo' | 'comet';

interface Figures {
  readonly accepted: number;
  readonly committed: number;
  readonly txPerSec: number;
  readonly p50: number;
  readonly p99: number;
  /** From the tx's slot at the offered rate: what a lane behind its slots waited more. */
  readonly dueP99: number;
  readonly ackP50: number;
  readonly ackP99: number;
  readonly blockMedian: number;
  readonly blockMax: number;
  readonly maxBlockTxs: number;
  readonly refusals: Readonly<Record<string, number>>;
  readonly cpu: string;
  /** Share of committed txs that saw 0, 1, 2, 3+ other blocks committed between their submit and their own block. */
  readonly passedBy: readonly number[];
}

const pct = (sorted: readonly number[], p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

async function mempoolSize(rpc: string): Promise<number> {
  return Number((await rpcCall<{ total: string }>(rpc, 'num_unconfirmed_txs')).total);
}

/** CPU seconds of chaind and (under chaind start) its CometBFT. */
function cpu(node: RunningNode): { chaind: number; comet: number } {
  const comet = node.cometPid();
  return { chaind: cpuSecondsOf(node.child.pid ?? -1) ?? NaN, comet: comet === undefined ? 0 : (cpuSecondsOf(comet) ?? NaN) };
}

async function run(mode: Mode): Promise<Figures> {
  const dir = tempDir(`comet-validator-${mode}`);
  const perLane = Math.ceil((RATE * SECONDS * 1.1) / LANES);
  // the mempool holds several blocks of the offered rate; CometBFT reads the same [mempool] size
  const { home, lanes } = makeHome(dir, LANES, { blockIntervalMs: BLOCK_MS, mempoolSize: 20_000, maxPendingTxs: 20_000 });
  const endpoints = await listenOn(home);
  const node = await startNode(home, undefined, { command: mode === 'solo' ? 'dev' : 'start', endpoints });
  const children: ChildProcess[] = [];
  try {
    const perClient = LANES / CLIENTS;
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) => {
        const spec: ClientSpec = {
          chainId: CHAIN_ID,
          denom: DENOM,
          rpc: node.rpc,
          rest: node.rest,
          lanes: lanes.slice(c * perClient, (c + 1) * perClient),
          txsPerLane: perLane,
          retryMs: 50,
          out: join(dir, `client-${c}.json`),
          rpcOnly: true,
          offeredTxPerSec: RATE / CLIENTS,
        };
        const file = join(dir, `client-${c}.spec.json`);
        writeFileSync(file, JSON.stringify(spec));
        return forkReady('./client.ts', file);
      }),
    );
    children.push(...clients.map((c) => c.child));
    const start = nowMs() + 500;
    const until = start + SECONDS * 1000;
    const cpu0 = await new Promise<ReturnType<typeof cpu>>((r) => setTimeout(() => r(cpu(node)), start - nowMs()));
    for (const c of clients) c.child.send({ start, until });
    await Promise.all(clients.map((c) => exited(c.child)));
    const cpu1 = cpu(node);

    // drain: the mempool empties into blocks, then one more block
    const deadline = Date.now() + 60_000;
    while ((await mempoolSize(node.rpc)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const last = Math.max(...node.committedAt.keys());
    while (Math.max(...node.committedAt.keys()) <= last && Date.now() < deadline + 10_000) await new Promise((r) => setTimeout(r, 50));

    const results = clients.map((_, c) => JSON.parse(readFileSync(join(dir, `client-${c}.json`), 'utf8')) as ClientResult);
    const sent: Sent[] = results.flatMap((r) => r.sent);
    const refusals: Record<string, number> = {};
    for (const r of results) for (const [code, n] of Object.entries(r.refusals)) refusals[code] = (refusals[code] ?? 0) + n;
    const { blocks, heightOf } = await readBlocks(node.rpc);
    const lat: number[] = [];
    const fromDue: number[] = [];
    const passedBy = [0, 0, 0, 0];
    const commits = sorted([...node.committedAt.values()]);
    for (const s of sent) {
      const h = heightOf.get(s.hash);
      const at = h === undefined ? undefined : node.committedAt.get(h);
      if (at === undefined) continue;
      lat.push(at - s.submit);
      fromDue.push(at - s.due);
      const passed = commits.filter((t) => t > s.submit && t < at).length;
      passedBy[Math.min(3, passed)]++;
    }
    let inWindow = 0;
    for (const [h, at] of node.committedAt) if (at > start && at <= until) inWindow += node.txsAt.get(h) ?? 0;
    const windowBlocks = blocks.filter((b) => {
      const at = node.committedAt.get(b.height);
      return at !== undefined && at > start && at <= until;
    });
    const intervals = sorted(windowBlocks.slice(1).map((b, i) => b.timeMs - windowBlocks[i].timeMs));
    const l = sorted(lat);
    const d = sorted(fromDue);
    const a = sorted(sent.map((s) => s.ack - s.submit));
    const secs = (until - start) / 1000;
    const c = { chaind: cpu1.chaind - cpu0.chaind, comet: cpu1.comet - cpu0.comet };
    return {
      accepted: sent.length,
      committed: lat.length,
      txPerSec: inWindow / SECONDS,
      p50: pct(l, 0.5),
      p99: pct(l, 0.99),
      dueP99: pct(d, 0.99),
      ackP50: pct(a, 0.5),
      ackP99: pct(a, 0.99),
      blockMedian: pct(intervals, 0.5),
      blockMax: intervals[intervals.length - 1] ?? NaN,
      maxBlockTxs: Math.max(0, ...windowBlocks.map((b) => b.txs)),
      refusals,
      passedBy: passedBy.map((n) => n / Math.max(1, lat.length)),
      cpu: `chaind ${(c.chaind / secs).toFixed(2)}${mode === 'comet' ? `, cometbft ${(c.comet / secs).toFixed(2)}` : ''} cores`,
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await stopNode(node);
  }
}

header(
  `one validator: chaind start (CometBFT) vs chaind dev (solo), ${RATE} tx/s offered for ${SECONDS} s over JSON-RPC, ${LANES} accounts, ${BLOCK_MS} ms blocks`,
  'comet/solo ≥ 0.8 for committed tx/s and for 1/p99 submit→commit',
);
const figures = { solo: await run('solo'), comet: await run('comet') };
const f1 = (n: number): string => n.toFixed(0);
row('', 'solo', 'comet', 'comet/solo');
row('committed tx/s (window)', f1(figures.solo.txPerSec), f1(figures.comet.txPerSec), `${(figures.comet.txPerSec / figures.solo.txPerSec).toFixed(2)}x`);
row('submit→commit p50 (ms)', f1(figures.solo.p50), f1(figures.comet.p50), `${(figures.solo.p50 / figures.comet.p50).toFixed(2)}x (inverse)`);
row('submit→commit p99 (ms)', f1(figures.solo.p99), f1(figures.comet.p99), `${(figures.solo.p99 / figures.comet.p99).toFixed(2)}x (inverse)`);
row('slot→commit p99 (ms)', f1(figures.solo.dueP99), f1(figures.comet.dueP99));
row(
  'broadcast_tx_sync answer p50 / p99 (ms)',
  `${f1(figures.solo.ackP50)} / ${f1(figures.solo.ackP99)}`,
  `${f1(figures.comet.ackP50)} / ${f1(figures.comet.ackP99)}`,
);
row('accepted / committed', `${figures.solo.accepted} / ${figures.solo.committed}`, `${figures.comet.accepted} / ${figures.comet.committed}`);
row(
  'block interval median / max (ms)',
  `${f1(figures.solo.blockMedian)} / ${f1(figures.solo.blockMax)}`,
  `${f1(figures.comet.blockMedian)} / ${f1(figures.comet.blockMax)}`,
);
row('most txs in a block', String(figures.solo.maxBlockTxs), String(figures.comet.maxBlockTxs));
const shares = (f: Figures): string => f.passedBy.map((x) => `${(x * 100).toFixed(1)}%`).join(' / ');
row('blocks committed while a tx waited: 0 / 1 / 2 / 3+', shares(figures.solo), shares(figures.comet));
row('CPU in the window', figures.solo.cpu, figures.comet.cpu);
row('refusals (code: count)', JSON.stringify(figures.solo.refusals), JSON.stringify(figures.comet.refusals));
const goals = {
  throughput: figures.comet.txPerSec / figures.solo.txPerSec >= 0.8,
  p99: figures.solo.p99 / figures.comet.p99 >= 0.8,
};
row('goal: comet/solo committed tx/s ≥ 0.8', goals.throughput ? 'met' : 'NOT MET');
row('goal: solo p99 / comet p99 ≥ 0.8', goals.p99 ? 'met' : 'NOT MET');
