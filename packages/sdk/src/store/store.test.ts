import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { open } from 'lmdb';
import {
  CacheKVStore,
  CommitMultiStore,
  nextStoreHash,
  upgradeStoreLoader,
  storeUpgradesFromJSON,
  toHex,
  utf8,
  InterBlockCache,
  MAX_KEY_BYTES,
  type Entry,
  type ReadKVStore,
} from './index.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'chaind-store-'));
  dirs.push(d);
  return d;
}
function openStore(path: string, mounted: string[], upgrades?: Parameters<CommitMultiStore['loadLatestWithUpgrades']>[0]): CommitMultiStore {
  const ms = CommitMultiStore.open(path);
  ms.mount(mounted);
  if (upgrades) ms.loadLatestWithUpgrades(upgrades);
  else ms.loadLatest();
  return ms;
}
const b = (s: string): Uint8Array => utf8(s);
const s = (u: Uint8Array | undefined): string | undefined => (u === undefined ? undefined : Buffer.from(u).toString());
const keys = (it: Iterable<Entry>): string[] => [...it].map((e) => `${Buffer.from(e.key)}=${Buffer.from(e.value)}`);

describe('write sets and branches', () => {
  test('reads see writes through nested branches; written branches reach the block, dropped ones leave nothing', async () => {
    const ms = openStore(tmp(), ['bank']);
    ms.getStore('bank').set(b('a'), b('1'));
    const tx = ms.branch();
    const inner = tx.branch();
    inner.getStore('bank').set(b('b'), b('2'));
    inner.getStore('bank').delete(b('a'));
    assert.equal(s(inner.getStore('bank').get(b('b'))), '2');
    assert.equal(inner.getStore('bank').get(b('a')), undefined);
    assert.equal(s(tx.getStore('bank').get(b('a'))), '1', 'parent unchanged before write');
    inner.write();
    assert.equal(tx.getStore('bank').get(b('a')), undefined);
    assert.equal(s(tx.getStore('bank').get(b('b'))), '2');
    assert.equal(ms.getStore('bank').get(b('b')), undefined, 'block unchanged before the tx branch is written');

    const dropped = ms.branch();
    dropped.getStore('bank').set(b('zzz'), b('x'));
    // never written: dropped
    tx.write();
    ms.commit(1n);
    assert.equal(ms.getStore('bank').get(b('a')), undefined);
    assert.equal(s(ms.getStore('bank').get(b('b'))), '2');
    assert.equal(ms.getStore('bank').get(b('zzz')), undefined);
    await ms.close();
  });

  test('discard drops the whole block write set', async () => {
    const ms = openStore(tmp(), ['bank']);
    ms.getStore('bank').set(b('a'), b('1'));
    ms.commit(1n);
    ms.getStore('bank').set(b('a'), b('2'));
    ms.getStore('bank').set(b('c'), b('3'));
    ms.discard();
    assert.equal(s(ms.getStore('bank').get(b('a'))), '1');
    assert.equal(ms.getStore('bank').get(b('c')), undefined);
    await ms.close();
  });

  test('a caller reusing its key and value buffers after set does not change what was written', async () => {
    const ms = openStore(tmp(), ['bank']);
    const k = Buffer.from('key1');
    const v = Buffer.from('val1');
    ms.getStore('bank').set(k, v);
    k.write('key2');
    v.write('XXXX');
    assert.equal(s(ms.getStore('bank').get(b('key1'))), 'val1');
    assert.deepEqual(keys(ms.getStore('bank').iterator()), ['key1=val1']);
    await ms.close();
  });

  test('a branch reads a key its parent write set does not hold once, and sees any later write under it', () => {
    let reads = 0;
    const base = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    const committed: ReadKVStore = {
      get: (k) => (reads++, base.has(s(k) as string) ? b(base.get(s(k) as string) as string) : undefined),
      has: (k) => (reads++, base.has(s(k) as string)),
      iterator: () => [][Symbol.iterator](),
      reverseIterator: () => [][Symbol.iterator](),
    };
    const block = new CacheKVStore(committed);
    const txWs = new CacheKVStore(block);
    const msgWs = new CacheKVStore(txWs);
    // the fee payer's account: has, then get, then get again
    assert.equal(msgWs.has(b('a')), true);
    assert.equal(s(msgWs.get(b('a'))), '1');
    assert.equal(msgWs.get(b('zz')), undefined);
    assert.equal(msgWs.has(b('zz')), false);
    assert.equal(s(msgWs.get(b('b'))), '2');
    assert.equal(reads, 3, 'each key read from below once');
    // a write anywhere under the branch drops what it read: the tx's write set, then the block's
    txWs.set(b('a'), b('tx'));
    assert.equal(s(msgWs.get(b('a'))), 'tx');
    assert.equal(s(msgWs.get(b('b'))), '2');
    block.set(b('b'), b('block'));
    assert.equal(s(msgWs.get(b('b'))), 'block');
    block.delete(b('a'));
    assert.equal(s(msgWs.get(b('a'))), 'tx', "the tx's own write still wins");
    txWs.reset();
    assert.equal(msgWs.get(b('a')), undefined, 'deleted in the block');
    // a key buffer reused by the caller after the read does not fool it
    const k = Buffer.from('b');
    assert.equal(s(msgWs.get(k)), 'block');
    k.write('q');
    assert.equal(msgWs.get(k), undefined);
  });

  test('bad keys and values are refused with a clear error', async () => {
    const ms = openStore(tmp(), ['bank']);
    assert.throws(() => ms.getStore('bank').set(new Uint8Array(0), b('x')), /key must not be empty/);
    assert.throws(() => ms.getStore('bank').set(new Uint8Array(5000), b('x')), /exceeds the limit/);
    assert.throws(() => ms.getStore('nope'), /store "nope" does not exist/);
    await ms.close();
  });
});

