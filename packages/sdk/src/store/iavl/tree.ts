// An in-memory, versioned AVL tree shaped exactly as cosmos/iavl v1.x shapes its MutableTree, so that the
// same writes give the same root hash (v1.3.6 read): mutable_tree.go (Set, recursiveSet, recursiveSetLeaf, Remove,
// recursiveRemove, balance, rotateLeft, rotateRight, SaveVersion) and node.go (clone, calcHeightAndSize,
// calcBalance, hashWithCount). Nodes are never changed once built: a saved version keeps its nodes, and a
// write rebuilds the path it touches with nodes of the working version, as iavl's clone does.
import { EMPTY_ROOT_HASH, innerHash, leafHash } from './hash.ts';

/** A leaf holds a key and its value. */
export interface IavlLeaf {
  readonly height: 0;
  readonly size: 1n;
  readonly key: Uint8Array;
  readonly value: Uint8Array;
  /** The version the leaf was written in: its hash covers it. */
  readonly version: bigint;
}

/** An inner node: `key` is the smallest key of its right subtree (iavl's routing key, not hashed). */
export interface IavlInner {
  readonly height: number;
  readonly size: bigint;
  readonly key: Uint8Array;
  readonly version: bigint;
  readonly left: IavlNode;
  readonly right: IavlNode;
}

export type IavlNode = IavlLeaf | IavlInner;

export const isLeaf = (n: IavlNode): n is IavlLeaf => n.height === 0;

/** Bytewise comparison, as Go's bytes.Compare. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const hashes = new WeakMap<IavlNode, Uint8Array>();

/** A node's hash, computed once: nodes are immutable, so iavl's cached node.hash is a cache here too. */
export function nodeHash(node: IavlNode): Uint8Array {
  const cached = hashes.get(node);
  if (cached !== undefined) return cached;
  const h = isLeaf(node)
    ? leafHash(node.key, node.value, node.version)
    : innerHash(node.height, node.size, node.version, nodeHash(node.left), nodeHash(node.right));
  hashes.set(node, h);
  return h;
}

/** A read-only tree: one saved version, or the working tree. */
export class IavlView {
  constructor(
    readonly root: IavlNode | null,
    /** The saved version this view shows; for the working tree, the last saved one (0n before any save). */
    readonly version: bigint,
  ) {}

  /** The root hash; sha256("") when the tree is empty (hashWithCount on a nil root). */
  hash(): Uint8Array {
    return this.root === null ? EMPTY_ROOT_HASH : nodeHash(this.root);
  }

  get size(): bigint {
    return this.root === null ? 0n : this.root.size;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.getWithIndex(key).value;
  }

  /** The key's value if present, and its index or the index it would have (immutable_tree.go GetWithIndex). */
  getWithIndex(key: Uint8Array): { index: bigint; value: Uint8Array | undefined } {
    let node = this.root;
    let index = 0n;
    if (node === null) return { index, value: undefined };
    while (!isLeaf(node)) {
      if (compareBytes(key, node.key) < 0) {
        node = node.left;
      } else {
        index += node.left.size;
        node = node.right;
      }
    }
    const c = compareBytes(key, node.key);
    if (c === 0) return { index, value: node.value };
    return { index: c < 0 ? index : index + 1n, value: undefined };
  }

  /** The index-th leaf in key order, or undefined past the end (node.go getByIndex). */
  getByIndex(index: bigint): IavlLeaf | undefined {
    let node = this.root;
    if (node === null || index < 0n || index >= node.size) return undefined;
    let i = index;
    while (!isLeaf(node)) {
      if (i < node.left.size) {
        node = node.left;
      } else {
        i -= node.left.size;
        node = node.right;
      }
    }
    return node;
  }
}

function inner(key: Uint8Array, version: bigint, left: IavlNode, right: IavlNode): IavlInner {
  return { height: Math.max(left.height, right.height) + 1, size: left.size + right.size, key, version, left, right };
}

const balanceOf = (n: IavlInner): number => n.left.height - n.right.height;

function asInner(n: IavlNode): IavlInner {
  if (isLeaf(n)) throw new Error('iavl: rotation of a leaf');
  return n;
}

/** rotateRight: the left child becomes the root of the subtree; both nodes are rewritten in `version`. */
function rotateRight(n: IavlInner, version: bigint): IavlInner {
  const l = asInner(n.left);
  return inner(l.key, version, l.left, inner(n.key, version, l.right, n.right));
}

function rotateLeft(n: IavlInner, version: bigint): IavlInner {
  const r = asInner(n.right);
  return inner(r.key, version, inner(n.key, version, n.left, r.left), r.right);
}

