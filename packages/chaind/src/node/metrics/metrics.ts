// The node's Prometheus metrics: every definition here, behind the NodeMetrics interface the drivers and
// node.ts call (nopMetrics when [instrumentation] is off). Names follow CometBFT's where CometBFT has
// the same measurement, so dashboards made for it read a solo chaind node; the upgrade ones are ours.
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { Gauge, Histogram, Registry } from 'prom-client';

/** What the node reports; every method is cheap and never throws. */
export interface NodeMetrics {
  /** A block committed at `height` with `txs` transactions and its header's `time`. */
  blockCommitted(height: bigint, txs: number, time: Timestamp): void;
  /** The committed upgrade plan after a block at `height` (undefined: none scheduled). */
  plan(plan: { readonly name: string; readonly height: bigint } | undefined, height: bigint): void;
  /** Runs CheckTx (`fn`) and records how long it took. */
  timeCheckTx<R>(fn: () => R): R;
  /** Runs FinalizeBlock (`fn`) and records how long it took. */
  timeFinalizeBlock<R>(fn: () => R): R;
  /** The node stopped at an upgrade height (it exits right after). */
  haltedForUpgrade(): void;
  /** Where the mempool's size is read at each scrape (solo mode only: behind CometBFT it is CometBFT's). */
  mempool(read: () => { readonly txs: number; readonly bytes: number }): void;
  /** Where `upgrade simulate`'s last result is read at each scrape (undefined: none). */
  simulation(read: () => { readonly name: string; readonly passed: boolean } | undefined): void;
  /** Where the network's readiness for the scheduled plan is read at each scrape (undefined: no plan, or vote extensions off). */
  readiness(read: () => { readonly name: string; readonly ratio: number } | undefined): void;
}

/** Reports nothing: the node without [instrumentation] prometheus. */
export const nopMetrics: NodeMetrics = {
  blockCommitted() {},
  plan() {},
  timeCheckTx: (fn) => fn(),
  timeFinalizeBlock: (fn) => fn(),
  haltedForUpgrade() {},
  mempool() {},
  simulation() {},
  readiness() {},
};

export interface PrometheusNodeMetrics {
  readonly metrics: NodeMetrics;
  readonly registry: Registry;
}

const seconds = (t0: number): number => (performance.now() - t0) / 1000;

/** b - a in seconds, the whole seconds subtracted as integers first so no nanosecond is lost to float rounding. */
export const secondsBetween = (a: Timestamp, b: Timestamp): number => Number(b.seconds - a.seconds) + (b.nanos - a.nanos) / 1e9;

/** The metrics, registered in a registry of their own, every name prefixed with `namespace` + "_". */
export function createNodeMetrics(namespace: string): PrometheusNodeMetrics {
  const registry = new Registry();
  const n = (s: string): string => `${namespace}_${s}`;
  const registers = [registry];
  const height = new Gauge({ name: n('consensus_height'), help: 'Height of the last committed block.', registers });
  const interval = new Histogram({
    name: n('consensus_block_interval_seconds'),
    help: "Time between a block's header time and its parent's (as CometBFT's; not when this node committed them).",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const numTxs = new Gauge({
    name: n('consensus_num_txs'),
    help: "Users' transactions in the last committed block (not the extended commit of vote extensions).",
    registers,
  });
  const blockTxs = new Histogram({
    name: n('consensus_block_txs'),
    help: "Users' transactions per committed block (its _sum: users' transactions committed since the node started).",
    buckets: [0, 1, 10, 100, 1000, 5000],
    registers,
  });
  const abciTiming = new Histogram({
    name: n('abci_connection_method_timing_seconds'),
    help: 'Time spent in an ABCI method of the app (check_tx, finalize_block).',
    labelNames: ['method', 'type'],
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const planHeight = new Gauge({
    name: n('upgrade_plan_height'),
    help: 'Height of the scheduled upgrade plan (no series when none).',
    labelNames: ['name'],
    registers,
  });
  const blocksToPlan = new Gauge({
    name: n('upgrade_blocks_to_plan'),
    help: 'Blocks from the last committed one to the scheduled upgrade plan (no series when none).',
    labelNames: ['name'],
    registers,
  });
  const halted = new Gauge({ name: n('upgrade_halted'), help: '1 once the node has halted at an upgrade height.', registers });
  halted.set(0);
  let read: (() => { readonly txs: number; readonly bytes: number }) | undefined;
  new Gauge({
    name: n('mempool_size'),
    help: 'Transactions in the mempool.',
    registers,
    collect() {
      if (read) this.set(read().txs);
    },
  });
  new Gauge({
    name: n('mempool_size_bytes'),
    help: 'Bytes of the transactions in the mempool.',
    registers,
    collect() {
      if (read) this.set(read().bytes);
    },
  });
  let readSimulation: (() => { readonly name: string; readonly passed: boolean } | undefined) | undefined;
  new Gauge({
    name: n('upgrade_simulate_passed'),
    help: "1 if the last `chaind upgrade simulate` on this node's home passed, 0 if it failed (no series before one has run).",
    labelNames: ['name'],
    registers,
    collect() {
      this.reset();
      const r = readSimulation?.();
      if (r !== undefined) this.set({ name: r.name }, r.passed ? 1 : 0);
    },
  });
  let readReadiness: (() => { readonly name: string; readonly ratio: number } | undefined) | undefined;
  new Gauge({
    name: n('upgrade_ready_power_ratio'),
    help: 'Share of the voting power whose validators attested a prepared release for the scheduled plan, 0 to 1 (no series without a plan or with vote extensions off).',
    labelNames: ['name'],
    registers,
    collect() {
      this.reset();
      const r = readReadiness?.();
      if (r !== undefined) this.set({ name: r.name }, r.ratio);
    },
  });
  let last: { readonly height: bigint; readonly time: Timestamp } | undefined;
  const timed = <R>(method: string, fn: () => R): R => {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      abciTiming.observe({ method, type: 'sync' }, seconds(t0));
    }
  };
  const metrics: NodeMetrics = {
    blockCommitted(h, txs, time) {
      // header times, as CometBFT's own metric: the chain's pace, the same on every node, however late this
      // one executed the blocks (catching up, replaying after a restart); only a block and its parent count
      if (last !== undefined && last.height === h - 1n) interval.observe(secondsBetween(last.time, time));
      last = { height: h, time };
      height.set(Number(h));
      numTxs.set(txs);
      blockTxs.observe(txs);
    },
    plan(p, h) {
      planHeight.reset();
      blocksToPlan.reset();
      if (p === undefined) return;
      planHeight.set({ name: p.name }, Number(p.height));
      blocksToPlan.set({ name: p.name }, Number(p.height - h));
    },
    timeCheckTx: (fn) => timed('check_tx', fn),
    timeFinalizeBlock: (fn) => timed('finalize_block', fn),
    haltedForUpgrade: () => halted.set(1),
    mempool(r) {
      read = r;
    },
    simulation(r) {
      readSimulation = r;
    },
    readiness(r) {
      readReadiness = r;
    },
  };
  return { metrics, registry };
}
