import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { UpgradeHaltError } from '@chaind/sdk/x/upgrade';
import { newHome, removeTmpDirs, softwareUpgrade, TestChain, upgradeV2 } from '@chaind/chaind/testing';
import type { Upgrade } from '../../upgrades/index.ts';
import { v2 } from '../../upgrades/v2/index.ts';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import type { CommittedBlock, ConsensusDriver } from '../driver.ts';
import { DASHBOARD_STATUS_PATH, type DashboardStatus } from './dashboard.ts';
import { SIMULATE_RESULT_FILE, VISOR_STATUS_FILE } from '../side-files.ts';
import { startRestServer, type RestServer } from './server.ts';

after(removeTmpDirs);

describe('GET /upgrade and /upgrade/status', () => {
  let c: TestChain;
  let s: RestServer;
  const listeners: ((b: CommittedBlock) => void)[] = [];
  // the header times the driver answers (as CometBFT's RPC would behind it); `down` as when it cannot be asked
  const headerTimes = new Map<bigint, Timestamp>();
  let down = false;
  before(async () => {
    c = TestChain.open(newHome());
    // the consensus side as the servers see it: the test chain's height, blocks announced by hand
    const driver: ConsensusDriver = {
      chainId: 'dash-1',
      get height() {
        return c.height;
      },
      onBlock: (l) => (listeners.push(l), () => {}),
      blockTime: async (h) => {
        if (down) throw new Error('CometBFT RPC is not reachable');
        return headerTimes.get(h);
      },
      admission: undefined as never,
      txs: undefined as never,
      done: new Promise(() => {}),
    };
    s = await startRestServer({
      port: 0,
      app: c.app,
      dashboard: { home: c.home, driver, history: () => c.app.withQueryContext((ctx) => c.chain.upgradeHistory(ctx)) },
    });
  });
  after(async () => {
    await s.close();
    await c.close();
  });
  const status = async (): Promise<DashboardStatus> => {
    const r = await fetch(s.url + DASHBOARD_STATUS_PATH);
    assert.equal(r.status, 200);
    return (await r.json()) as DashboardStatus;
  };

  test('the page is served as is: HTML, no external references', async () => {
    const r = await fetch(`${s.url}/upgrade`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const html = await r.text();
    assert.match(html, /<title>Upgrade dashboard/);
    assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//, 'no external assets');
  });

  test("chain id and height; block time and interval are the headers' times (to the nanosecond), not when the blocks were seen", async () => {
    const a = await status();
    assert.equal(a.chain_id, 'dash-1');
    assert.equal(a.height, c.height.toString());
    assert.deepEqual(a.history, []);
    assert.equal(a.block_time, null, 'no header time known yet');
    // header times years away from the wall clock and 4.5 s apart: whatever shows them came from the headers
    const first = c.height;
    const t1: Timestamp = { seconds: 1_000_000_000n, nanos: 123_456_789 };
    const t2: Timestamp = { seconds: 1_000_000_004n, nanos: 623_456_789 };
    headerTimes.set(first, t1);
    for (const l of listeners) l({ height: first, results: undefined as never, txs: [], time: t1 });
    c.block();
    headerTimes.set(c.height, t2);
    for (const l of listeners) l({ height: c.height, results: undefined as never, txs: [], time: t2 });
    const b = await status();
    assert.equal(b.block_time, '2001-09-09T01:46:44.623456789Z');
    assert.equal(b.block_interval_ms, 4500);
    // CometBFT's RPC down: no time rather than a failed page
    down = true;
    const d = await status();
    down = false;
    assert.equal(d.block_time, null);
    assert.equal(d.block_interval_ms, null);
  });

  test("chainvisor's status file and the simulation result: absent → null, half-written → its error, whole → its JSON", async () => {
    assert.equal((await status()).chainvisor, null);
    assert.equal((await status()).simulate, null);
    mkdirSync(join(c.home, 'cosmovisor'), { recursive: true });
    writeFileSync(join(c.home, VISOR_STATUS_FILE), '{"state": "downl');
    const half = (await status()).chainvisor;
    assert.ok(half !== null && !half.ok && /is not valid JSON/.test(half.error), JSON.stringify(half));
    const whole = {
      state: 'prepared',
      plan: { name: 'v2', height: '40' },
      checksum: 'sha256:ab',
      download: { bytes: 3, total: 3 },
      updated: new Date().toISOString(),
      pid: 1,
    };
    writeFileSync(join(c.home, VISOR_STATUS_FILE), JSON.stringify(whole));
    assert.deepEqual((await status()).chainvisor, { ok: true, value: whole });
    mkdirSync(join(c.home, 'data'), { recursive: true });
    writeFileSync(join(c.home, SIMULATE_RESULT_FILE), '{"ok": true, "name": "v2"}');
    assert.deepEqual((await status()).simulate, { ok: true, value: { ok: true, name: 'v2' } });
    rmSync(join(c.home, VISOR_STATUS_FILE));
    assert.equal((await status()).chainvisor, null);
  });
});

describe("ChainApp.upgradeHistory (the dashboard's applied upgrades)", () => {
  /** A v1 chain upgraded to `upgrade` at its height; the history seen after. */
  async function historyAfter(upgrade: Upgrade): Promise<{ h: bigint; history: { name: string; height: bigint }[] }> {
    const home = newHome();
    const old = TestChain.open(home);
    const h = old.height + 25n;
    assert.deepEqual(
      old.app.withQueryContext((ctx) => old.chain.upgradeHistory(ctx)),
      [],
      'none before',
    );
    old.pass([softwareUpgrade('v2', h)]);
    old.blocksUntil(h - 1n);
    assert.throws(
      () => old.block(),
      (e: Error) => e instanceof UpgradeHaltError,
    );
    await old.close();
    const c = TestChain.open(home, { upgrades: [upgrade] });
    c.block();
    const history = c.app.withQueryContext((ctx) => c.chain.upgradeHistory(ctx));
    await c.close();
    return { h, history };
  }

  test("an upgrade adding no history-keeping module: the upgrade module's records", async () => {
    const { h, history } = await historyAfter(upgradeV2());
    assert.deepEqual(history, [{ name: 'v2', height: h }]);
  });

  test("the real v2, which adds chaininfo: chaininfo's history", async () => {
    const { h, history } = await historyAfter(v2);
    assert.deepEqual(history, [{ name: 'v2', height: h }]);
  });
});
