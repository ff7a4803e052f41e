import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { BlockTimes } from './block-times.ts';

const at = (s: number, nanos = 0): Timestamp => ({ seconds: BigInt(s), nanos });

describe('BlockTimes (header times behind CometBFT)', () => {
  test('recorded times are answered without asking; others asked once and kept; an absence or failure is asked again', async () => {
    const asked: bigint[] = [];
    let fail = false;
    const times = new BlockTimes({
      headerTime: async (h) => {
        asked.push(h);
        if (fail) throw new Error('CometBFT is down');
        return h > 100n ? undefined : at(1_000 + Number(h), 123_456_789);
      },
    });
    times.record(7n, at(5, 1));
    assert.deepEqual(await times.get(7n), at(5, 1));
    assert.deepEqual(asked, []);
    // two lookups of one height at once share the one call
    const [a, b] = await Promise.all([times.get(3n), times.get(3n)]);
    assert.deepEqual([a, b], [at(1_003, 123_456_789), at(1_003, 123_456_789)]);
    assert.deepEqual(await times.get(3n), at(1_003, 123_456_789));
    assert.deepEqual(asked, [3n]);
    assert.equal(await times.get(200n), undefined);
    assert.equal(await times.get(200n), undefined);
    assert.deepEqual(asked, [3n, 200n, 200n], 'no block yet is not kept');
    fail = true;
    await assert.rejects(times.get(4n), /down/);
    fail = false;
    assert.deepEqual(await times.get(4n), at(1_004, 123_456_789), 'a failure is not kept');
  });

  test('no more than the capacity kept: the least recently used goes first', async () => {
    const asked: bigint[] = [];
    const times = new BlockTimes({ headerTime: async (h) => (asked.push(h), at(Number(h))) }, 3);
    for (const h of [1n, 2n, 3n]) times.record(h, at(Number(h)));
    await times.get(1n); // 1 used again: 2 is now the oldest
    times.record(4n, at(4));
    assert.equal(times.size, 3);
    await times.get(1n);
    await times.get(2n);
    assert.deepEqual(asked, [2n], 'only the dropped height is asked for');
    assert.throws(() => new BlockTimes({ headerTime: async () => undefined }, 0), /positive integer/);
  });
});
