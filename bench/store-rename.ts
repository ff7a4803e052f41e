// Store rename as a store upgrade: the multistore renames by re-pointing the registry entry (no key is
// touched), so its cost should not depend on the store's size. For contrast: a copying rename that
// rewrites every key under a new store and deletes the old one, committed.
import { Buffer } from 'node:buffer';
import { CommitMultiStore, type StoreUpgrades } from '@chaind/sdk/store';
import { cleanup, header, median, ms, row, si, tempDir, timeMs } from './lib.ts';

const SIZES: [n: number, renameRounds: number, copyRounds: number][] = [
  [10_000, 7, 3],
  [1_000_000, 7, 1],
];
const BATCH = 250_000;

header(
  'store rename: loadLatestWithUpgrades({renamed}) + commit of the upgrade block, 32-byte keys, 32-byte values',
  'rename < 10 ms at both 10k and 1M keys (copying rename shown for contrast)',
);
console.log('   copying rename = one upgrade block adding a new store and deleting the old one, every key copied across, committed');

function key(i: number): Buffer {
  const k = Buffer.alloc(32, i & 0xff);
  k.writeUInt32BE(i, 0);
  k.writeUInt32BE(Math.imul(i, 0x9e3779b1) >>> 0, 4);
  return k;
}

function openWith(path: string, mounted: string[], upgrades: StoreUpgrades = {}): CommitMultiStore {
  const st = CommitMultiStore.open(path);
  st.mount(mounted);
  st.loadLatestWithUpgrades(upgrades);
  return st;
}

/** A database whose store `name` holds n keys, committed in blocks of BATCH. */
async function seed(n: number, name: string): Promise<string> {
  const path = tempDir('rename');
  const st = openWith(path, [name]);
  for (let lo = 0, h = 1n; lo < n; lo += BATCH, h++) {
    const s = st.getStore(name);
    for (let i = lo; i < Math.min(n, lo + BATCH); i++) s.set(key(i), key(i + 1));
    st.commit(h);
  }
  await st.close();
  return path;
}

for (const [n, renameRounds, copyRounds] of SIZES) {
  console.log(`-- ${si(n)} keys`);
  let seedMs = 0;
  const seedStart = performance.now();
  const path = await seed(n, 's0');
  seedMs = performance.now() - seedStart;
  row('(setup: write and commit the store)', ms(seedMs));

  // O(1) rename, repeated: s0 -> s1 -> s2 ..., one upgrade block each
  const openT: number[] = [];
  const loadT: number[] = [];
  const commitT: number[] = [];
  const total: number[] = [];
  for (let r = 0; r < renameRounds; r++) {
    const from = `s${r}`;
    const to = `s${r + 1}`;
    let st!: CommitMultiStore;
    openT.push(
      timeMs(() => {
        st = CommitMultiStore.open(path);
        st.mount([to]);
      }),
    );
    const load = timeMs(() => st.loadLatestWithUpgrades({ renamed: [{ oldKey: from, newKey: to }] }));
    const commit = timeMs(() => st.commit(st.lastCommitInfo().height + 1n));
    loadT.push(load);
    commitT.push(commit);
    total.push(load + commit);
    if (st.getStore(to).get(key(n - 1)) === undefined) console.log('   WARNING: renamed store lost its keys');
    await st.close();
  }
  row(`rename: loadLatestWithUpgrades (median of ${renameRounds})`, ms(median(loadT)));
  row('rename: commit of the upgrade block', ms(median(commitT)));
  row('RENAME TOTAL (load + commit), median', ms(median(total)), `max ${ms(Math.max(...total))}`);
  row('(open + mount before it, not counted)', ms(median(openT)));

  // copying rename: add a new store, copy every key from the old one (read through a snapshot), delete the old
  const copyT: number[] = [];
  let cur = `s${renameRounds}`;
  for (let r = 0; r < copyRounds; r++) {
    const to = `c${r}`;
    const st = CommitMultiStore.open(path);
    st.mount([to]);
    copyT.push(
      timeMs(() => {
        st.loadLatestWithUpgrades({ added: [to], deleted: [cur] });
        const snap = st.snapshot();
        const dst = st.getStore(to);
        for (const e of snap.getStore(cur).iterator()) dst.set(e.key, e.value);
        snap.release();
        st.commit(st.lastCommitInfo().height + 1n);
      }),
    );
    if (st.getStore(to).get(key(n - 1)) === undefined) console.log('   WARNING: copied store lost its keys');
    await st.close();
    cur = to;
  }
  row(`copying rename (${copyRounds === 1 ? '1 run' : `median of ${copyRounds}`})`, ms(median(copyT)));
  row('ratio copying / O(1) rename', `${(median(copyT) / median(total)).toFixed(0)}x`);
  cleanup();
}
