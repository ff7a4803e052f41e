import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CommitMultiStore, ScratchMultiStore, toHex, u64be, upgradedView, utf8, wouldCommit, type KVStore, type StoreUpgrades } from './index.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const k = (i: number): Uint8Array => utf8(`k${String(i).padStart(6, '0')}`);
const v = (i: number, gen = 0): Uint8Array => u64be(BigInt(i * 1000 + gen));

/** The block's writes: dense in "a" (a scan), sparse in "e" (the scan gives up), small in the renamed store. */
function writes(get: (name: string) => KVStore): void {
  const a = get('a');
  for (let i = 0; i < 5000; i += 3) a.set(k(i), i % 2 === 0 ? v(i, 1) : v(i)); // changed, or the same value again
  for (let i = 0; i < 5; i++) a.delete(k(i * 7 + 1)); // existing keys (k15 was set to its own value first: the delete is its last change)
  for (let i = 0; i < 10; i++) a.delete(utf8(`zz${i}`)); // absent keys
  for (let i = 0; i < 20; i++) a.set(utf8(`new${i}`), v(i));
  a.set(utf8('k000010x'), v(1)); // a new key amid the scanned ones
  const e = get('e');
  for (let i = 0; i < 1100; i++) e.set(k(i * 45), v(i * 45, 2));
  get('b2').set(k(1), v(1, 5));
  get('d').set(k(0), v(0));
}

test('wouldCommit: per-store counts of a block over store upgrades, and the app hash the commit then makes', async () => {
  const path = mkdtempSync(join(tmpdir(), 'chaind-would-'));
  dirs.push(path);
  let ms = CommitMultiStore.open(path);
  ms.mount(['a', 'b', 'c', 'e']);
  ms.loadLatest();
  for (let i = 0; i < 5000; i++) ms.getStore('a').set(k(i), v(i));
  for (let i = 0; i < 10; i++) ms.getStore('b').set(k(i), v(i));
  for (let i = 0; i < 3; i++) ms.getStore('c').set(k(i), v(i));
  for (let i = 0; i < 50_000; i++) ms.getStore('e').set(k(i), v(i));
  ms.commit(1n);
  const u: StoreUpgrades = { renamed: [{ oldKey: 'b', newKey: 'b2' }], deleted: ['c'], added: ['d'] };

  const snap = ms.snapshot();
  const scratch = new ScratchMultiStore(upgradedView(snap, u));
  writes((n) => scratch.getStore(n));
  const w = wouldCommit(snap, u, scratch);
  snap.release();
  await ms.close();

  const row = (name: string): string => {
    const d = w.stores.find((s) => s.name === name);
    return d === undefined
      ? 'none'
      : `${d.layout}${d.renamedFrom ? `<-${d.renamedFrom}` : ''} +${d.keysAdded} ~${d.keysChanged} -${d.keysDeleted} w${d.bytesWritten} d${d.bytesDeleted} n${d.netBytes}`;
  };
  // a: 1667 sets of which 834 (even i) change a value; 5 deletes; 20 keys of 4-5 bytes and one of 8 added with 8-byte values
  assert.equal(row('a'), `kept +21 ~834 -5 w${834 * 8 + 10 * (4 + 8) + 10 * (5 + 8) + 16} d${5 * 15} n${10 * 12 + 10 * 13 + 16 - 5 * 15}`);
  assert.equal(row('e'), `kept +0 ~1100 -0 w${1100 * 8} d0 n0`);
  assert.equal(row('b2'), `kept<-b +0 ~1 -0 w8 d0 n0`);
  assert.equal(row('c'), `deleted +0 ~0 -3 w0 d${3 * 15} n${-3 * 15}`);
  assert.equal(row('d'), `added +1 ~0 -0 w15 d0 n15`);
  assert.deepEqual(
    w.stores.map((s) => s.name),
    ['a', 'b2', 'c', 'd', 'e'],
  );

  // the same block for real: the loader's store upgrades, the writes, the commit
  ms = CommitMultiStore.open(path);
  ms.mount(['a', 'b2', 'd', 'e']);
  ms.loadLatestWithUpgrades(u);
  writes((n) => ms.getStore(n));
  const real = ms.commit(2n);
  await ms.close();
  assert.equal(toHex(w.appHash), toHex(real.appHash));
});

test('wouldCommit: no writes over an unchanged layout keep the last app hash, as an empty block does', async () => {
  const path = mkdtempSync(join(tmpdir(), 'chaind-would-'));
  dirs.push(path);
  const ms = CommitMultiStore.open(path);
  ms.mount(['a']);
  ms.loadLatest();
  ms.getStore('a').set(k(1), v(1));
  const c = ms.commit(1n);
  const snap = ms.snapshot();
  const scratch = new ScratchMultiStore(snap);
  scratch.getStore('a').get(k(1));
  const w = wouldCommit(snap, {}, scratch);
  snap.release();
  assert.deepEqual(w.stores, []);
  assert.equal(toHex(w.appHash), toHex(c.appHash));
  assert.equal(toHex(ms.commit(2n).appHash), toHex(c.appHash));
  await ms.close();
});
