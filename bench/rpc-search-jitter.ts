// Block-interval jitter under a flood of heavy JSON-RPC searches (issue 18, finding 3): a solo node with
// 12,000 heights behind it produces a block every 100 ms while autocannon (its own process) keeps 8
// `block_search` requests over every height in flight. Baseline: the same node's intervals with no load,
// in the same run. A search yields to block production every SEARCH_HEIGHTS_PER_TURN heights, so a block
// should wait at most about one turn's work, never a whole search.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { TestNode } from '@chaind/chaind/testing';
import { header, median, ms, row } from './lib.ts';

const INTERVAL_MS = 100;
const HEIGHTS = 12_000;
const SECONDS = 5;
const CONNECTIONS = 8;
const AUTOCANNON = join(createRequire(import.meta.url).resolve('autocannon/package.json'), '..', 'autocannon.js');

header(
  'block intervals under a JSON-RPC block_search flood',
  `worst interval < 2x the ${INTERVAL_MS} ms target while ${CONNECTIONS} searches over ${HEIGHTS} heights are in flight`,
);

const node = await TestNode.start({ manual: true, blockIntervalMs: INTERVAL_MS, rpc: { search: { maxHeights: 1_000_000, maxResults: 1_000_000 } } });
try {
  for (let i = 0; i < HEIGHTS; i++) node.driver.produceBlock();
  const times: number[] = [];
  const off = node.driver.onBlock(() => times.push(performance.now()));
  node.driver.run();
  await node.waitForHeight(node.driver.height + 2n);

  const intervals = (from: number, to: number): number[] => {
    const t = times.filter((x) => x >= from && x <= to);
    return t.slice(1).map((x, i) => x - t[i]);
  };
  const report = (label: string, gaps: readonly number[]): number => {
    const sorted = [...gaps].sort((a, b) => a - b);
    const worst = sorted.at(-1) ?? NaN;
    row(label, `n ${gaps.length}`, `median ${ms(median(gaps))}`, `p99 ${ms(sorted[Math.floor(sorted.length * 0.99)] ?? NaN)}`, `max ${ms(worst)}`);
    return worst;
  };

  const idleStart = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const idle = report('idle (baseline)', intervals(idleStart, performance.now()));

  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'block_search', params: { query: "block.height > 0 AND nothing.here = 'x'" } });
  const floodStart = performance.now();
  // asynchronous: the node runs in this process and must keep its event loop while autocannon loads it
  const load = await new Promise<{ requests: number; p99: number; errors: number }>((resolve, reject) => {
    execFile(
      process.execPath,
      [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(SECONDS), '-m', 'POST', '-H', 'content-type=application/json', '-b', body, node.url],
      { maxBuffer: 64 << 20 },
      (err, stdout) => {
        if (err) return reject(err);
        const j = JSON.parse(stdout) as { requests: { total: number }; latency: { p99: number }; errors: number; non2xx: number };
        resolve({ requests: j.requests.total, p99: j.latency.p99, errors: j.errors + j.non2xx });
      },
    );
  });
  const flood = report('under the flood', intervals(floodStart, performance.now()));
  off();
  row('searches answered', `${load.requests}`, `p99 ${ms(load.p99)}`, load.errors ? `${load.errors} ERRORS` : '0 errors');
  row(
    'HEADLINE worst interval under flood',
    ms(flood),
    `${(flood / INTERVAL_MS).toFixed(2)}x target`,
    `idle ${ms(idle)}`,
    flood < 2 * INTERVAL_MS ? 'goal met' : 'GOAL NOT MET',
  );
} finally {
  await node.stop();
}