describe('a write set filled in key order, then out of order (the two layouts of CacheKVStore)', () => {
  test('reads, iteration in both directions over ranges, layer writes and commits agree with a plain model at every step', async () => {
    // a deterministic pseudo-random sequence, so a failure replays
    let seed = 12345;
    const rnd = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const k = (i: number): Uint8Array => Uint8Array.of(i >> 8, i & 0xff, 0xff - (i & 0x7f));
    const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
    const c = CommitMultiStore.open(tmp());
    c.mount(['s']);
    c.loadLatest();
    // committed state under the write set: every 5th key
    const model = new Map<string, string>();
    for (let i = 0; i < 400; i += 5) {
      c.getStore('s').set(k(i), utf8(`c${i}`));
      model.set(hex(k(i)), `c${i}`);
    }
    c.commit(1n);
    const ws = c.getStore('s');
    const check = (phase: string): void => {
      const sorted = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      const got = [...ws.iterator()].map((e) => [hex(e.key), Buffer.from(e.value).toString()]);
      assert.deepEqual(got, sorted, `${phase}: forward iteration`);
      assert.deepEqual(
        [...ws.reverseIterator()].map((e) => hex(e.key)),
        sorted.map(([h]) => h).reverse(),
        `${phase}: reverse`,
      );
      const [lo, hi] = [k(100), k(250)];
      assert.deepEqual(
        [...ws.iterator(lo, hi)].map((e) => hex(e.key)),
        sorted.map(([h]) => h).filter((h) => h >= hex(lo) && h < hex(hi)),
        `${phase}: range`,
      );
      for (let i = 0; i < 420; i++) {
        const want = model.get(hex(k(i)));
        assert.equal(ws.has(k(i)), want !== undefined, `${phase}: has ${i}`);
        assert.equal(ws.get(k(i)) === undefined ? undefined : Buffer.from(ws.get(k(i)) as Uint8Array).toString(), want, `${phase}: get ${i}`);
      }
    };
    // 1. ascending: new keys above the last, overwrites of earlier ones, deletes of committed ones
    for (let i = 1; i < 300; i += 2) {
      ws.set(k(i), utf8(`a${i}`));
      model.set(hex(k(i)), `a${i}`);
      if (i % 7 === 0) {
        // first an earlier key of this write set (the run stays sorted), later any key (a new one breaks it)
        const j = i < 150 ? 1 + 2 * rnd((i - 1) / 2) : rnd(i);
        ws.set(k(j), utf8(`o${j}`));
        model.set(hex(k(j)), `o${j}`);
      }
      if (i % 11 === 0) {
        ws.delete(k(i - 1));
        model.delete(hex(k(i - 1)));
      }
      if (i % 50 === 1) check(`ascending, at ${i}`);
    }
    check('after the ascending phase');
    // 2. a transaction branch in random order, written into the block's write set
    const branch = c.branch();
    for (let n = 0; n < 300; n++) {
      const i = rnd(420);
      if (rnd(4) === 0) {
        branch.getStore('s').delete(k(i));
        model.delete(hex(k(i)));
      } else {
        branch.getStore('s').set(k(i), utf8(`r${i}`));
        model.set(hex(k(i)), `r${i}`);
      }
    }
    branch.write();
    check('after the random branch');
    // 3. the same state committed and read back from LMDB
    c.commit(2n);
    check('after commit');
    await c.close();
  });
});

