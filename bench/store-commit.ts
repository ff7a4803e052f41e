// Commit throughput: a block write set of N keys committed through the multistore vs one raw LMDB
// transaction writing the same keys.
import { randomBytes } from 'node:crypto';
import { open } from 'lmdb';
import { CommitMultiStore } from '@chaind/sdk/store';
import { cleanup, header, median, ms, row, si, tempDir, timeMs } from './lib.ts';

const SIZES: [n: number, rounds: number][] = [
  [10_000, 7],
  [100_000, 5],
];

header(
  'store commit: N keys (32-byte keys, 100-byte values) into an empty store, median of several rounds',
  'commit of a write set of N keys >= 0.5x the keys/s of one raw LMDB transaction writing the same keys (headline ratio)',
);
console.log('   headline = commit(1n) of a built write set (sorting, store + app hashing, one LMDB txn) vs the raw txn, as the goal reads;');
console.log('   "set + commit" also counts building the write set during the block (copies, key strings) — shown for the whole cost');

async function storeRound(keys: Buffer[], values: Buffer[]): Promise<{ set: number; commit: number }> {
  const ms = CommitMultiStore.open(tempDir('commit'));
  ms.mount(['x']);
  ms.loadLatest();
  const st = ms.getStore('x');
  const set = timeMs(() => {
    for (let i = 0; i < keys.length; i++) st.set(keys[i], values[i]);
  });
  const commit = timeMs(() => ms.commit(1n));
  await ms.close();
  return { set, commit };
}

async function rawRound(keys: Buffer[], values: Buffer[]): Promise<number> {
  const env = open({ path: tempDir('raw'), maxDbs: 4 });
  const db = env.openDB({ name: 'data', keyEncoding: 'binary', encoding: 'binary' });
  const t = timeMs(() =>
    env.transactionSync(() => {
      for (let i = 0; i < keys.length; i++) db.putSync(keys[i], values[i]);
    }),
  );
  await env.close();
  return t;
}

for (const [n, rounds] of SIZES) {
  const keys = Array.from({ length: n }, () => randomBytes(32));
  const values = Array.from({ length: n }, () => randomBytes(100));
  const sorted = keys.map((k, i) => [k, values[i]] as const).sort((a, b) => Buffer.compare(a[0], b[0]));
  const sortedKeys = sorted.map((e) => e[0]);
  const sortedValues = sorted.map((e) => e[1]);
  const set: number[] = [];
  const commit: number[] = [];
  const both: number[] = [];
  const raw: number[] = [];
  const rawSorted: number[] = [];
  await storeRound(keys, values); // warm-up
  await rawRound(keys, values);
  for (let r = 0; r < rounds; r++) {
    const s = await storeRound(keys, values);
    set.push(s.set);
    commit.push(s.commit);
    both.push(s.set + s.commit);
    raw.push(await rawRound(keys, values));
    rawSorted.push(await rawRound(sortedKeys, sortedValues));
    cleanup();
  }
  const rate = (t: number): string => `${si((n / t) * 1000)} keys/s`;
  console.log(`-- N = ${si(n)} keys, ${rounds} rounds`);
  row('store: set into write set', ms(median(set)), rate(median(set)));
  row('store: commit only', ms(median(commit)), rate(median(commit)));
  row('store: set + commit', ms(median(both)), rate(median(both)));
  row('raw LMDB txn, keys in the same (random) order', ms(median(raw)), rate(median(raw)));
  row('raw LMDB txn, keys pre-sorted', ms(median(rawSorted)), rate(median(rawSorted)));
  row('HEADLINE ratio store(commit) / raw', `${(median(raw) / median(commit)).toFixed(2)}x`);
  row('ratio store(set + commit) / raw', `${(median(raw) / median(both)).toFixed(2)}x`);
  row('ratio store(set + commit) / raw pre-sorted', `${(median(rawSorted) / median(both)).toFixed(2)}x`);
}
cleanup();
