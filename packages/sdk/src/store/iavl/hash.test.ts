import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, test } from 'node:test';
import { EMPTY_ROOT_HASH, innerHash, leafHash, leafPrefix, lengthPrefixed, sha256, uvarint, varint } from './hash.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('IAVL v1 hash rules', () => {
  test("varint is Go's zig-zag binary.PutVarint, uvarint its PutUvarint", () => {
    assert.equal(hex(varint(0n)), '00');
    assert.equal(hex(varint(1n)), '02');
    assert.equal(hex(varint(-1n)), '01');
    assert.equal(hex(varint(63n)), '7e');
    assert.equal(hex(varint(64n)), '8001');
    assert.equal(hex(varint(-(1n << 63n))), 'ffffffffffffffffff01');
    assert.equal(hex(uvarint(127n)), '7f');
    assert.equal(hex(uvarint(300n)), 'ac02');
    assert.equal(hex(lengthPrefixed(Uint8Array.of(1, 2))), '020102');
  });

  test('the empty tree hashes to sha256 of nothing', () => {
    assert.equal(hex(EMPTY_ROOT_HASH), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('leaf and inner hashes are sha256 of the documented bytes', () => {
    const key = Uint8Array.of(0x61);
    const value = Uint8Array.of(0x62);
    assert.equal(hex(leafPrefix(1n)), '000202');
    const leaf = leafHash(key, value, 1n);
    assert.deepEqual(leaf, sha256(Uint8Array.of(0, 2, 2, 1, 0x61, 0x20), sha256(value)));
    const inner = innerHash(1, 2n, 3n, leaf, leaf);
    assert.deepEqual(inner, sha256(Uint8Array.of(2, 4, 6, 0x20), leaf, Uint8Array.of(0x20), leaf));
  });
});
