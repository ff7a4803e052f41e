// A minimal protobuf wire reader and writer for the few messages every transaction touches (TxRaw,
// TxBody, AuthInfo, SignDoc, accounts, coins). cosmjs-types' writer allocates an 8 KiB slab on every
// `finish()` and its reader copies its input at every level; these do neither.
//
// The reader is strict: anything it does not fully understand (a wire type that differs from the
// field's, a group, a varint wider than it should be, a length that overruns its message, a non-ASCII
// string) throws `NotFast`, and callers then decode with cosmjs-types, which gives its own result or
// its own error. So a fast decode, whenever it succeeds, gives exactly what cosmjs-types would.
import { ChaindError } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { allocBytes } from '../bytes/index.ts';

/** Thrown by the strict reader and writer: "use the cosmjs-types codec for this one". */
export class NotFast extends ChaindError<'not-fast'> {
  override readonly name = 'NotFast';
  constructor(message: string, options?: ErrorOptions) {
    super('not-fast', message, options);
  }
}
const NOT_FAST = new NotFast('not on the fast path');

/** `fast(arg)`; on NotFast (only) `slow(arg)`. Module-level functions, so no closure per call. */
export function fastOr<A, T>(fast: (arg: A) => T, slow: (arg: A) => T, arg: A): T {
  try {
    return fast(arg);
  } catch (e) {
    if (e instanceof NotFast) return slow(arg);
    throw e;
  }
}

const MAX_U64 = 0xffffffffffffffffn;

/** The empty default of bytes fields, shared (a zero-length array has nothing to mutate). */
export const EMPTY_BYTES = new Uint8Array(0);

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** Strict reader over `buf[pos, end)`. */
export class WireReader {
  pos: number;
  /** Field number and wire type of the last `next()`. */
  field = 0;
  wire = 0;

  constructor(
    readonly buf: Uint8Array,
    pos = 0,
    public end: number = buf.length,
  ) {
    this.pos = pos;
  }

  /**
   * A reader over a private copy of `input`, as cosmjs-types' reader makes: decoded bytes fields are
   * views of the copy, so they neither alias the caller's buffer nor are Buffers.
   */
  static of(input: Uint8Array): WireReader {
    const copy = allocBytes(input.length);
    copy.set(input);
    return new WireReader(copy);
  }

  /** Reads the next tag; false at the end of the message. */
  next(): boolean {
    if (this.pos >= this.end) return false;
    const tag = this.varint32();
    this.field = tag >>> 3;
    this.wire = tag & 7;
    if (this.field === 0) throw NOT_FAST;
    return true;
  }