describe('iterators', () => {
  test('merge write set over committed state, with deletes, forward and reverse, over ranges', async () => {
    const ms = openStore(tmp(), ['s']);
    const st = ms.getStore('s');
    for (const k of ['a', 'c', 'e', 'g']) st.set(b(k), b(k.toUpperCase()));
    ms.commit(1n);
    const block = ms.getStore('s');
    block.set(b('b'), b('B'));
    block.delete(b('c'));
    block.set(b('e'), b('E2'));
    const tx = ms.branch().getStore('s');
    tx.set(b('f'), b('F'));
    tx.delete(b('a'));
    tx.delete(b('zz')); // deleting an absent key hides nothing

    assert.deepEqual(keys(tx.iterator()), ['b=B', 'e=E2', 'f=F', 'g=G']);
    assert.deepEqual(keys(tx.reverseIterator()), ['g=G', 'f=F', 'e=E2', 'b=B']);
    assert.deepEqual(keys(tx.iterator(b('c'), b('g'))), ['e=E2', 'f=F']);
    assert.deepEqual(keys(tx.reverseIterator(b('b'), b('f'))), ['e=E2', 'b=B']);
    assert.deepEqual(keys(tx.iterator(b('e'))), ['e=E2', 'f=F', 'g=G']);
    assert.deepEqual(keys(tx.reverseIterator(undefined, b('e'))), ['b=B']);
    assert.deepEqual(keys(block.iterator()), ['a=A', 'b=B', 'e=E2', 'g=G']);
    await ms.close();
  });

  test("keys and bounds longer than any key can be (a query's input: a plan name, a denom, a pagination key): reads find nothing, ranges give what they cover", async () => {
    const ms = openStore(tmp(), ['s']);
    const longest = 'm'.repeat(MAX_KEY_BYTES);
    for (const k of ['a', longest, 'z']) ms.getStore('s').set(b(k), b('v'));
    ms.commit(1n);
    const names = (it: Iterable<Entry>): string[] => [...it].map((e) => (e.key.byteLength > 8 ? `m×${e.key.byteLength}` : Buffer.from(e.key).toString()));
    // committed (LMDB) and through a block's write set over it
    for (const st of [ms.snapshot().getStore('s'), ms.getStore('s')]) {
      for (const n of [MAX_KEY_BYTES + 1, 1979, 4100, 5000]) {
        assert.equal(st.get(b('m'.repeat(n))), undefined, `a ${n}-byte key`);
        assert.equal(st.has(b('m'.repeat(n))), false);
      }
      assert.equal(s(st.get(b(longest))), 'v');
      const past = b('m'.repeat(5000));
      assert.deepEqual(names(st.iterator(past)), ['z']);
      assert.deepEqual(names(st.iterator(b(`${longest}a`))), ['z']);
      assert.deepEqual(names(st.iterator(undefined, past)), ['a', `m×${MAX_KEY_BYTES}`]);
      assert.deepEqual(names(st.iterator(b('a'.repeat(5000)), b('z'.repeat(5000)))), [`m×${MAX_KEY_BYTES}`, 'z']);
      assert.deepEqual(names(st.reverseIterator(past)), ['z']);
      assert.deepEqual(names(st.reverseIterator(undefined, past)), [`m×${MAX_KEY_BYTES}`, 'a']);
      assert.deepEqual(names(st.reverseIterator(b('a'.repeat(5000)), b('z'.repeat(5000)))), ['z', `m×${MAX_KEY_BYTES}`]);
    }
    await ms.close();
  });

  test('byte order, not string order: 0xff sorts after 0x7f and prefixes stay separate between stores', async () => {
    const ms = openStore(tmp(), ['x', 'y']);
    const x = ms.getStore('x');
    x.set(Uint8Array.from([0xff]), b('hi'));
    x.set(Uint8Array.from([0x7f]), b('lo'));
    x.set(Uint8Array.from([0x00, 0x01]), b('zero'));
    ms.getStore('y').set(Uint8Array.from([0x01]), b('other'));
    ms.commit(1n);
    ms.getStore('x').set(Uint8Array.from([0x80]), b('mid'));
    const order = [...ms.getStore('x').iterator()].map((e) => toHex(e.key));
    assert.deepEqual(order, ['0001', '7f', '80', 'ff']);
    assert.deepEqual(
      [...ms.getStore('x').reverseIterator()].map((e) => toHex(e.key)),
      ['ff', '80', '7f', '0001'],
    );
    assert.deepEqual(
      [...ms.getStore('y').iterator()].map((e) => toHex(e.key)),
      ['01'],
    );
    await ms.close();
  });
});

