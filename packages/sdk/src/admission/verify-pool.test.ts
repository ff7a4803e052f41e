// The signature worker pool on real worker threads with the real secp256k1 backend: it answers exactly
// as verifySignature does, remembers only what verified, and never blocks or fails a caller when it is
// closed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { isWellFormedSignature, publicKeyFromPrivate, signBytesDigest, signDirect, verifySignature } from '../crypto/secp256k1.ts';
import { VerifiedSignatures, type SignatureTriple } from '../crypto/verified-signatures.ts';
import { SignatureVerifyPool } from './verify-pool.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const be32 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

function triple(i: number, doc = Buffer.from(`sign doc ${i}`)): SignatureTriple {
  const key = createHash('sha256').update(`pool/${i}`).digest();
  return { pubkey: publicKeyFromPrivate(key), digest: signBytesDigest(doc), signature: signDirect(key, doc) };
}

/** `t` claiming to sign `doc` instead. */
const over = (t: SignatureTriple, doc: string): SignatureTriple => ({ ...t, digest: signBytesDigest(Buffer.from(doc)) });

describe('signature verification pool', () => {
  test('answers as verifySignature on valid, tampered, wrong-key, high-S and off-curve triples; caches only the valid', async () => {
    const cache = new VerifiedSignatures();
    const pool = new SignatureVerifyPool({ cache });
    try {
      const good = triple(1);
      const s = BigInt('0x' + Buffer.from(good.signature.subarray(32)).toString('hex'));
      const cases: [string, SignatureTriple][] = [
        ['valid', good],
        ['tampered doc', over(good, 'sign doc 2')],
        ['wrong key', { ...good, pubkey: triple(2).pubkey }],
        ['high-S', { ...good, signature: Buffer.concat([good.signature.subarray(0, 32), be32(N - s)]) }],
        ['off-curve key', { ...good, pubkey: Buffer.concat([Buffer.from([2]), Buffer.alloc(32, 0xff)]) }],
        ['short signature', { ...good, signature: good.signature.subarray(1) }],
      ];
      const got = await pool.verify(cases.map(([, t]) => t));
      assert.deepEqual(
        cases.map(([name], i) => [name, got[i]]),
        cases.map(([name, t]) => [
          name,
          name === 'tampered doc'
            ? verifySignature(t.pubkey, Buffer.from('sign doc 2'), t.signature)
            : verifySignature(t.pubkey, Buffer.from('sign doc 1'), t.signature),
        ]),
      );
      assert.deepEqual(got, [true, false, false, false, false, false]);
      assert.equal(cache.size, 1);
      assert.equal(cache.has(good), true);
      for (const [name, t] of cases.slice(1)) assert.equal(cache.has(t), false, name);
      // verifyAhead: nothing to wait for when every triple is known or cannot verify; else the same answers
      assert.equal(pool.verifyAhead([good, cases[5][1]]), undefined);
      assert.deepEqual(await pool.verifyAhead([good, triple(3), cases[1][1]]), [true, true, false]);
      assert.equal(cache.has(triple(3)), true);
    } finally {
      await pool.close();
    }
  });

  test('many callers at once on two threads: every triple answered, in batches', async () => {
    const cache = new VerifiedSignatures();
    const pool = new SignatureVerifyPool({ cache, threads: 2, maxBatch: 16 });
    try {
      const ts = Array.from({ length: 300 }, (_, i) => triple(i));
      const bad = ts.map((t, i) => (i % 3 === 0 ? over(t, 'other') : t));
      const got = (await Promise.all(bad.map((t) => pool.verify([t])))).flat();
      assert.deepEqual(
        got,
        bad.map((_, i) => i % 3 !== 0),
      );
      assert.equal(cache.size, 200);
    } finally {
      await pool.close();
    }
  });

  test('a worker that dies mid-batch: the batch answers false, the failure is reported, later calls answer false at once', async () => {
    const cache = new VerifiedSignatures();
    const errors: string[] = [];
    const pool = new SignatureVerifyPool({
      cache,
      secp256k1Module: fileURLToPath(new URL('./testdata/crashing-secp256k1.cjs', import.meta.url)),
      onWorkerError: (e) => errors.push(e.message),
    });
    try {
      assert.deepEqual(await pool.verify([triple(1), triple(2)]), [false, false]);
      assert.deepEqual(errors, ['signature worker exited with code 3']);
      assert.deepEqual(await pool.verify([triple(3)]), [false]);
      assert.equal(cache.size, 0);
    } finally {
      await pool.close();
    }
  });

  test('a stuck worker: what waits in the queue is verified by the calling thread in its idle turns, exactly as verifySignature', async () => {
    const cache = new VerifiedSignatures();
    const pool = new SignatureVerifyPool({ cache, maxBatch: 64, secp256k1Module: fileURLToPath(new URL('./testdata/hanging-secp256k1.cjs', import.meta.url)) });
    try {
      let firstAnswered = false;
      // posted at once to the idle worker, which never answers
      const first = pool.verify([triple(0)]).then((r) => ((firstAnswered = true), r));
      // a partial batch is not posted to a busy worker: these wait in the queue
      const queued = [triple(1), over(triple(2), 'not what was signed'), triple(3)];
      assert.deepEqual(await pool.verify(queued), [true, false, true]);
      assert.deepEqual([cache.has(queued[0]), cache.has(queued[1]), cache.has(queued[2])], [true, false, true]);
      assert.equal(firstAnswered, false);
      void first;
    } finally {
      await pool.close();
    }
  });

  test('without helpInline the calling thread never verifies: queued triples wait for a worker', async () => {
    const pool = new SignatureVerifyPool({
      cache: new VerifiedSignatures(),
      maxBatch: 64,
      helpInline: false,
      secp256k1Module: fileURLToPath(new URL('./testdata/hanging-secp256k1.cjs', import.meta.url)),
    });
    try {
      void pool.verify([triple(0)]);
      let answered = false;
      void pool.verify([triple(1)]).then(() => (answered = true));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(answered, false);
    } finally {
      await pool.close();
    }
  });

  test('a closed pool answers false at once and verifies nothing', async () => {
    const cache = new VerifiedSignatures();
    const pool = new SignatureVerifyPool({ cache });
    await pool.close();
    assert.deepEqual(await pool.verify([triple(1)]), [false]);
    assert.equal(cache.size, 0);
  });

  test('the cache needs the exact triple, and forgets the oldest first', () => {
    const cache = new VerifiedSignatures({ capacity: 2 });
    const [a, b, c] = [triple(1), triple(2), triple(3)];
    cache.add(a);
    // the same signature over other bytes, or with another key, is not a hit
    assert.equal(cache.has(over(a, 'sign doc 1\0')), false);
    assert.equal(cache.has({ ...a, pubkey: b.pubkey }), false);
    cache.add(b);
    cache.add(c);
    assert.deepEqual([cache.has(a), cache.has(b), cache.has(c), cache.size], [false, true, true, 2]);
    assert.throws(() => new VerifiedSignatures({ capacity: 0 }), /capacity must be a positive integer, got 0/);
  });

  test('the cache is bounded in bytes too, whatever the sign bytes: an entry holds their digest only', () => {
    const big = new VerifiedSignatures();
    const ts = Array.from({ length: 50 }, (_, i) => triple(i, Buffer.alloc(1 << 20, i)));
    for (const t of ts) big.add(t);
    assert.equal(big.size, 50);
    assert.ok(big.bytes <= 50 * 500, `50 triples over 1 MiB sign docs take ${big.bytes} bytes`);
    const small = new VerifiedSignatures({ maxBytes: 10 * 500 });
    for (const t of ts) small.add(t);
    assert.ok(small.size < 20 && small.size >= 10, `${small.size} entries in 5,000 bytes`);
    assert.ok(small.bytes <= 5000);
    assert.equal(small.has(ts[49]), true, 'the newest stays');
    assert.equal(small.has(ts[0]), false, 'the oldest went');
    // forgetting: only the exact triple
    small.delete(over(ts[49], 'other'));
    assert.equal(small.has(ts[49]), true);
    small.delete(ts[49]);
    assert.equal(small.has(ts[49]), false);
    assert.throws(() => new VerifiedSignatures({ maxBytes: 0 }), /maxBytes must be a positive integer, got 0/);
  });

  test('two signatures that share their first bytes (one cache slot): the later replaces the earlier, never a false hit', () => {
    const cache = new VerifiedSignatures();
    const a = triple(1);
    // a made-up signature with a's first 7 bytes: the cache is only ever given verified ones, but the
    // slot is all it shares with a
    const twin: SignatureTriple = {
      pubkey: triple(2).pubkey,
      digest: signBytesDigest(Buffer.from('twin')),
      signature: Buffer.concat([a.signature.subarray(0, 7), Buffer.alloc(57, 1)]),
    };
    cache.add(a);
    assert.equal(cache.has(twin), false);
    cache.add(twin);
    assert.deepEqual([cache.has(a), cache.has(twin), cache.size], [false, true, 1]);
    assert.equal(cache.has({ ...twin, signature: twin.signature.subarray(0, 63) }), false, 'a short signature is never a hit');
  });

  test('well-formed signature bounds: r in [1, n-1], s in [1, n/2]', () => {
    const pub = triple(1).pubkey;
    const sig = (r: bigint, s: bigint): Buffer => Buffer.concat([be32(r), be32(s)]);
    const half = N >> 1n;
    assert.equal(isWellFormedSignature(pub, sig(1n, 1n)), true);
    assert.equal(isWellFormedSignature(pub, sig(N - 1n, half)), true);
    assert.equal(isWellFormedSignature(pub, sig(N, 1n)), false, 'r = n');
    assert.equal(isWellFormedSignature(pub, sig(0n, 1n)), false, 'r = 0');
    assert.equal(isWellFormedSignature(pub, sig(1n, half + 1n)), false, 's = n/2 + 1');
    assert.equal(isWellFormedSignature(pub, sig(1n, 0n)), false, 's = 0');
  });
});