  /** A varint of at most 32 bits in at most 5 bytes, as an unsigned number. */
  varint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= this.end) throw NOT_FAST;
      const b = buf[pos++];
      if (shift === 28 && b > 0x0f) throw NOT_FAST;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        this.pos = pos;
        return result;
      }
    }
    throw NOT_FAST;
  }

  /** A uint64 varint (at most 10 bytes, no bits beyond 64). */
  uint64(): bigint {
    if (this.wire !== WIRE_VARINT) throw NOT_FAST;
    const buf = this.buf;
    let pos = this.pos;
    // up to 7 bytes (49 bits) fits a Number exactly
    let lo = 0;
    for (let shift = 0; shift < 49; shift += 7) {
      if (pos >= this.end) throw NOT_FAST;
      const b = buf[pos++];
      lo += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        this.pos = pos;
        return BigInt(lo);
      }
    }
    let hi = 0n;
    for (let shift = 49n; shift < 70n; shift += 7n) {
      if (pos >= this.end) throw NOT_FAST;
      const b = buf[pos++];
      hi |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        const v = hi | BigInt(lo);
        if (v > MAX_U64) throw NOT_FAST;
        this.pos = pos;
        return v;
      }
    }
    throw NOT_FAST;
  }

  /** A varint-encoded int32 field (enums), as cosmjs' `int32()` reads it for 1..5-byte non-negative values. */
  enum(): number {
    if (this.wire !== WIRE_VARINT) throw NOT_FAST;
    const v = this.varint32();
    return v | 0;
  }

  bool(): boolean {
    if (this.wire !== WIRE_VARINT) throw NOT_FAST;
    return this.uint64() !== 0n;
  }

  /** Start and end of a length-delimited field's payload; moves past it. */
  span(): number {
    if (this.wire !== WIRE_LEN) throw NOT_FAST;
    const len = this.varint32();
    const start = this.pos;
    if (start + len > this.end) throw NOT_FAST;
    this.pos = start + len;
    return start;
  }

  /** A bytes field: a view of the reader's private copy (see `of`), as cosmjs-types returns. */
  bytes(): Uint8Array {
    const start = this.span();
    return this.buf.subarray(start, this.pos);
  }

  /** A string field; only ASCII is read here (other UTF-8 goes to cosmjs-types, whose decoding of bad UTF-8 is its own). */
  string(): string {
    const start = this.span();
    const end = this.pos;
    const buf = this.buf;
    for (let i = start; i < end; i++) if (buf[i] >= 0x80) throw NOT_FAST;
    if (end - start < 24) {
      let s = '';
      for (let i = start; i < end; i++) s += String.fromCharCode(buf[i]);
      return s;
    }
    return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('latin1');
  }

  /** Skips an unknown field of a wire type cosmjs-types also skips (groups go to cosmjs-types). */
  skip(): void {
    switch (this.wire) {
      case WIRE_VARINT:
        this.uint64Any();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_LEN:
        this.span();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        throw NOT_FAST;
    }
  }

  private uint64Any(): void {
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw NOT_FAST;
      if (this.buf[this.pos++] < 0x80) return;
    }
    throw NOT_FAST;
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw NOT_FAST;
    this.pos += n;
  }

  /** A reader over the payload of the current length-delimited field (and moves past it). */
  sub(): WireReader {
    const start = this.span();
    return new WireReader(this.buf, start, this.pos);
  }
}

// ---- writing: sizes first, then one exact allocation ----

export function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

/**
 * cosmjs-types 0.11 writes a uint64 in [2^31, 2^32) wrongly (2^31 as 00 00 00 00 00): state bytes and
 * sign bytes have always carried its output, so such values keep going through it.
 */
const COSMJS_BAD_LO = 0x80000000n;
const COSMJS_BAD_HI = 0x100000000n;

/** Varint size of a uint64; `NotFast` for values cosmjs-types does not encode as protobuf does. */
export function u64Size(v: bigint): number {
  if (v < 0n || v > MAX_U64 || (v >= COSMJS_BAD_LO && v < COSMJS_BAD_HI)) throw NOT_FAST;
  if (v < 0x10000000n) return varintSize(Number(v));
  let n = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    n++;
  }
  return n;
}

/** Bytes of a length-delimited field: tag (one byte for fields 1..15), length, payload. */
export function lenFieldSize(payload: number): number {
  return 1 + varintSize(payload) + payload;
}

/** ASCII strings only (`NotFast` otherwise): their UTF-8 is their char codes. */
export function asciiLength(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) throw NOT_FAST;
  return s.length;
}

/** Writer into an exactly sized buffer. */
export class WireWriter {
  readonly buf: Uint8Array;
  pos = 0;

  constructor(size: number) {
    this.buf = allocBytes(size);
  }

  byte(b: number): void {
    this.buf[this.pos++] = b;
  }

  varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  u64(v: bigint): void {
    if (v < 0x100000000n) {
      this.varint(Number(v));
      return;
    }
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** A length-delimited field with a one-byte tag. */
  lenTag(tag: number, len: number): void {
    this.buf[this.pos++] = tag;
    this.varint(len);
  }

  bytes(tag: number, b: Uint8Array): void {
    this.lenTag(tag, b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** An ASCII string (sized with asciiLength). */
  ascii(tag: number, s: string): void {
    this.lenTag(tag, s.length);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  finish(): Uint8Array {
    if (this.pos !== this.buf.length) throw new Error(`wire writer: sized ${this.buf.length} bytes, wrote ${this.pos}`);
    return this.buf;
  }
}