describe('commit and app hash', () => {
  test('a store hash is the documented encoding of its changes, whichever layout the write set took', () => {
    const empty = { get: () => undefined, has: () => false, iterator: () => [][Symbol.iterator](), reverseIterator: () => [][Symbol.iterator]() };
    const prev = createHash('sha256').update('prev').digest();
    // final changes, in byte order of key: values of several lengths (one empty) and deletes
    const final: [string, string | null][] = Array.from({ length: 40 }, (_, i) => [
      `key-${String(i).padStart(3, '0')}`,
      i % 7 === 3 ? null : 'v'.repeat(i % 5),
    ]);
    const u32 = (n: number): Buffer => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
    const expected = createHash('sha256')
      .update(prev)
      .update(
        createHash('sha256')
          .update(
            Buffer.concat([
              u32(final.length),
              ...final.map(([k, v]) => Buffer.concat([u32(k.length), Buffer.from([v === null ? 0 : 1]), u32(v?.length ?? 0)])),
            ]),
          )
          .update(Buffer.concat(final.map(([k]) => Buffer.from(k))))
          .update(Buffer.concat(final.map(([, v]) => Buffer.from(v ?? ''))))
          .digest(),
      )
      .digest();
    const apply = (ws: CacheKVStore, k: string, v: string | null): void => (v === null ? ws.delete(b(k)) : ws.set(b(k), b(v)));
    // in key order, each key once: the arenas are hashed as they are
    const inOrder = new CacheKVStore(empty);
    for (const [k, v] of final) apply(inOrder, k, v);
    // in key order, but values replaced on the way: the arenas hold stale bytes
    const replaced = new CacheKVStore(empty);
    for (const [k, v] of final) {
      replaced.set(b(k), b('stale value'));
      apply(replaced, k, v);
    }
    // in reverse order: the indexed layout
    const reversed = new CacheKVStore(empty);
    for (const [k, v] of [...final].reverse()) apply(reversed, k, v);
    for (const ws of [inOrder, replaced, reversed]) assert.equal(toHex(nextStoreHash(prev, ws)), toHex(expected));
  });

  test('height and app hash survive a reopen; the same writes in a different order give the same hash', async () => {
    const p1 = tmp();
    const p2 = tmp();
    const a = openStore(p1, ['bank', 'gov']);
    const c = openStore(p2, ['gov', 'bank']);
    // a: two tx branches in one order; c: the other order, with an overwritten intermediate value
    const t1 = a.branch();
    t1.getStore('bank').set(b('k1'), b('v1'));
    t1.write();
    const t2 = a.branch();
    t2.getStore('gov').set(b('k2'), b('v2'));
    t2.getStore('bank').delete(b('k3'));
    t2.write();
    const u2 = c.branch();
    u2.getStore('bank').delete(b('k3'));
    u2.getStore('gov').set(b('k2'), b('tmp'));
    u2.getStore('gov').set(b('k2'), b('v2'));
    u2.write();
    const u1 = c.branch();
    u1.getStore('bank').set(b('k1'), b('v1'));
    u1.write();
    const ha = a.workingAppHash();
    assert.equal(toHex(ha), toHex(c.workingAppHash()));
    assert.equal(toHex(a.commit(7n).appHash), toHex(ha));
    c.commit(7n);
    await a.close();
    const re = openStore(p1, ['bank', 'gov']);
    assert.equal(re.lastCommitInfo().height, 7n);
    assert.equal(toHex(re.lastCommitInfo().appHash), toHex(ha));
    assert.equal(s(re.getStore('bank').get(b('k1'))), 'v1');
    // a different write gives a different hash
    re.getStore('bank').set(b('k1'), b('v1'));
    const same = re.workingAppHash();
    c.getStore('bank').set(b('k1'), b('v1x'));
    assert.notEqual(toHex(same), toHex(c.workingAppHash()));
    assert.throws(() => re.commit(7n), /cannot commit height 7/);
    await re.close();
    await c.close();
  });

  test('an empty block keeps the app hash; a write or a store upgrade alone changes it', async () => {
    const p = tmp();
    const ms = openStore(p, ['a']);
    ms.getStore('a').set(b('k'), b('v'));
    const h1 = toHex(ms.commit(1n).appHash);
    assert.equal(toHex(ms.commit(2n).appHash), h1, 'no writes: same app hash');
    ms.getStore('a').delete(b('absent'));
    const h3 = toHex(ms.commit(3n).appHash);
    assert.notEqual(h3, h1);
    await ms.close();
    const up = openStore(p, ['a', 'fresh'], { added: ['fresh'] });
    assert.notEqual(toHex(up.commit(4n).appHash), h3, 'an added store alone changes the app hash');
    await up.close();
  });

  test('a new database starts at height 0 with an empty app hash', async () => {
    const ms = openStore(tmp(), ['a']);
    assert.equal(ms.lastCommitInfo().height, 0n);
    assert.equal(ms.lastCommitInfo().appHash.length, 0);
    await ms.close();
  });

  test('a snapshot keeps its view while later blocks commit', async () => {
    const ms = openStore(tmp(), ['s']);
    ms.getStore('s').set(b('a'), b('1'));
    ms.commit(1n);
    const snap = ms.snapshot();
    ms.getStore('s').set(b('a'), b('2'));
    ms.getStore('s').set(b('b'), b('3'));
    ms.commit(2n);
    assert.equal(snap.height, 1n);
    assert.equal(s(snap.getStore('s').get(b('a'))), '1');
    assert.deepEqual(keys(snap.getStore('s').iterator()), ['a=1']);
    snap.release();
    const now = ms.snapshot();
    assert.equal(now.height, 2n);
    assert.deepEqual(keys(now.getStore('s').iterator()), ['a=2', 'b=3']);
    now.release();
    await ms.close();
  });
});

