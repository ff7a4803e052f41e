// ABCI framing: every message is preceded by its length as an unsigned varint (uvarint/LEB128, not
// zigzag: CometBFT v0.37+ `libs/protoio`, read with Go's binary.ReadUvarint).
import { BinaryReader, BinaryWriter } from 'cosmjs-types/binary';
import { AbciFramingError, checkIntSetting } from './errors.ts';

/** CometBFT's own limit (`maxMsgSize = math.MaxInt32` in `abci/types/messages.go`). */
export const DEFAULT_MAX_MESSAGE_BYTES = 2147483647;

/** A uint64 takes at most 10 varint bytes (Go's binary.MaxVarintLen64). */
const MAX_VARINT_BYTES = 10;

/** The message preceded by its uvarint length. */
export function encodeFrame(message: Uint8Array): Uint8Array {
  // a protobuf `bytes` value is exactly a uvarint length followed by the bytes
  return BinaryWriter.create().bytes(message).finish();
}

/**
 * Splits a byte stream into messages, whatever the chunking: many frames per chunk, one frame over many
 * chunks, even a byte at a time. A frame's body is collected as its bytes arrive and joined only when
 * complete, so a claimed length costs nothing until the bytes are there.
 */
export class FrameDecoder {
  readonly #maxMessageBytes: number;
  readonly #prefix = new Uint8Array(MAX_VARINT_BYTES);
  #prefixLength = 0;
  /** Body length of the frame being read; -1 while its length prefix is being read. */
  #bodyLength = -1;
  #parts: Uint8Array[] = [];
  #partsLength = 0;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = checkIntSetting('maxMessageBytes', maxMessageBytes, 1, DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** Bytes of an incomplete frame held (0: the stream is at a frame boundary). */
  get buffered(): number {
    return this.#prefixLength + this.#partsLength;
  }

  /**
   * The messages completed by `chunk`, appended to `out` (and returned). Throws AbciFramingError on a bad or
   * oversized length prefix; the messages completed before it are in `out` by then.
   */
  push(chunk: Uint8Array, out: Uint8Array[] = []): Uint8Array[] {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.#bodyLength < 0) {
        const byte = chunk[pos++];
        this.#prefix[this.#prefixLength++] = byte;
        if (byte & 0x80) {
          if (this.#prefixLength === MAX_VARINT_BYTES) {
            throw new AbciFramingError(`bad length prefix: the varint is longer than ${MAX_VARINT_BYTES} bytes`);
          }
          continue;
        }
        this.#startBody(out);
        continue;
      }
      const want = this.#bodyLength - this.#partsLength;
      const take = Math.min(want, chunk.length - pos);
      const piece = chunk.subarray(pos, pos + take);
      pos += take;
      if (this.#parts.length === 0 && take === this.#bodyLength) {
        out.push(piece); // the whole body is in this chunk: no copy
        this.#bodyLength = -1;
        continue;
      }
      this.#parts.push(piece);
      this.#partsLength += take;
      if (this.#partsLength === this.#bodyLength) {
        out.push(Buffer.concat(this.#parts, this.#partsLength));
        this.#parts = [];
        this.#partsLength = 0;
        this.#bodyLength = -1;
      }
    }
    return out;
  }

  /** The prefix ended with the byte just read: check and decode it. */
  #startBody(out: Uint8Array[]): void {
    const n = this.#prefixLength;
    // Go's ReadUvarint: the 10th byte may only carry the 64th bit
    if (n === MAX_VARINT_BYTES && this.#prefix[n - 1] > 1) {
      throw new AbciFramingError('bad length prefix: the varint overflows 64 bits');
    }
    const length = new BinaryReader(this.#prefix.subarray(0, n)).uint64();
    this.#prefixLength = 0;
    if (length > BigInt(this.#maxMessageBytes)) {
      throw new AbciFramingError(`message length ${length} bytes is above the limit of ${this.#maxMessageBytes} bytes (maxMessageBytes)`);
    }
    if (length === 0n) out.push(new Uint8Array(0));
    else this.#bodyLength = Number(length);
  }
}