/** mutable_tree.go balance: the four AVL cases, with iavl's tie rules (left ≥ 0 is LL, right ≤ 0 is RR). */
function balance(n: IavlInner, version: bigint): IavlInner {
  const b = balanceOf(n);
  if (b > 1) {
    const l = asInner(n.left);
    if (balanceOf(l) >= 0) return rotateRight(n, version);
    return rotateRight(inner(n.key, version, rotateLeft(l, version), n.right), version);
  }
  if (b < -1) {
    const r = asInner(n.right);
    if (balanceOf(r) <= 0) return rotateLeft(n, version);
    return rotateLeft(inner(n.key, version, n.left, rotateRight(r, version)), version);
  }
  return n;
}

function newLeaf(key: Uint8Array, value: Uint8Array, version: bigint): IavlLeaf {
  return { height: 0, size: 1n, key, value, version };
}

/** recursiveSet: `updated` when the key was present (iavl then skips rebalancing on the way up). */
function setIn(node: IavlNode, key: Uint8Array, value: Uint8Array, version: bigint): { node: IavlNode; updated: boolean } {
  if (isLeaf(node)) {
    // recursiveSetLeaf: a new inner node over the old leaf and the new one, keyed by the larger key
    const c = compareBytes(key, node.key);
    if (c < 0) return { node: inner(node.key, version, newLeaf(key, value, version), node), updated: false };
    if (c > 0) return { node: inner(key, version, node, newLeaf(key, value, version)), updated: false };
    return { node: newLeaf(key, value, version), updated: true };
  }
  if (compareBytes(key, node.key) < 0) {
    const r = setIn(node.left, key, value, version);
    const n = inner(node.key, version, r.node, node.right);
    return { node: r.updated ? n : balance(n, version), updated: r.updated };
  }
  const r = setIn(node.right, key, value, version);
  const n = inner(node.key, version, node.left, r.node);
  return { node: r.updated ? n : balance(n, version), updated: r.updated };
}

/**
 * recursiveRemove. `node` null: this subtree was the removed leaf. `newKey`: the subtree's new smallest key
 * when it changed, for the ancestor that routes right into it to take as its key.
 */
type Removed = { node: IavlNode | null; newKey: Uint8Array | undefined; value: Uint8Array } | undefined;

function removeIn(node: IavlNode, key: Uint8Array, version: bigint): Removed {
  if (isLeaf(node)) {
    return compareBytes(key, node.key) === 0 ? { node: null, newKey: undefined, value: node.value } : undefined;
  }
  if (compareBytes(key, node.key) < 0) {
    const r = removeIn(node.left, key, version);
    if (r === undefined) return undefined;
    if (r.node === null) return { node: node.right, newKey: node.key, value: r.value };
    return { node: balance(inner(node.key, version, r.node, node.right), version), newKey: r.newKey, value: r.value };
  }
  const r = removeIn(node.right, key, version);
  if (r === undefined) return undefined;
  if (r.node === null) return { node: node.left, newKey: undefined, value: r.value };
  const k = r.newKey ?? node.key;
  return { node: balance(inner(k, version, node.left, r.node), version), newKey: undefined, value: r.value };
}

/** The result of saving a version. */
export interface SavedVersion {
  readonly version: bigint;
  readonly root: Uint8Array;
}

/** A versioned IAVL tree: writes go to the working tree, saveVersion() freezes it as the next version. */
export class IavlTree {
  private root: IavlNode | null = null;
  private saved: bigint = 0n;
  private readonly versions = new Map<bigint, IavlView>();

  /** The last saved version (0n before the first save). */
  get version(): bigint {
    return this.saved;
  }

  /** The version the next writes belong to. */
  private get working(): bigint {
    return this.saved + 1n;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.workingView().get(key);
  }

  /** Sets the key's value; true when the key was already present (iavl's `updated`). */
  set(key: Uint8Array, value: Uint8Array): boolean {
    if (this.root === null) {
      this.root = newLeaf(key, value, this.working);
      return false;
    }
    const r = setIn(this.root, key, value, this.working);
    this.root = r.node;
    return r.updated;
  }

  /** Removes the key; its value when it was present. An absent key leaves the tree untouched. */
  remove(key: Uint8Array): Uint8Array | undefined {
    if (this.root === null) return undefined;
    const r = removeIn(this.root, key, this.working);
    if (r === undefined) return undefined;
    this.root = r.node;
    return r.value;
  }

  /** The working tree's root hash (WorkingHash). */
  workingHash(): Uint8Array {
    return this.workingView().hash();
  }

  /** The working tree, read-only. */
  workingView(): IavlView {
    return new IavlView(this.root, this.saved);
  }

  /** Freezes the working tree as the next version and returns its root hash (SaveVersion). */
  saveVersion(): SavedVersion {
    const version = this.working;
    const view = new IavlView(this.root, version);
    this.versions.set(version, view);
    this.saved = version;
    return { version, root: view.hash() };
  }

  /** A saved version, read-only; undefined when it was never saved. */
  at(version: bigint): IavlView | undefined {
    return this.versions.get(version);
  }
}