describe('the inter-block cache (committed values kept from block to block)', () => {
  /** A store over `values` counting the point reads that reach it. */
  function counted(values: Record<string, string>): { store: ReadKVStore; reads: () => number } {
    let n = 0;
    const get = (k: Uint8Array): Uint8Array | undefined => {
      n++;
      const v = values[s(k) as string];
      return v === undefined ? undefined : b(v);
    };
    const none = (): IterableIterator<Entry> => [][Symbol.iterator]();
    return { store: { get, has: (k) => get(k) !== undefined, iterator: none, reverseIterator: none }, reads: () => n };
  }

  /** `key` of `store` read through a new snapshot, released after. */
  function readNow(ms: CommitMultiStore, store: string, key: string): string | undefined {
    const snap = ms.snapshot();
    try {
      return s(snap.getStore(store).get(b(key)));
    } finally {
      snap.release();
    }
  }
  test('a snapshot whose store is first read after a later commit reads its own state, not the cache of the newer one', async () => {
    const ms = openStore(tmp(), ['s']);
    ms.getStore('s').set(b('a'), b('1'));
    ms.commit(1n);
    const snap = ms.snapshot();
    ms.getStore('s').set(b('a'), b('2'));
    ms.commit(2n);
    // a newer reader fills the cache with height 2's value
    assert.equal(readNow(ms, 's', 'a'), '2');
    assert.equal(s(snap.getStore('s').get(b('a'))), '1');
    snap.release();
    await ms.close();
  });

  test('a key read again, present or absent, is not read from its store again, in later blocks too, until the bound clears the cache', () => {
    const cache = new InterBlockCache({ maxEntries: 3 });
    const c = counted({ a: '1' });
    const st = cache.view(1, c.store);
    assert.equal(s(st.get(b('a'))), '1');
    assert.equal(st.has(b('missing')), false);
    assert.equal(c.reads(), 2);
    assert.equal(s(st.get(b('a'))), '1');
    assert.equal(st.has(b('a')), true);
    assert.equal(st.get(b('missing')), undefined);
    assert.equal(c.reads(), 2);
    cache.advance(); // a block committed that changed neither key
    const next = cache.view(1, c.store);
    assert.equal(s(next.get(b('a'))), '1');
    assert.equal(next.get(b('missing')), undefined);
    assert.equal(c.reads(), 2, 'the next block reads them from the cache');
    assert.equal(cache.view(2, c.store).get(b('a'))?.length, 1);
    assert.equal(c.reads(), 3, 'another store id has a cache of its own');
    next.get(b('x'));
    next.get(b('y')); // a fourth key: the cache starts over with it
    assert.equal(c.reads(), 5);
    next.get(b('a'));
    assert.equal(c.reads(), 6);
    // a view made before the last commit reads its own store, not the cache
    assert.equal(s(st.get(b('a'))), '1');
    assert.equal(c.reads(), 7);
  });

  test('the byte bound: a store over it starts over, a value larger than it is never kept', () => {
    const cache = new InterBlockCache({ maxBytes: 10 });
    const c = counted({ a: '12345', b: '1234', big: 'x'.repeat(20) });
    const st = cache.view(1, c.store);
    st.get(b('a')); // 1 + 5 bytes
    st.get(b('a'));
    assert.equal(c.reads(), 1);
    st.get(b('b')); // 1 + 4 more would make 11: the cache starts over with b
    st.get(b('b'));
    assert.equal(c.reads(), 2);
    st.get(b('a'));
    assert.equal(c.reads(), 3, 'a was dropped when b came in');
    assert.equal(s(st.get(b('big')))?.length, 20);
    assert.equal(s(st.get(b('big')))?.length, 20);
    assert.equal(c.reads(), 5, 'big is read from the store each time');
    st.get(b('a'));
    assert.equal(c.reads(), 5, 'and did not push a out');
  });

  test('a block that changed more keys than the cache holds (a migration) empties it rather than visit each change', () => {
    const cache = new InterBlockCache({ maxEntries: 4 });
    const c = counted({ a: '1', b: '2' });
    const st = cache.view(1, c.store);
    st.get(b('a'));
    st.get(b('b'));
    const changes = (n: number): CacheKVStore => {
      const ws = new CacheKVStore(c.store);
      for (let i = 0; i < n; i++) ws.set(b(`m${i}`), b('x'));
      return ws;
    };
    cache.committed(1, changes(4));
    cache.advance();
    cache.view(1, c.store).get(b('a'));
    assert.equal(c.reads(), 2, 'four changes: the cached keys stay');
    cache.committed(1, changes(5));
    cache.advance();
    const after = cache.view(1, c.store);
    assert.equal(s(after.get(b('a'))), '1');
    assert.equal(s(after.get(b('b'))), '2');
    assert.equal(c.reads(), 4, 'five changes: both are read again');
  });

  test('commit writes through: the next block and new snapshots read what it set and deleted, including keys cached as absent', async () => {
    const dir = tmp();
    const ms = openStore(dir, ['s', 't']);
    ms.getStore('s').set(b('a'), b('1'));
    ms.getStore('s').set(b('b'), b('2'));
    ms.getStore('t').set(b('a'), b('t1'));
    ms.commit(1n);
    // cached by a snapshot's reads (CheckTx, queries)
    const snap = ms.snapshot();
    for (const k of ['a', 'b', 'c']) assert.equal(s(snap.getStore('s').get(b(k))), { a: '1', b: '2', c: undefined }[k]);
    assert.equal(s(snap.getStore('t').get(b('a'))), 't1');
    ms.getStore('s').set(b('a'), b('10'));
    ms.getStore('s').delete(b('b'));
    ms.getStore('s').set(b('c'), b('3'));
    ms.commit(2n);
    const want = { a: '10', b: undefined, c: '3' };
    const after2 = ms.snapshot();
    for (const k of ['a', 'b', 'c']) {
      assert.equal(s(after2.getStore('s').get(b(k))), want[k as keyof typeof want], `snapshot at 2: ${k}`);
      assert.equal(s(ms.getStore('s').get(b(k))), want[k as keyof typeof want], `block 3: ${k}`);
    }
    assert.equal(s(after2.getStore('t').get(b('a'))), 't1', 'a key of the same name in another store is its own');
    // the snapshot taken at height 1 still answers for height 1
    for (const k of ['a', 'b', 'c']) assert.equal(s(snap.getStore('s').get(b(k))), { a: '1', b: '2', c: undefined }[k], `snapshot at 1: ${k}`);
    ms.getStore('s').set(b('a'), b('99'));
    ms.commit(3n);
    assert.equal(readNow(ms, 's', 'a'), '99', 'and again at the next commit');
    snap.release();
    after2.release();
    await ms.close();
    // a restart starts with an empty cache and reads the same
    const again = openStore(dir, ['s', 't']);
    assert.equal(readNow(again, 's', 'a'), '99');
    await again.close();
  });

  test('a snapshot answers as at its height while later blocks change and delete its keys, over a cache bound it overflows', async () => {
    const dir = tmp();
    const ms = CommitMultiStore.open(dir, { cache: { maxEntries: 16 } });
    ms.mount(['s', 't']);
    ms.loadLatest();
    for (let i = 0; i < 50; i++) ms.getStore('s').set(b(`k${i}`), b(`v${i}`));
    ms.getStore('t').set(b('k1'), b('other store'));
    ms.commit(1n);
    const at1 = ms.snapshot();
    for (let i = 0; i < 60; i++) at1.getStore('s').get(b(`k${i}`)); // cached while height 1 is the latest
    for (let i = 0; i < 50; i += 2) ms.getStore('s').delete(b(`k${i}`));
    ms.getStore('s').set(b('k1'), b('changed'));
    ms.getStore('s').set(b('new'), b('x'));
    ms.commit(2n);
    const at2 = ms.snapshot();
    assert.equal(at1.height, 1n);
    // every key twice, in an order that overflows the 16-entry bound several times
    for (const i of [...Array(60).keys(), ...[...Array(60).keys()].reverse()]) {
      const k = b(`k${i}`);
      const was = i < 50 ? `v${i}` : undefined;
      const is = i === 1 ? 'changed' : i < 50 && i % 2 === 1 ? `v${i}` : undefined;
      assert.equal(s(at1.getStore('s').get(k)), was, `at 1: k${i}`);
      assert.equal(at1.getStore('s').has(k), was !== undefined, `at 1: has k${i}`);
      assert.equal(s(at2.getStore('s').get(k)), is, `at 2: k${i}`);
      assert.equal(s(ms.getStore('s').get(k)), is, `block 3: k${i}`);
    }
    assert.equal(s(at1.getStore('s').get(b('new'))), undefined);
    assert.equal(s(at2.getStore('s').get(b('new'))), 'x');
    assert.equal(s(at1.getStore('t').get(b('k1'))), 'other store');
    assert.equal(keys(at1.getStore('s').iterator()).length, 50);
    assert.deepEqual(keys(at1.getStore('s').reverseIterator(b('k3'), b('k31'))), ['k30=v30', 'k3=v3']);
    at1.release();
    at2.release();
    assert.throws(() => at1.getStore('s'), /snapshot already released/);
    await ms.close();
  });

  test('a snapshot of a height another process committed reads LMDB, not what this one cached', async () => {
    const dir = tmp();
    const writer = openStore(dir, ['s']);
    writer.getStore('s').set(b('a'), b('1'));
    writer.commit(1n);
    const reader = openStore(dir, ['s']); // a second opener of the same database, as pre-upgrade is
    const first = reader.snapshot();
    assert.equal(s(first.getStore('s').get(b('a'))), '1');
    first.release();
    writer.getStore('s').set(b('a'), b('2'));
    writer.commit(2n);
    await new Promise((r) => setTimeout(r, 20)); // lmdb-js renews its shared read transaction after the event turn
    const second = reader.snapshot();
    assert.equal(second.height, 2n);
    assert.equal(s(second.getStore('s').get(b('a'))), '2');
    second.release();
    await writer.close();
    await reader.close();
  });

  test('a dropped block changes nothing cached; store upgrades (rename, delete, add) read right after commit', async () => {
    const dir = tmp();
    const ms = openStore(dir, ['bank', 'old']);
    ms.getStore('bank').set(b('k'), b('bank'));
    ms.getStore('old').set(b('k'), b('old'));
    ms.commit(1n);
    assert.equal(s(ms.getStore('bank').get(b('k'))), 'bank');
    ms.getStore('bank').set(b('k'), b('dropped'));
    ms.discard();
    assert.equal(s(ms.getStore('bank').get(b('k'))), 'bank');
    assert.equal(readNow(ms, 'bank', 'k'), 'bank');
    assert.equal(readNow(ms, 'old', 'k'), 'old');
    await ms.close();
    const up = openStore(dir, ['money', 'old'], { renamed: [{ oldKey: 'bank', newKey: 'money' }], deleted: ['old'], added: ['old'] });
    up.commit(2n);
    const snap = up.snapshot();
    assert.equal(s(snap.getStore('money').get(b('k'))), 'bank');
    assert.equal(snap.getStore('old').get(b('k')), undefined, "a store added under a deleted one's name starts empty");
    snap.release();
    await up.close();
  });
});

