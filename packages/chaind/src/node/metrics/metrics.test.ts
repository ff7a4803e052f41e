import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { lastSimulation } from '../side-files.ts';
import { createNodeMetrics } from './metrics.ts';
import { startMetricsServer } from './server.ts';

describe('node metrics', () => {
  test('the namespace prefixes every name; plan series come and go with the plan; halted is 0 until the halt', async () => {
    const { metrics, registry } = createNodeMetrics('chaind');
    let pool = { txs: 3, bytes: 300 };
    metrics.mempool(() => pool);
    metrics.blockCommitted(5n, 2, { seconds: 1_000n, nanos: 0 });
    metrics.plan({ name: 'v2', height: 20n }, 5n);
    metrics.timeCheckTx(() => 1);
    assert.throws(
      () =>
        metrics.timeFinalizeBlock(() => {
          throw new Error('halt');
        }),
      /halt/,
    );
    let text = await registry.metrics();
    for (const line of [
      'chaind_consensus_height 5',
      'chaind_consensus_num_txs 2',
      'chaind_mempool_size 3',
      'chaind_mempool_size_bytes 300',
      'chaind_upgrade_plan_height{name="v2"} 20',
      'chaind_upgrade_blocks_to_plan{name="v2"} 15',
      'chaind_upgrade_halted 0',
      'chaind_abci_connection_method_timing_seconds_count{method="check_tx",type="sync"} 1',
      // a FinalizeBlock that throws (an upgrade halt) is timed too
      'chaind_abci_connection_method_timing_seconds_count{method="finalize_block",type="sync"} 1',
    ])
      assert.ok(text.split('\n').includes(line), `${line} in\n${text}`);
    pool = { txs: 0, bytes: 0 };
    metrics.plan(undefined, 6n);
    metrics.haltedForUpgrade();
    text = await registry.metrics();
    assert.doesNotMatch(text, /upgrade_plan_height\{|upgrade_blocks_to_plan\{/);
    assert.match(text, /^chaind_upgrade_halted 1$/m);
    assert.match(text, /^chaind_mempool_size 0$/m);
  });

  test('block_interval_seconds: between header times of a block and its parent, never the wall clock', async () => {
    const { metrics, registry } = createNodeMetrics('chaind');
    metrics.blockCommitted(10n, 0, { seconds: 1_800_000_000n, nanos: 900_000_000 });
    metrics.blockCommitted(11n, 0, { seconds: 1_800_000_002n, nanos: 150_000_000 });
    // a gap (the node restarted at 20, caught up from elsewhere): no interval across it
    metrics.blockCommitted(20n, 0, { seconds: 1_800_000_100n, nanos: 0 });
    metrics.blockCommitted(21n, 0, { seconds: 1_800_000_100n, nanos: 500_000_001 });
    const text = await registry.metrics();
    assert.match(text, /^chaind_consensus_block_interval_seconds_count 2$/m);
    const sum = Number(/^chaind_consensus_block_interval_seconds_sum (\S+)$/m.exec(text)?.[1]);
    assert.ok(Math.abs(sum - 1.750000001) < 1e-12, `sum ${sum}`);
    assert.match(text, /^chaind_consensus_block_interval_seconds_bucket\{le="1"\} 1$/m);
    assert.match(text, /^chaind_consensus_height 21$/m);
  });

  test("upgrade_simulate_passed follows the home's last `upgrade simulate` result file, read at each scrape", async () => {
    const home = mkdtempSync(join(tmpdir(), 'chaind-metrics-'));
    try {
      mkdirSync(join(home, 'data'));
      const { metrics, registry } = createNodeMetrics('chaind');
      metrics.simulation(() => lastSimulation(home));
      assert.doesNotMatch(await registry.metrics(), /upgrade_simulate_passed\{/, 'no series before a simulation');
      const result = (o: object): void => writeFileSync(join(home, 'data', 'upgrade-simulate.json'), JSON.stringify(o));
      result({ name: 'v2', passed: true, finished_at: '2026-11-24T00:00:00Z' });
      assert.match(await registry.metrics(), /^chaind_upgrade_simulate_passed\{name="v2"\} 1$/m);
      result({ name: 'v3', passed: false, error: 'migration failed' });
      const failed = await registry.metrics();
      assert.match(failed, /^chaind_upgrade_simulate_passed\{name="v3"\} 0$/m);
      assert.doesNotMatch(failed, /name="v2"/, 'only the last result');
      writeFileSync(join(home, 'data', 'upgrade-simulate.json'), '{"name": "v3", "pass');
      assert.doesNotMatch(await registry.metrics(), /upgrade_simulate_passed\{/, 'a half-written file is no result');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('the endpoint serves /metrics only', async () => {
    const { registry } = createNodeMetrics('n');
    const s = await startMetricsServer({ host: '127.0.0.1', port: 0, maxOpenConnections: 0, registry });
    try {
      assert.equal((await fetch(s.url.replace('/metrics', '/other'))).status, 404);
      assert.match(await (await fetch(s.url)).text(), /^n_upgrade_halted 0$/m);
    } finally {
      await s.close();
    }
  });

  test('no more connections than max_open_connections', async () => {
    const { registry } = createNodeMetrics('n');
    const s = await startMetricsServer({ host: '127.0.0.1', port: 0, maxOpenConnections: 1, registry });
    const held: Socket[] = [];
    try {
      // one connection held open takes the only slot: the next is dropped
      const port = Number(new URL(s.url).port);
      const open = (): Promise<Socket> =>
        new Promise((res, rej) => {
          const c = connect(port, '127.0.0.1', () => res(c));
          c.on('error', rej);
          held.push(c);
        });
      await open();
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(fetch(s.url, { signal: AbortSignal.timeout(2000) }));
      held.splice(0).forEach((c) => c.destroy());
      await new Promise((r) => setTimeout(r, 50));
      // the body read, the one connection is free for the next request
      assert.equal(await fetch(s.url).then(async (r) => (await r.text(), r.status)), 200);
    } finally {
      held.forEach((c) => c.destroy());
      await s.close();
    }
  });
});
