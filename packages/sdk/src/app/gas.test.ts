// Gas meters and the gas-metered store: the exact amounts the Cosmos SDK charges, whatever the sums' size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CacheKVStore } from '../store/index.ts';
import { BasicGasMeter, GasKVStore, InfiniteGasMeter } from './gas.ts';

const empty = { get: () => undefined, has: () => false, iterator: () => [][Symbol.iterator](), reverseIterator: () => [][Symbol.iterator]() };

test('the unlimited meter sums exactly across 2^53 and refunds exactly', () => {
  const m = new InfiniteGasMeter();
  const big = 2n ** 53n - 5n;
  m.consume(big, 'a');
  for (let i = 0; i < 10; i++) m.consume(3n, 'b'); // crosses 2^53: a Number sum would round
  assert.equal(m.consumed(), big + 30n);
  m.consume(2n ** 64n, 'huge');
  assert.equal(m.consumed(), big + 30n + 2n ** 64n);
  m.refund(2n ** 64n);
  assert.equal(m.consumed(), big + 30n);
  m.refund(2n ** 70n);
  assert.equal(m.consumed(), 0n);
});

test('the limited meter: exact sums across 2^53, out of gas at the exact charge with the exact numbers, overflow past 2^64-1', () => {
  const limit = 2n ** 53n + 100n;
  const m = new BasicGasMeter(limit);
  m.consume(2n ** 53n - 5n, 'a');
  for (let i = 0; i < 30; i++) m.consume(3n, 'b'); // crosses 2^53: a Number sum would round
  assert.equal(m.consumed(), 2n ** 53n + 85n);
  m.consume(15n, 'c'); // exactly at the limit: not out of gas
  assert.throws(() => m.consume(1n, 'ReadFlat'), /^CodedError: out of gas in location: ReadFlat; gasWanted: 9007199254741092, gasUsed: 9007199254741093/);
  assert.equal(m.consumed(), limit + 1n, 'the failing charge is counted, as in the SDK');
  m.refund(limit);
  assert.equal(m.consumed(), 1n);

  const small = new BasicGasMeter(1000n);
  small.consume(999n, 'a');
  assert.throws(() => small.consume(2n, 'WritePerByte'), /out of gas in location: WritePerByte; gasWanted: 1000, gasUsed: 1001/);
  const full = new BasicGasMeter(2n ** 64n - 1n);
  full.consume(2n ** 64n - 10n, 'a');
  assert.throws(() => full.consume(20n, 'b'), /gas overflow in b/);
  assert.equal(full.consumed(), 2n ** 64n - 10n, 'an overflowing charge is not counted');
});

test("the gas-metered store charges the SDK's KV costs per access", () => {
  const m = new InfiniteGasMeter();
  const s = new GasKVStore(new CacheKVStore(empty), m);
  const key = new Uint8Array(20);
  const value = new Uint8Array(32);
  s.set(key, value);
  assert.equal(m.consumed(), 2000n + 30n * 20n + 30n * 32n, 'WriteFlat + WritePerByte × (key + value)');
  s.get(key);
  assert.equal(m.consumed(), 3560n + 1000n + 3n * 20n + 3n * 32n, 'ReadFlat + ReadPerByte × (key + value)');
  for (const e of s.iterator()) assert.equal(e.key.length, 20);
  assert.equal(m.consumed(), 4716n + 30n + 3n * 52n, 'IterNextFlat + ReadPerByte × entry');
  // a limited meter names where it ran out, as the SDK does
  const tight = new GasKVStore(new CacheKVStore(empty), new BasicGasMeter(2100n));
  assert.throws(() => tight.set(key, value), /out of gas in location: WritePerByte; gasWanted: 2100, gasUsed: 2600/);
});

test('a metered iterator stops with out-of-gas at the entry that exceeds the limit and closes its source', () => {
  let closed = 0;
  const entries = [1, 2, 3].map((i) => ({ key: Uint8Array.of(i), value: new Uint8Array(9) }));
  const source = {
    ...empty,
    iterator: () => {
      const it = entries[Symbol.iterator]();
      return {
        next: () => it.next(),
        return: (): IteratorResult<never> => (closed++, { done: true, value: undefined }),
        [Symbol.iterator]() {
          return this;
        },
      };
    },
  };
  // each entry: IterNextFlat 30 + ValuePerByte 3 × 10 = 60 gas
  const s = new GasKVStore(new CacheKVStore(source), new BasicGasMeter(150n));
  const seen: number[] = [];
  assert.throws(() => {
    for (const e of s.iterator()) seen.push(e.key[0]);
  }, /out of gas in location: IterNextFlat; gasWanted: 150, gasUsed: 150|out of gas in location: ValuePerByte; gasWanted: 150, gasUsed: 180/);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(closed, 1, 'the source is closed');
  // a consumer that stops early closes it too
  const ok = new GasKVStore(new CacheKVStore(source), new InfiniteGasMeter());
  for (const e of ok.iterator()) if (e.key[0] === 1) break;
  assert.equal(closed, 2);
});

test('an unlimited meter (summed charges) and a limited one (charge by charge) count the same gas for the same accesses', () => {
  const run = (m: InfiniteGasMeter | BasicGasMeter): bigint => {
    const s = new GasKVStore(new CacheKVStore(empty), m);
    for (let i = 1; i <= 50; i++) s.set(new Uint8Array(i), new Uint8Array(i * 7));
    for (let i = 1; i <= 60; i++) s.get(new Uint8Array(i)); // the last ten miss: no value bytes charged
    for (const e of s.iterator()) assert.ok(e.key.length > 0);
    for (const e of s.reverseIterator()) assert.ok(e.key.length > 0);
    s.has(new Uint8Array(3));
    s.delete(new Uint8Array(4));
    return m.consumed();
  };
  const unlimited = run(new InfiniteGasMeter());
  assert.equal(unlimited, run(new BasicGasMeter(10n ** 12n)));
  assert.ok(unlimited > 0n);
});