describe('store upgrades', () => {
  async function seeded(): Promise<string> {
    const p = tmp();
    const ms = openStore(p, ['bank', 'gov', 'old']);
    ms.getStore('bank').set(b('k'), b('bank'));
    ms.getStore('old').set(b('k'), b('old'));
    ms.getStore('old').set(b('k2'), b('old2'));
    ms.commit(1n);
    await ms.close();
    return p;
  }

  test('added, renamed and deleted stores take effect in the upgrade block and commit with it', async () => {
    const p = await seeded();
    const ms = openStore(p, ['bank', 'gov2', 'fresh'], { renamed: [{ oldKey: 'gov', newKey: 'gov2' }], deleted: ['old'], added: ['fresh'] });
    assert.deepEqual(ms.storeNames(), ['bank', 'fresh', 'gov2']);
    assert.deepEqual([...ms.getStore('fresh').iterator()], []);
    ms.getStore('fresh').set(b('f'), b('1'));
    ms.commit(2n);
    await ms.close();
    const re = openStore(p, ['bank', 'gov2', 'fresh']);
    assert.deepEqual(re.storeNames(), ['bank', 'fresh', 'gov2']);
    assert.equal(s(re.getStore('fresh').get(b('f'))), '1');
    await re.close();
    // the deleted store's keys are gone from the database itself
    const env = open({ path: p, maxDbs: 4 });
    const data = env.openDB({ name: 'data', keyEncoding: 'binary', encoding: 'binary' });
    const values = [...data.getRange({})].map((e) => Buffer.from(e.value as Uint8Array).toString());
    assert.ok(!values.includes('old') && !values.includes('old2'), `deleted store keys remain: ${values}`);
    await env.close();
  });

  test('before the upgrade block commits, a snapshot reads the staged stores as that block will: renamed under the new name, added empty', async () => {
    const p = await seeded();
    const v1 = openStore(p, ['bank', 'gov', 'old']);
    v1.getStore('gov').set(b('p'), b('1'));
    v1.commit(2n);
    await v1.close();
    const ms = openStore(p, ['bank', 'gov2', 'fresh'], { renamed: [{ oldKey: 'gov', newKey: 'gov2' }], deleted: ['old'], added: ['fresh'] });
    // the new release's modules read the last committed state by their own store names (ProcessProposal of the upgrade block)
    const snap = ms.snapshot();
    assert.equal(snap.height, 2n);
    assert.equal(s(snap.getStore('gov2').get(b('p'))), '1');
    assert.deepEqual([...snap.getStore('fresh').iterator()], []);
    // what was committed keeps its names: a dry run maps the staged names itself (upgradedView)
    assert.deepEqual(snap.storeNames(), ['bank', 'gov', 'old']);
    assert.equal(s(snap.getStore('old').get(b('k'))), 'old');
    assert.throws(() => snap.getStore('nowhere'), /store "nowhere" does not exist at height 2/);
    snap.release();
    ms.getStore('fresh').set(b('f'), b('1'));
    ms.commit(3n);
    const after3 = ms.snapshot();
    assert.equal(s(after3.getStore('fresh').get(b('f'))), '1');
    assert.equal(s(after3.getStore('gov2').get(b('p'))), '1');
    assert.throws(() => after3.getStore('gov'), /store "gov" does not exist at height 3/);
    after3.release();
    await ms.close();
  });

  test('an upgrade block that is discarded leaves committed state as it was', async () => {
    const p = await seeded();
    const ms = openStore(p, ['bank', 'fresh'], { added: ['fresh'], deleted: ['old'] });
    ms.getStore('fresh').set(b('x'), b('y'));
    ms.discard();
    await ms.close();
    const re = openStore(p, ['bank', 'gov', 'old']);
    assert.deepEqual(re.storeNames(), ['bank', 'gov', 'old']);
    assert.equal(s(re.getStore('old').get(b('k'))), 'old');
    await re.close();
  });

  test('each error names the store', async () => {
    const p = await seeded();
    const cases: [string[], Parameters<CommitMultiStore['loadLatestWithUpgrades']>[0], RegExp][] = [
      [['bank', 'gov', 'old', 'newmod'], {}, /store "newmod" is mounted by the application but does not exist.*add it to StoreUpgrades\.added/],
      [['bank'], { renamed: [{ oldKey: 'missing', newKey: 'x' }] }, /cannot rename store "missing" to "x": store "missing" does not exist/],
      [['bank'], { renamed: [{ oldKey: 'gov', newKey: 'bank' }] }, /cannot rename store "gov" to "bank": store "bank" already exists/],
      [['bank'], { added: ['gov'] }, /cannot add store "gov": it already exists/],
      [['bank'], { deleted: ['nope'] }, /cannot delete store "nope": it does not exist/],
    ];
    for (const [mounted, up, err] of cases) {
      const ms = CommitMultiStore.open(p);
      ms.mount(mounted);
      assert.throws(() => ms.loadLatestWithUpgrades(up), err);
      await ms.close();
    }
    const re = openStore(p, ['bank', 'gov', 'old']);
    assert.equal(re.lastCommitInfo().height, 1n, 'failed loads changed nothing');
    assert.deepEqual(re.storeNames(), ['bank', 'gov', 'old']);
    await re.close();
  });

  test('upgradeStoreLoader applies the upgrades only when the next block is the upgrade height', async () => {
    const p = await seeded(); // last committed height 1
    const up = { added: ['fresh'] };
    for (const h of [1n, 3n]) {
      const ms = CommitMultiStore.open(p);
      ms.mount(['bank']);
      upgradeStoreLoader(h, up)(ms);
      assert.ok(!ms.hasStore('fresh'), `height ${h} must not apply`);
      await ms.close();
    }
    const ms = CommitMultiStore.open(p);
    ms.mount(['bank', 'fresh']);
    upgradeStoreLoader(2n, up)(ms);
    assert.ok(ms.hasStore('fresh'));
    ms.commit(2n);
    await ms.close();
    // restarting after the upgrade block: the same loader loads normally (applying again would fail "already exists")
    const again = CommitMultiStore.open(p);
    again.mount(['bank', 'fresh']);
    upgradeStoreLoader(2n, up)(again);
    assert.deepEqual(again.storeNames(), ['bank', 'fresh', 'gov', 'old']);
    await again.close();
  });

  test('store upgrades JSON in the Cosmos form', () => {
    assert.deepEqual(storeUpgradesFromJSON({ added: ['a'], renamed: [{ old_key: 'b', new_key: 'c' }], deleted: ['d'] }), {
      added: ['a'],
      renamed: [{ oldKey: 'b', newKey: 'c' }],
      deleted: ['d'],
    });
    assert.throws(() => storeUpgradesFromJSON({ renamed: [{ old: 'b' }] }), /old_key/);
    assert.throws(() => storeUpgradesFromJSON([]), /JSON object/);
  });

  test('renaming a 1M-key store is O(1) and its keys are readable under the new name', async () => {
    const p = tmp();
    const ms = openStore(p, ['big']);
    const st = ms.getStore('big');
    const N = 1_000_000;
    const key = (i: number): Uint8Array => {
      const k = Buffer.alloc(4);
      k.writeUInt32BE(i);
      return k;
    };
    for (let i = 0; i < N; i++) st.set(key(i), key(i));
    ms.commit(1n);
    await ms.close();
    const rawPrefixes = async (): Promise<{ count: number; prefixes: string[] }> => {
      const env = open({ path: p, maxDbs: 4 });
      const data = env.openDB({ name: 'data', keyEncoding: 'binary', encoding: 'binary' });
      const prefixes = new Set<string>();
      let count = 0;
      for (const k of data.getKeys({})) {
        prefixes.add(toHex((k as Uint8Array).subarray(0, 2)));
        count++;
      }
      await env.close();
      return { count, prefixes: [...prefixes] };
    };
    const before = await rawPrefixes();
    const re = openStore(p, ['renamed'], { renamed: [{ oldKey: 'big', newKey: 'renamed' }] });
    re.commit(2n);
    // O(1): the rename touched no key: the same N raw keys stay under the same store id
    // (a copying rename would move them to a new prefix). Timing is measured in bench/store-rename.ts.
    const afterRename = await rawPrefixes();
    assert.deepEqual(afterRename, before);
    assert.equal(before.count, N);
    const r = re.getStore('renamed');
    for (const i of [0, 1, 499_999, N - 1]) assert.equal(toHex(r.get(key(i)) as Uint8Array), toHex(key(i)));
    let count = 0;
    for (const _ of r.iterator(key(N - 10))) count++;
    assert.equal(count, 10);
    await re.close();
  });
});
