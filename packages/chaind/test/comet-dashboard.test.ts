// The dashboard's and the metrics' block times behind CometBFT are the headers' times, not when chaind saw
// the blocks: one validator under `chaind start` (the pinned CometBFT as its child), /upgrade/status and
// chaind's /metrics checked against CometBFT's own `/block` headers, through a real v1 → v2 upgrade, and
// again after a restart, when the upgrade's height is one this process never committed (CometBFT's RPC
// then answers its time).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { parseRFC3339 } from '@chaind/sdk/types';
import {
  chaind,
  cometForTests,
  cometHeaderTime,
  cometHeight,
  eventually,
  GroupChild,
  ok,
  oneValidatorHome,
  proposeAndPassUpgrade,
  removeTmpDirs,
  startValidator,
  type OneValidator,
} from '@chaind/chaind/testing';
import type { DashboardStatus } from '../src/node/rest/dashboard.ts';

after(async () => {
  await GroupChild.killAllGroups();
  removeTmpDirs();
});

const CHAIN_ID = 'comet-dash-1';
const GOV_PERIOD = '10s';
/** Blocks between the proposal and the plan height: more than the voting period at ~3 blocks a second. */
const PLAN_MARGIN = 50n;

const instant = (s: string | null): Timestamp => {
  const t = s === null ? undefined : parseRFC3339(s);
  assert.ok(t !== undefined, `an RFC 3339 time: ${s}`);
  return t;
};
const seconds = (a: Timestamp, b: Timestamp): number => Number(b.seconds - a.seconds) + (b.nanos - a.nanos) / 1e9;

async function status(v: OneValidator): Promise<DashboardStatus> {
  const r = await fetch(`${v.ends.rest}/upgrade/status`);
  assert.equal(r.status, 200);
  return (await r.json()) as DashboardStatus;
}

/** The status, its latest block's time the header's of CometBFT's `/block` at its height, and its interval from those headers. */
async function checkBlockTimes(v: OneValidator): Promise<DashboardStatus> {
  const s = await status(v);
  const h = BigInt(s.height);
  assert.deepEqual(instant(s.block_time), instant(await cometHeaderTime(v.ends.rpc, h)), `block_time at ${h}`);
  const back = h - 20n > 0n ? h - 20n : 1n;
  const mean = (seconds(instant(await cometHeaderTime(v.ends.rpc, back)), instant(await cometHeaderTime(v.ends.rpc, h))) * 1000) / Number(h - back);
  assert.equal(s.block_interval_ms, Math.round(mean), `the mean interval over ${back}..${h}`);
  return s;
}

/** chaind's interval histogram from one scrape: it observed every block from `from` to the height, and its sum is their headers' span. */
async function checkIntervalMetric(v: OneValidator, from: bigint): Promise<void> {
  // one scrape holds height, count and sum together; a scrape is retried only if a block landed inside it
  const m = await eventually('a consistent scrape', async () => {
    const text = await (await fetch(v.metrics)).text();
    const num = (name: string): number => Number(new RegExp(`^chaind_${name} (\\S+)$`, 'm').exec(text)?.[1]);
    const height = BigInt(num('consensus_height'));
    const count = num('consensus_block_interval_seconds_count');
    return BigInt(count) === height - from ? { height, sum: num('consensus_block_interval_seconds_sum') } : undefined;
  });
  const span = seconds(instant(await cometHeaderTime(v.ends.rpc, from)), instant(await cometHeaderTime(v.ends.rpc, m.height)));
  assert.ok(Math.abs(m.sum - span) < 1e-6, `interval sum ${m.sum} s over ${from}..${m.height}; the headers span ${span} s`);
}

const above = (v: OneValidator, h: bigint, ms = 60_000): Promise<true> =>
  eventually(`height ${h}`, async () => (((await cometHeight(v.ends.rpc)) ?? 0n) >= h ? true : undefined), ms);

describe('block times behind CometBFT: the headers', { skip: cometForTests().skip, timeout: 600_000 }, () => {
  test("/upgrade/status's block_time, interval and applied upgrade's time, and the interval metric, are CometBFT's header times, through v1 → v2 and a restart", async () => {
    const v = await oneValidatorHome({ chainId: CHAIN_ID, govPeriod: GOV_PERIOD });
    let node = startValidator(v.home, 'v1');
    await above(v, 5n);
    await checkBlockTimes(v);
    // a fresh chain: chaind committed every block from 1
    await checkIntervalMetric(v, 1n);

    // the upgrade v1 → v2 at H: chaind halts (exit 10), v2 is given block H again and commits it
    const h = ((await cometHeight(v.ends.rpc)) ?? 0n) + PLAN_MARGIN;
    await proposeAndPassUpgrade({
      cli: (args) => chaind(args),
      node: v.ends.rpc,
      home: v.home,
      name: 'v2',
      height: h,
      proposal: 1,
      from: v.operator,
      voter: v.operator,
      summary: 's',
      broadcastMode: 'sync',
      gas: '400000',
      txFlags: ['--fees', '5000stake', '--chain-id', CHAIN_ID],
      context: () => node.log().slice(-3000),
    });
    // bounded: a proposal that did not pass leaves the node running, and the failure names the proposal
    const halted = await Promise.race([node.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 120_000).unref())]);
    if (halted === undefined) {
      const p = await ok(['query', 'gov', 'proposal', '1', '-o', 'json', '--node', v.ends.rpc]).catch((e: Error) => ({ stdout: e.message }));
      assert.fail(`no halt at ${h} (height ${await cometHeight(v.ends.rpc)}); proposal 1: ${p.stdout}`);
    }
    assert.equal(halted.code, 10, node.log().slice(-4000));
    node = startValidator(v.home, 'v2');
    await above(v, h + 3n, 120_000);
    const afterUpgrade = await checkBlockTimes(v);
    const applied = afterUpgrade.history.find((u) => u.name === 'v2');
    assert.equal(applied?.height, h.toString(), JSON.stringify(afterUpgrade.history));
    assert.deepEqual(
      instant(applied.time),
      instant(await cometHeaderTime(v.ends.rpc, h)),
      'the applied upgrade at its header time (the block this process committed)',
    );
    // this process started at H: its first interval is H → H + 1
    await checkIntervalMetric(v, h);

    // restarted past H: the upgrade's height is one this process never saw; its time comes from CometBFT's RPC
    const stoppedAt = (await cometHeight(v.ends.rpc)) ?? h;
    node.signal('SIGTERM');
    assert.equal((await node.exited).code, 0, node.log().slice(-3000));
    node = startValidator(v.home, 'v2');
    await above(v, stoppedAt + 3n);
    const first = BigInt((await node.waitForLog(/committed block height=(\d+)/))[1]);
    assert.ok(first > h, `the restarted process began at ${first}, past ${h}`);
    const restarted = await checkBlockTimes(v);
    const again = restarted.history.find((u) => u.name === 'v2');
    assert.deepEqual(instant(again?.time ?? null), instant(await cometHeaderTime(v.ends.rpc, h)), 'the applied upgrade at its header time, from CometBFT');
    await checkIntervalMetric(v, first);
    await node.killGroup();
  });
});
