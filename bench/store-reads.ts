// Point-read throughput: random gets of committed keys through the multistore (the block's write set,
// falling through to LMDB) vs raw LMDB db.get on the same keys.
import { randomBytes } from 'node:crypto';
import { open } from 'lmdb';
import { CommitMultiStore } from '@chaind/sdk/store';
import { cleanup, header, median, row, si, tempDir, timeMs } from './lib.ts';

const KEYS = 200_000;
const GETS = 500_000;
const ROUNDS = 3;

header(
  `store reads: ${si(GETS)} random gets of ${si(KEYS)} committed keys (32-byte keys, 100-byte values), median of ${ROUNDS} rounds`,
  'store gets/s >= 0.5x raw LMDB db.get on the same keys',
);

const keys = Array.from({ length: KEYS }, () => randomBytes(32));
const values = Array.from({ length: KEYS }, () => randomBytes(100));
const order = Uint32Array.from({ length: GETS }, () => Math.floor(Math.random() * KEYS));

const ms = CommitMultiStore.open(tempDir('reads'));
ms.mount(['x']);
ms.loadLatest();
{
  const st = ms.getStore('x');
  for (let i = 0; i < KEYS; i++) st.set(keys[i], values[i]);
  ms.commit(1n);
}
const env = open({ path: tempDir('raw'), maxDbs: 4 });
const db = env.openDB({ name: 'data', keyEncoding: 'binary', encoding: 'binary' });
env.transactionSync(() => {
  for (let i = 0; i < KEYS; i++) db.putSync(keys[i], values[i]);
});

/** Runs GETS reads with `get`, returns ms; counts misses and bytes so the reads cannot be optimised away. */
function run(get: (k: Buffer) => Uint8Array | undefined): { t: number; misses: number } {
  let misses = 0;
  let bytes = 0;
  const t = timeMs(() => {
    for (let i = 0; i < GETS; i++) {
      const v = get(keys[order[i]]);
      if (v === undefined) misses++;
      else bytes += v.byteLength;
    }
  });
  if (bytes < 0) console.log(bytes);
  return { t, misses };
}

const st = ms.getStore('x');
const snap = ms.snapshot();
const snapStore = snap.getStore('x');
const HEADLINE = "store: st = getStore('x') once, st.get(key)";
const EACH = "store: getStore('x').get(key) on every read";
const RAW = 'raw LMDB: db.get(key)';
// a snapshot's reads fill the inter-block cache (32k entries for 200k keys read at random: mostly misses, near its worst case)
const SNAP = 'store snapshot (read txn + inter-block cache): get(key)';
const variants: [string, (k: Buffer) => Uint8Array | undefined][] = [
  [HEADLINE, (k) => st.get(k)],
  [EACH, (k) => ms.getStore('x').get(k)],
  [RAW, (k) => db.get(k)],
  [SNAP, (k) => snapStore.get(k)],
];

const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (const [, get] of variants) run(get); // warm-up
let misses = 0;
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, get] of variants) {
    const res = run(get);
    misses += res.misses;
    times.get(name)?.push(res.t);
  }
}
const rate = (name: string): number => (GETS / median(times.get(name) ?? [])) * 1000;
for (const [name] of variants) row(name, `${si(rate(name))} gets/s`);
const raw = rate(RAW);
row('HEADLINE ratio store(st.get) / raw', `${(rate(HEADLINE) / raw).toFixed(2)}x`);
row('ratio store(getStore each read) / raw', `${(rate(EACH) / raw).toFixed(2)}x`);
row('ratio store snapshot / raw', `${(rate(SNAP) / raw).toFixed(2)}x`);
if (misses > 0) row('WARNING: reads that found no value', String(misses));

snap.release();
await ms.close();
await env.close();
cleanup();
