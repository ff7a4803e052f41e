// The soak's verdicts (bench/soak/report.ts) on made-up series: what `npm run soak` fails on and what it
// lets pass (a heap's sawtooth, the old process closing its servers at the halt).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verdicts, type Sample } from '../bench/soak/report.ts';

const WARMUP = 60;

/** A 20-minute run, a sample every 10 s: v1 until 600 s, the halt, v2 from 630 s; each field overridable per sample. */
function run(over: (t: number) => Partial<Sample> = () => ({})): Sample[] {
  const out: Sample[] = [];
  for (let t = 0; t <= 1200; t += 10) {
    const phase: Sample['phase'] = t < 600 ? 'v1' : t < 630 ? 'upgrading' : 'v2';
    const txs = t * 25;
    out.push({
      t,
      height: t,
      phase,
      nodePid: phase === 'v1' ? 100 : 200,
      nodeRssMiB: 200,
      nodeAnonMiB: 150,
      nodeFileMiB: 50,
      nodeFds: phase === 'upgrading' ? 24 : 49,
      visorRssMiB: 80,
      visorHeapMiB: 11,
      visorFds: 25,
      dataMiB: (txs * 1800) / 1024 / 1024,
      dataApparentMiB: 0,
      committedTxs: txs,
      acceptedTxs: txs,
      txErrors: 0,
      mempool: 10,
      ...over(t),
    });
  }
  return out;
}

const failed = (s: Sample[]): string[] =>
  verdicts(s, WARMUP)
    .filter((v) => !v.ok)
    .map((v) => v.what);

describe('npm run soak: its bounds', () => {
  test('a steady run passes, the halt between the processes does not count against their descriptors', () => {
    assert.deepEqual(failed(run()), []);
  });

  test("a heap's sawtooth with steady floors passes; floors rising 120 MiB/h fail", () => {
    // 40 MiB of garbage built up over 100 s, then collected (as the node's heap under the soak's load)
    const saw = (t: number): number => 150 + ((t % 100) / 100) * 40;
    assert.deepEqual(failed(run((t) => ({ nodeAnonMiB: saw(t) }))), []);
    const leak = (t: number): number => saw(t) + (t / 3600) * 120;
    assert.deepEqual(failed(run((t) => ({ nodeAnonMiB: leak(t) }))), ['v1 node RssAnon growth', 'v2 node RssAnon growth']);
  });

  test("chainvisor's one step at the upgrade passes; its memory rising after the upgrade fails", () => {
    assert.deepEqual(failed(run((t) => ({ visorRssMiB: t < 600 ? 80 : 90 }))), []);
    assert.deepEqual(failed(run((t) => ({ visorRssMiB: t < 600 ? 80 : 90 + ((t - 630) / 3600) * 60 }))), ['chainvisor RSS growth after the upgrade']);
  });

  test("chainvisor's heap after a full collection: a step at the upgrade passes; rising 8 MiB/h before it fails, while its RSS does not", () => {
    assert.deepEqual(failed(run((t) => ({ visorHeapMiB: t < 600 ? 11 : 13 }))), []);
    // a JavaScript leak of 8 MiB/h, under the RSS bound: the heap kept after each collection shows it
    const leak = (t: number): Partial<Sample> => (t < 600 ? { visorHeapMiB: 11 + (t / 3600) * 8, visorRssMiB: 80 + (t / 3600) * 8 } : {});
    assert.deepEqual(failed(run(leak)), ['chainvisor heap growth before the upgrade']);
  });

  test('descriptors leaking in the v2 process fail', () => {
    assert.deepEqual(failed(run((t) => (t >= 630 ? { nodeFds: 49 + Math.floor((t - 630) / 30) } : {}))), ['v2 node open fds']);
  });

  test('data growing faster than the committed txs fails', () => {
    // after 700 s each tx takes three times the bytes
    const bytes = (t: number): number => (t <= 700 ? t * 25 * 1800 : 700 * 25 * 1800 + (t - 700) * 25 * 5400);
    assert.deepEqual(failed(run((t) => ({ dataMiB: bytes(t) / 1024 / 1024 }))), ['data on disk per committed tx']);
  });
});
