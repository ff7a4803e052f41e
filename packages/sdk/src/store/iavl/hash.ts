// The IAVL v1 hash rules, byte for byte: cosmos/iavl v1.x (read at v1.3.6) node.go (writeHashBytes, hashWithCount),
// internal/encoding/encoding.go (EncodeVarint, EncodeBytes, Encode32BytesHash). A root hash is what a
// light client or an IBC counterparty checks with ICS-23's iavlSpec, so nothing here may drift.
import { createHash } from 'node:crypto';

/** SHA-256 of `parts` concatenated. */
export function sha256(...parts: readonly Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** Go's binary.PutUvarint: 7 bits a byte, low first, the high bit set on every byte but the last. */
export function uvarint(n: bigint): Uint8Array {
  if (n < 0n || n >= 1n << 64n) throw new RangeError(`uvarint out of range: ${n}`);
  const out: number[] = [];
  let v = n;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** Go's binary.PutVarint (zig-zag): uvarint of 2n for n ≥ 0, of -2n-1 for n < 0; so 0 is 0x00, 1 is 0x02, -1 is 0x01. */
export function varint(n: bigint): Uint8Array {
  if (n < -(1n << 63n) || n >= 1n << 63n) throw new RangeError(`varint out of range: ${n}`);
  return uvarint(n >= 0n ? n << 1n : (-n << 1n) - 1n);
}

/** encoding.EncodeBytes: uvarint(len(b)) ‖ b. */
export function lengthPrefixed(b: Uint8Array): Uint8Array {
  const len = uvarint(BigInt(b.length));
  const out = new Uint8Array(len.length + b.length);
  out.set(len, 0);
  out.set(b, len.length);
  return out;
}

/** encoding.Encode32BytesHash writes the length byte 0x20 without computing it: a child or value hash is always 32 bytes. */
export const HASH_LENGTH_BYTE = 0x20;

/**
 * The root hash of an empty tree: sha256 of no bytes (e3b0c442…b855), as hashWithCount returns for a nil
 * root (node.go, "to conform with RFC-6962"); MutableTree.Hash/WorkingHash of an empty tree give it.
 */
export const EMPTY_ROOT_HASH: Uint8Array = sha256();

/**
 * The bytes a leaf hash starts with, also ICS-23's LeafOp.prefix (proof_ics23.go convertLeafOp):
 * varint(height = 0) ‖ varint(size = 1) ‖ varint(version) = 0x00 0x02 varint(version).
 */
export function leafPrefix(version: bigint): Uint8Array {
  return concat([varint(0n), varint(1n), varint(version)]);
}

/**
 * A leaf's hash (writeHashBytes, leaf branch):
 * sha256( varint(0) ‖ varint(1) ‖ varint(version) ‖ uvarint(len(key)) ‖ key ‖ 0x20 ‖ sha256(value) ).
 * `version` is the version the leaf was written in.
 */
export function leafHash(key: Uint8Array, value: Uint8Array, version: bigint): Uint8Array {
  return sha256(leafPrefix(version), lengthPrefixed(key), Uint8Array.of(HASH_LENGTH_BYTE), sha256(value));
}

/**
 * The bytes an inner hash starts with, before the children: varint(height) ‖ varint(size) ‖ varint(version).
 * ICS-23's InnerOp.prefix begins with them (proof_ics23.go convertInnerOps).
 */
export function innerHeader(height: number, size: bigint, version: bigint): Uint8Array {
  return concat([varint(BigInt(height)), varint(size), varint(version)]);
}

/**
 * An inner node's hash (writeHashBytes, inner branch; the key is not hashed):
 * sha256( varint(height) ‖ varint(size) ‖ varint(version) ‖ 0x20 ‖ leftHash ‖ 0x20 ‖ rightHash ).
 * `size` counts the leaves below, `version` is the version the node was written in.
 */
export function innerHash(height: number, size: bigint, version: bigint, left: Uint8Array, right: Uint8Array): Uint8Array {
  const len = Uint8Array.of(HASH_LENGTH_BYTE);
  return sha256(innerHeader(height, size, version), len, left, len, right);
}

/** The parts one after another. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
