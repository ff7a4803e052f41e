// Issue 21, part 3: both programs' Prometheus metrics scraped with a real HTTP client (fetch) from a real
// `chainvisor run` and the chaind node it starts, through a governance upgrade v1 → v2 prepared ahead of the
// halt: the node's height rising, blocks to the plan falling, chainvisor going prepared → upgrading →
// running, and the downtime of the upgrade recorded. The node's metrics are off until config.toml says so.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { freePort } from '@chaind/sdk/testing';
import { hex, serve, tgz, type Served } from '@chaind/upgrade-plan/testing';
import { chaindScript, cleanupVisorChains, createVisorChain, passAndWait, proposeV2, until, waitForHeight } from './kit/visor-chain.ts';

/** One sample of a Prometheus text exposition: `name{labels} value`, labels written in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const scrape = async (url: string): Promise<string> => {
  const r = await fetch(url);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return r.text();
};
const refused = async (url: string): Promise<boolean> =>
  fetch(url).then(
    () => false,
    (e: Error) => /ECONNREFUSED/.test(String((e.cause as Error | undefined)?.message ?? e.message)),
  );
const state = (text: string): string | undefined =>
  ['running', 'downloading', 'prepared', 'upgrading'].find((s) => sample(text, 'chainvisor_state', { state: s }) === 1);

describe('Prometheus metrics of chaind and chainvisor through an upgrade', () => {
  let srv: Served | undefined;
  afterEach(async () => {
    cleanupVisorChains();
    await srv?.close();
    srv = undefined;
  });

  test('scraped while blocks are made and through v1 → v2 under chainvisor', { timeout: 240_000 }, async () => {
    const t0 = performance.now();
    // the v2 release on a loopback mirror: chaind from source as v2
    const s = (srv = await serve());
    const release = tgz([
      { path: 'bin/', type: 'Directory' },
      { path: 'bin/chaind', body: chaindScript('v2'), mode: 0o755 },
    ]);
    s.file('/chaind-v2.tar.gz', release);
    const info = JSON.stringify({ binaries: { any: `${s.base}/chaind-v2.tar.gz?checksum=sha256:${hex('sha256', release)}` } });
    const [nodePort, visorPort] = [await freePort(), await freePort()];
    const nodeUrl = `http://127.0.0.1:${nodePort}/metrics`;
    const visorUrl = `http://127.0.0.1:${visorPort}/metrics`;
    const c = await createVisorChain({
      DAEMON_ALLOW_DOWNLOAD_BINARIES: 'true',
      DAEMON_ALLOW_LOOPBACK_HTTP: 'true',
      DAEMON_PREPARE_UPGRADE: 'true',
      DAEMON_METRICS_ADDRESS: `127.0.0.1:${visorPort}`,
      // the upgrade lasts at least this long, so scrapes on a busy machine see chainvisor's `upgrading` and
      // the node down: with the warm start it is over in about 0.3 s, between two scrapes
      DAEMON_RESTART_DELAY: '2s',
    });
    const configToml = join(c.home, 'config', 'config.toml');
    const written = readFileSync(configToml, 'utf8');
    assert.match(written, /^\[instrumentation\]\n(?:#.*\n)*prometheus = false$/m, 'chaind init writes the section, off');
    writeFileSync(configToml, written.replace(/^prometheus_listen_addr = .*$/m, `prometheus_listen_addr = "127.0.0.1:${nodePort}"`));

    // off by default: nothing listens on the node's metrics address while it makes blocks
    const first = c.run();
    await waitForHeight(c, first, 2);
    assert.equal(await refused(nodeUrl), true, 'the node serves no metrics with prometheus = false');
    assert.equal(state(await scrape(visorUrl)), 'running');
    first.child.kill('SIGTERM');
    assert.equal((await first.exit).code, 0);

    writeFileSync(configToml, readFileSync(configToml, 'utf8').replace(/^prometheus = false$/m, 'prometheus = true'));
    const v = c.run();
    await waitForHeight(c, v, (await c.height().catch(() => 0)) + 2);
    const a = await scrape(nodeUrl);
    await until('a new block', 10_000, async () => ((await c.height()) > (sample(a, 'cometbft_consensus_height') ?? 0) ? true : undefined));
    const b = await scrape(nodeUrl);
    const ha = sample(a, 'cometbft_consensus_height') ?? 0;
    assert.ok(ha >= 2, a);
    assert.ok((sample(b, 'cometbft_consensus_height') ?? 0) > ha, 'the height rises between scrapes');
    assert.ok((sample(b, 'cometbft_consensus_block_interval_seconds_count') ?? 0) >= 1);
    assert.ok((sample(b, 'cometbft_abci_connection_method_timing_seconds_count', { method: 'finalize_block' }) ?? 0) >= 2);
    assert.equal(sample(b, 'cometbft_mempool_size'), 0);
    assert.equal(sample(b, 'cometbft_upgrade_halted'), 0);
    assert.equal(sample(b, 'cometbft_upgrade_blocks_to_plan', { name: 'v2' }), undefined, 'no plan, no series');
    assert.equal(sample(await scrape(visorUrl), 'chainvisor_restarts_total'), 0);

    // the governance upgrade: CheckTx timed, a plan counted down, the release prepared ahead of the halt
    const h = (await c.height()) + 25;
    const proposed = await proposeV2(c, h, info);
    assert.equal(proposed.code, 0, proposed.stderr);
    await passAndWait(c, h);
    const p1 = await scrape(nodeUrl);
    assert.ok((sample(p1, 'cometbft_abci_connection_method_timing_seconds_count', { method: 'check_tx' }) ?? 0) >= 2, 'CheckTx of the proposal and the vote');
    assert.ok((sample(p1, 'cometbft_consensus_block_txs_sum') ?? 0) >= 2);
    assert.equal(sample(p1, 'cometbft_upgrade_plan_height', { name: 'v2' }), h);
    const left1 = sample(p1, 'cometbft_upgrade_blocks_to_plan', { name: 'v2' }) ?? NaN;
    assert.equal(left1, h - (sample(p1, 'cometbft_consensus_height') ?? NaN));
    const prepared = await until('chainvisor to prepare v2', 30_000, async () => {
      const t = await scrape(visorUrl);
      return state(t) === 'prepared' ? t : undefined;
    });
    assert.equal(sample(prepared, 'chainvisor_upgrade_prepared', { name: 'v2' }), 1);
    assert.equal(sample(prepared, 'chainvisor_download_bytes'), release.length);
    assert.equal(sample(prepared, 'chainvisor_download_size_bytes'), release.length);
    await until('a block closer to the plan', 10_000, async () => ((await c.height()) > h - left1 ? true : undefined));
    const left2 = sample(await scrape(nodeUrl), 'cometbft_upgrade_blocks_to_plan', { name: 'v2' }) ?? NaN;
    assert.ok(left2 < left1 && left2 > 0, `blocks to the plan fall: ${left1} then ${left2}`);

    // through the halt: scrape both every 20 ms and keep what was seen
    const visorStates: string[] = [];
    let haltedSeen = false;
    let nodeDown = false;
    await until('the new binary past the upgrade height', 90_000, async () => {
      const [t, n] = await Promise.all([
        scrape(visorUrl),
        fetch(nodeUrl).then(
          (r) => r.text(),
          () => undefined,
        ),
      ]);
      const st = state(t);
      if (st !== undefined && visorStates.at(-1) !== st) visorStates.push(st);
      if (n === undefined) nodeDown = true;
      else if (sample(n, 'cometbft_upgrade_halted') === 1) haltedSeen = true;
      else if (nodeDown && (sample(n, 'cometbft_consensus_height') ?? 0) >= h) return true;
      await new Promise((r) => setTimeout(r, 20));
      return undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}; states ${visorStates.join(' → ')}; chainvisor printed:\n${v.output().slice(-3000)}`);
    });
    assert.deepEqual(visorStates, ['prepared', 'upgrading', 'running'], 'chainvisor: prepared → upgrading → running');
    const after = await until('the downtime to be recorded', 30_000, async () => {
      const t = await scrape(visorUrl);
      return sample(t, 'chainvisor_last_upgrade_downtime_seconds', { name: 'v2' }) !== undefined ? t : undefined;
    });
    const downtime = sample(after, 'chainvisor_last_upgrade_downtime_seconds', { name: 'v2' }) ?? NaN;
    assert.ok(downtime > 0 && downtime < 60, `downtime ${downtime}`);
    const phases = ['stop', 'delay', 'backup', 'script', 'binary', 'pre_upgrade', 'switch', 'start_to_first_block'].map(
      (phase) => sample(after, 'chainvisor_last_upgrade_phase_seconds', { name: 'v2', phase }) ?? NaN,
    );
    assert.ok(
      phases.every((x) => x >= 0),
      `phases ${phases.join(', ')}`,
    );
    assert.ok(phases.reduce((x, y) => x + y) <= downtime + 0.05, 'the phases fit in the downtime');
    assert.ok(phases[1] >= 1.9, `the delay phase is DAEMON_RESTART_DELAY (2 s, timers may fire a little early): ${phases[1]} s`);
    assert.equal(sample(after, 'chainvisor_upgrades_total'), 1);
    assert.equal(sample(after, 'chainvisor_restarts_total'), 1);
    assert.equal(sample(after, 'chainvisor_upgrade_prepared', { name: 'v2' }), undefined, 'the prepared release is current now');
    // the new binary's own metrics: the plan is done, nothing halted
    const n2 = await scrape(nodeUrl);
    assert.equal(sample(n2, 'cometbft_upgrade_blocks_to_plan', { name: 'v2' }), undefined);
    assert.equal(sample(n2, 'cometbft_upgrade_halted'), 0);
    console.log(`# metrics e2e: ${((performance.now() - t0) / 1000).toFixed(1)} s; halted=1 seen before the old node exited: ${haltedSeen}`);
  });
});
