// ResponseFinalizeBlock is the one large message of a block: an ExecTxResult with its events for every
// tx (hundreds of kilobytes for a full block). cosmjs-types' generic writer spends an object per field
// on it; this encodes it in two passes instead (every length first, then the bytes into one buffer),
// to exactly the same bytes (finalize-block.test.ts checks them against cosmjs-types). The rare fields
// (validator and consensus-param updates) are still cosmjs-types' encoding, embedded as bytes.
import { Buffer } from 'node:buffer';
import { ConsensusParams } from 'cosmjs-types/tendermint/types/params';
import { ValidatorUpdate, type Event, type ExecTxResult, type ResponseFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';

/** Strings up to this many ASCII characters are copied by a loop. */
const SHORT = 64;

const varintSize = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/** int64/uint64 as protobuf varints: two's complement for negatives (10 bytes). */
const u64 = (v: bigint): bigint => BigInt.asUintN(64, v);

function bigVarintSize(v: bigint): number {
  let n = 1;
  for (let x = u64(v); x >= 0x80n; x >>= 7n) n++;
  return n;
}

/** A field tag plus its length-delimited payload. */
const delimited = (len: number): number => 1 + varintSize(len) + len;

/**
 * Pass one records every length the second pass must write, in the order it writes them: strings'
 * UTF-8 sizes and nested messages' sizes.
 */
class Sizes {
  readonly lens: number[] = [];

  str(s: string): number {
    if (s === '') return 0;
    const n = Buffer.byteLength(s, 'utf8');
    this.lens.push(n);
    return delimited(n);
  }

  /** Reserves a nested message's length before its contents' lengths; `close` fills it in. */
  open(): number {
    this.lens.push(0);
    return this.lens.length - 1;
  }

  close(slot: number, n: number): number {
    this.lens[slot] = n;
    return delimited(n);
  }

  event(e: Event): number {
    let n = this.str(e.type);
    for (const a of e.attributes) {
      const slot = this.open();
      n += this.close(slot, this.str(a.key) + this.str(a.value) + (a.index ? 2 : 0));
    }
    return n;
  }

  txResult(r: ExecTxResult): number {
    let n = 0;
    if (r.code !== 0) n += 1 + varintSize(r.code);
    if (r.data.length !== 0) n += delimited(r.data.length);
    n += this.str(r.log) + this.str(r.info);
    if (r.gasWanted !== 0n) n += 1 + bigVarintSize(r.gasWanted);
    if (r.gasUsed !== 0n) n += 1 + bigVarintSize(r.gasUsed);
    for (const e of r.events) {
      const slot = this.open();
      n += this.close(slot, this.event(e));
    }
    n += this.str(r.codespace);
    return n;
  }
}

class Writer {
  pos = 0;
  private next = 0;

  constructor(
    readonly buf: Buffer,
    private readonly lens: readonly number[],
  ) {}

  varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  bigVarint(v: bigint): void {
    let x = u64(v);
    while (x >= 0x80n) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  bytes(tag: number, b: Uint8Array): void {
    this.buf[this.pos++] = tag;
    this.varint(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  str(tag: number, s: string): void {
    if (s === '') return;
    const n = this.lens[this.next++];
    this.buf[this.pos++] = tag;
    this.varint(n);
    if (n === s.length && n <= SHORT) {
      // ASCII (its UTF-8 is as long as the string) and short: a loop beats a call into the native writer
      for (let i = 0; i < n; i++) this.buf[this.pos++] = s.charCodeAt(i);
      return;
    }
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
  }

  /** A nested message's tag and recorded size; its contents follow. */
  open(tag: number): void {
    this.buf[this.pos++] = tag;
    this.varint(this.lens[this.next++]);
  }

  event(e: Event): void {
    this.str(0x0a, e.type);
    for (const a of e.attributes) {
      this.open(0x12);
      this.str(0x0a, a.key);
      this.str(0x12, a.value);
      if (a.index) {
        this.buf[this.pos++] = 0x18;
        this.buf[this.pos++] = 1;
      }
    }
  }

  txResult(r: ExecTxResult): void {
    if (r.code !== 0) {
      this.buf[this.pos++] = 0x08;
      this.varint(r.code);
    }
    if (r.data.length !== 0) this.bytes(0x12, r.data);
    this.str(0x1a, r.log);
    this.str(0x22, r.info);
    if (r.gasWanted !== 0n) {
      this.buf[this.pos++] = 0x28;
      this.bigVarint(r.gasWanted);
    }
    if (r.gasUsed !== 0n) {
      this.buf[this.pos++] = 0x30;
      this.bigVarint(r.gasUsed);
    }
    for (const e of r.events) {
      this.open(0x3a);
      this.event(e);
    }
    this.str(0x42, r.codespace);
  }
}

/** Response{finalize_block} (field 21), framed: the same bytes as cosmjs-types' Response.encode with a uvarint length prefix. */
export function encodeFinalizeBlockFrame(res: ResponseFinalizeBlock): Uint8Array {
  const sizes = new Sizes();
  const updates = res.validatorUpdates.map((v) => ValidatorUpdate.encode(v).finish());
  const params = res.consensusParamUpdates === undefined ? undefined : ConsensusParams.encode(res.consensusParamUpdates).finish();
  let body = 0;
  for (const e of res.events) body += sizes.close(sizes.open(), sizes.event(e));
  for (const r of res.txResults) body += sizes.close(sizes.open(), sizes.txResult(r));
  for (const u of updates) body += delimited(u.length);
  if (params !== undefined) body += delimited(params.length);
  if (res.appHash.length !== 0) body += delimited(res.appHash.length);
  // Response field 21, length-delimited: tag 0xaa 0x01
  const response = 2 + varintSize(body) + body;
  const total = varintSize(response) + response;
  const w = new Writer(Buffer.allocUnsafe(total), sizes.lens);
  w.varint(response);
  w.buf[w.pos++] = 0xaa;
  w.buf[w.pos++] = 0x01;
  w.varint(body);
  for (const e of res.events) {
    w.open(0x0a);
    w.event(e);
  }
  for (const r of res.txResults) {
    w.open(0x12);
    w.txResult(r);
  }
  for (const u of updates) w.bytes(0x1a, u);
  if (params !== undefined) w.bytes(0x22, params);
  if (res.appHash.length !== 0) w.bytes(0x2a, res.appHash);
  // every byte of the pooled buffer is written: a miscount here would send stale memory
  if (w.pos !== total) throw new Error(`ResponseFinalizeBlock encoder wrote ${w.pos} of ${total} bytes`);
  return w.buf;
}
