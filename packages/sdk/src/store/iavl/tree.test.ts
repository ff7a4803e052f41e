import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, test } from 'node:test';
import { EMPTY_ROOT_HASH, innerHash, leafHash } from './hash.ts';
import { compareBytes, IavlTree, isLeaf, nodeHash, type IavlNode, type IavlView } from './tree.ts';

/** mulberry32: a small seeded PRNG, so every run writes the same stream. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const bytesOf = (rand: () => number, min: number, max: number, alphabet: number): Uint8Array =>
  Uint8Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => Math.floor(rand() * alphabet));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Checks the invariants iavl keeps, returning the subtree's smallest key. */
function check(node: IavlNode, savedUpTo: bigint): Uint8Array {
  assert.ok(node.version <= savedUpTo + 1n);
  if (isLeaf(node)) return node.key;
  const minLeft = check(node.left, savedUpTo);
  const minRight = check(node.right, savedUpTo);
  assert.deepEqual(node.key, minRight, 'an inner key is its right subtree smallest key');
  assert.equal(node.height, Math.max(node.left.height, node.right.height) + 1);
  assert.equal(node.size, node.left.size + node.right.size);
  assert.ok(Math.abs(node.left.height - node.right.height) <= 1, 'AVL balance');
  return minLeft;
}

function leaves(view: IavlView): [string, string][] {
  const out: [string, string][] = [];
  const walk = (n: IavlNode | null): void => {
    if (n === null) return;
    if (isLeaf(n)) out.push([hex(n.key), hex(n.value)]);
    else {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(view.root);
  return out;
}

/** The root hash recomputed from the hash rules, ignoring every cache. */
function rehash(n: IavlNode): Uint8Array {
  return isLeaf(n) ? leafHash(n.key, n.value, n.version) : innerHash(n.height, n.size, n.version, rehash(n.left), rehash(n.right));
}

describe('IavlTree', () => {
  test('an empty tree hashes to sha256 of nothing, before and after a save', () => {
    const t = new IavlTree();
    assert.deepEqual(t.workingHash(), EMPTY_ROOT_HASH);
    const s = t.saveVersion();
    assert.equal(s.version, 1n);
    assert.deepEqual(s.root, EMPTY_ROOT_HASH);
    t.set(Uint8Array.of(1), Uint8Array.of(2));
    t.remove(Uint8Array.of(1));
    assert.deepEqual(t.saveVersion().root, EMPTY_ROOT_HASH);
  });

  test('a single leaf is the root; a second key makes an inner node keyed by the larger key', () => {
    const t = new IavlTree();
    t.set(Uint8Array.of(5), Uint8Array.of(50));
    assert.deepEqual(t.saveVersion().root, leafHash(Uint8Array.of(5), Uint8Array.of(50), 1n));
    t.set(Uint8Array.of(3), Uint8Array.of(30));
    const root = t.saveVersion().root;
    const expected = innerHash(1, 2n, 2n, leafHash(Uint8Array.of(3), Uint8Array.of(30), 2n), leafHash(Uint8Array.of(5), Uint8Array.of(50), 1n));
    assert.deepEqual(root, expected);
    assert.deepEqual(t.at(2n)?.root?.key, Uint8Array.of(5));
  });

  test('random writes over many versions: contents, balance, versions kept', () => {
    const rand = prng(34);
    const t = new IavlTree();
    const model = new Map<string, Uint8Array>();
    const history: { version: bigint; root: Uint8Array; contents: [string, string][] }[] = [];
    for (let v = 1; v <= 120; v++) {
      const ops = 1 + Math.floor(rand() * 40);
      for (let i = 0; i < ops; i++) {
        const key = bytesOf(rand, 1, 3, 24);
        if (rand() < 0.3) {
          const had = model.get(hex(key));
          assert.deepEqual(t.remove(key), had);
          model.delete(hex(key));
        } else {
          const value = bytesOf(rand, 1, 8, 256);
          assert.equal(t.set(key, value), model.has(hex(key)));
          model.set(hex(key), value);
        }
      }
      const saved = t.saveVersion();
      assert.equal(saved.version, BigInt(v));
      const view = t.at(saved.version);
      assert.ok(view !== undefined);
      assert.equal(view.size, BigInt(model.size));
      if (view.root !== null) {
        check(view.root, saved.version - 1n);
        assert.ok(view.root.height <= 1.45 * Math.log2(model.size + 2), `height ${view.root.height} for ${model.size} keys`);
        assert.deepEqual(rehash(view.root), saved.root);
      }
      const contents = [...model.entries()].map(([k, val]): [string, string] => [k, hex(val)]);
      contents.sort((a, b) => compareBytes(Buffer.from(a[0], 'hex'), Buffer.from(b[0], 'hex')));
      assert.deepEqual(leaves(view), contents);
      for (const [k, val] of model) assert.deepEqual(view.get(Buffer.from(k, 'hex')), val);
      history.push({ version: saved.version, root: saved.root, contents });
    }
    for (const h of history) {
      const view = t.at(h.version);
      assert.ok(view !== undefined);
      assert.deepEqual(view.hash(), h.root, 'an old version keeps its root');
      assert.deepEqual(leaves(view), h.contents, 'an old version keeps its contents');
      if (view.root !== null) assert.deepEqual(rehash(view.root), h.root);
    }
    assert.equal(t.at(121n), undefined);
  });

  test('index lookups follow key order', () => {
    const t = new IavlTree();
    for (const k of [9, 3, 7, 1, 5]) t.set(Uint8Array.of(k), Uint8Array.of(k));
    const view = t.workingView();
    assert.deepEqual(
      [0n, 1n, 2n, 3n, 4n].map((i) => view.getByIndex(i)?.key[0]),
      [1, 3, 5, 7, 9],
    );
    assert.equal(view.getByIndex(5n), undefined);
    assert.deepEqual(view.getWithIndex(Uint8Array.of(4)), { index: 2n, value: undefined });
    assert.deepEqual(view.getWithIndex(Uint8Array.of(10)), { index: 5n, value: undefined });
    assert.deepEqual(view.getWithIndex(Uint8Array.of(0)), { index: 0n, value: undefined });
    assert.deepEqual(view.getWithIndex(Uint8Array.of(7)), { index: 3n, value: Uint8Array.of(7) });
    assert.ok(nodeHash(view.root as IavlNode).length === 32);
  });
});
