// The verified-signature cache is a bound on memory: what it keeps alive must stay within `maxBytes`,
// whatever else the process allocates between two entries (the node parses a request, decodes base64
// and encodes replies between two txs' signatures, all from Node's shared buffer pool).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, test } from 'node:test';
import { VerifiedSignatures, type SignatureTriple } from './verified-signatures.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const triple = (): SignatureTriple => ({ pubkey: randomBytes(33), digest: randomBytes(32), signature: randomBytes(64) });

/** ArrayBuffer memory still held after full collections. */
function arrayBuffersAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().arrayBuffers;
}

describe('VerifiedSignatures', () => {
  test('a full cache holds no more ArrayBuffer memory than its byte bound, with other small buffers allocated between entries', () => {
    const maxBytes = 2 * 1024 * 1024;
    const cache = new VerifiedSignatures({ capacity: 1_000_000, maxBytes });
    const before = arrayBuffersAfterGc();
    for (let i = 0; i < 20_000; i++) {
      cache.add(triple());
      // a request's worth of short-lived buffers from the shared pool, dropped at once
      Buffer.from('x'.repeat(2400));
    }
    assert.ok(cache.bytes <= maxBytes, `counted ${cache.bytes} > ${maxBytes}`);
    const held = arrayBuffersAfterGc() - before;
    assert.ok(held <= maxBytes, `the cache (${cache.size} entries) holds ${(held / 2 ** 20).toFixed(1)} MiB of ArrayBuffers, bound ${maxBytes / 2 ** 20} MiB`);
    assert.ok(cache.size > 0);
  });

  test('take answers as has, then forgets the triple', () => {
    const cache = new VerifiedSignatures();
    const t = triple();
    cache.add(t);
    assert.equal(cache.has(t), true);
    assert.equal(cache.take({ ...t, digest: randomBytes(32) }), false);
    assert.equal(cache.take(t), true);
    assert.equal(cache.has(t), false);
    assert.equal(cache.take(t), false);
    assert.equal(cache.size, 0);
    assert.equal(cache.bytes, 0);
  });
});
