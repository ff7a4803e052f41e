import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AbciFramingError, AbciSettingError } from './errors.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, encodeFrame, FrameDecoder } from './framing.ts';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);
const concat = (parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));

function framingError(fn: () => unknown, text: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AbciFramingError, `not an AbciFramingError: ${String(err)}`);
    assert.equal(err.code, 'abci-framing');
    assert.match(err.message, text);
    return true;
  });
}

describe('encodeFrame', () => {
  test('prefixes the unsigned varint length (LEB128, not zigzag)', () => {
    assert.deepEqual(encodeFrame(hex('0a0b0c')), hex('03 0a0b0c'));
    // 300 = 0b10_0101100: low 7 bits 0x2c with the continuation bit (0xac), then 0x02; zigzag would give d8 04
    assert.deepEqual(encodeFrame(bytes(300, 7)).subarray(0, 2), hex('ac 02'));
    assert.equal(encodeFrame(bytes(300, 7)).length, 302);
    assert.deepEqual(encodeFrame(new Uint8Array(0)), hex('00'));
  });
});

describe('FrameDecoder', () => {
  const messages = [hex('0a0b0c'), new Uint8Array(0), bytes(300, 0x5a), hex('ff'), bytes(20_000, 1)];
  const stream = concat(messages.map(encodeFrame));

  test('one byte at a time gives every message, and holds nothing between frames', () => {
    const d = new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES);
    const out: Uint8Array[] = [];
    const boundaries: number[] = [];
    for (let i = 0; i < stream.length; i++) {
      const got = d.push(stream.subarray(i, i + 1));
      out.push(...got);
      if (got.length > 0) boundaries.push(d.buffered);
    }
    assert.deepEqual(
      out.map((m) => Uint8Array.from(m)),
      messages,
    );
    assert.deepEqual(boundaries, [0, 0, 0, 0, 0]);
  });

  test('100 messages in one chunk, and chunks cut at every offset of a two-frame stream', () => {
    const many = Array.from({ length: 100 }, (_, i) => bytes(i * 3, i));
    assert.deepEqual(
      new FrameDecoder(1000).push(concat(many.map(encodeFrame))).map((m) => Uint8Array.from(m)),
      many,
    );
    const two = concat([encodeFrame(bytes(200, 1)), encodeFrame(bytes(5, 2))]);
    for (let cut = 0; cut <= two.length; cut++) {
      const d = new FrameDecoder(1000);
      const out = [...d.push(two.subarray(0, cut)), ...d.push(two.subarray(cut))];
      assert.deepEqual(
        out.map((m) => Uint8Array.from(m)),
        [bytes(200, 1), bytes(5, 2)],
        `cut at ${cut}`,
      );
    }
  });

  test('a non-minimal length prefix (up to 10 bytes) is accepted, as Go binary.ReadUvarint does', () => {
    // 3 written in 10 bytes: 0x83, eight 0x80 continuation bytes, then 0x00
    const tenBytes = hex('83 80 80 80 80 80 80 80 80 00  0a0b0c');
    assert.deepEqual(
      new FrameDecoder(100).push(tenBytes).map((m) => Uint8Array.from(m)),
      [hex('0a0b0c')],
    );
    assert.deepEqual(
      new FrameDecoder(100).push(hex('83 00 0a0b0c  80 00')).map((m) => Uint8Array.from(m)),
      [hex('0a0b0c'), new Uint8Array(0)],
    );
  });

  test('a length above maxMessageBytes is refused with the length and the limit', () => {
    framingError(
      () => new FrameDecoder(1000).push(encodeFrame(bytes(1001, 0))),
      /message length 1001 bytes is above the limit of 1000 bytes \(maxMessageBytes\)/,
    );
    assert.equal(new FrameDecoder(1000).push(encodeFrame(bytes(1000, 0))).length, 1);
    // 2^63 in a full 10-byte varint: nine 0x80 then 0x01 (the 64th bit)
    framingError(
      () => new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES).push(hex('80 80 80 80 80 80 80 80 80 01')),
      /message length 9223372036854775808 bytes is above the limit of 2147483647/,
    );
    // the largest uint64: nine 0xff then 0x01
    framingError(() => new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES).push(hex('ff ff ff ff ff ff ff ff ff 01')), /message length 18446744073709551615 bytes/);
    // just above CometBFT's maxMsgSize (MaxInt32): 2^31 = 80 80 80 80 08
    framingError(() => new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES).push(hex('80 80 80 80 08')), /message length 2147483648 bytes/);
  });

  test('a claimed length costs nothing until its bytes arrive', () => {
    const d = new FrameDecoder(DEFAULT_MAX_MESSAGE_BYTES);
    const before = process.memoryUsage().arrayBuffers;
    // 2147483647 = ff ff ff ff 07, then 3 bytes of the body
    assert.deepEqual(d.push(hex('ff ff ff ff 07  01 02 03')), []);
    assert.equal(d.buffered, 3); // the body bytes so far (the prefix is not kept once read)
    assert.ok(process.memoryUsage().arrayBuffers - before < 1 << 20, 'the claimed 2 GiB were allocated');
  });

  test('the messages completed before a bad prefix in the same chunk are delivered in `out`', () => {
    const out: Uint8Array[] = [];
    framingError(
      () => new FrameDecoder(10).push(concat([encodeFrame(hex('01')), encodeFrame(hex('02')), encodeFrame(bytes(11, 0))]), out),
      /message length 11/,
    );
    assert.deepEqual(
      out.map((m) => Uint8Array.from(m)),
      [hex('01'), hex('02')],
    );
  });

  test('a varint longer than 10 bytes, or overflowing 64 bits, is refused', () => {
    framingError(() => new FrameDecoder(100).push(hex('80 80 80 80 80 80 80 80 80 80 00')), /longer than 10 bytes/);
    // arriving a byte at a time, the 10th continuation byte is the error
    const d = new FrameDecoder(100);
    for (let i = 0; i < 9; i++) assert.deepEqual(d.push(hex('80')), []);
    framingError(() => d.push(hex('80')), /longer than 10 bytes/);
    // a 10th byte above 1 carries bits past the 64th
    framingError(() => new FrameDecoder(100).push(hex('80 80 80 80 80 80 80 80 80 02')), /overflows 64 bits/);
    framingError(() => new FrameDecoder(100).push(hex('ff ff ff ff ff ff ff ff ff 7f')), /overflows 64 bits/);
  });

  test('maxMessageBytes must be a positive integer up to MaxInt32', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, DEFAULT_MAX_MESSAGE_BYTES + 1]) {
      assert.throws(
        () => new FrameDecoder(bad),
        (err: unknown) => err instanceof AbciSettingError && /maxMessageBytes must be an integer from 1 to 2147483647/.test(err.message),
      );
    }
  });
});
