// cosmjs-types 0.11.0 (the latest) writes an int64/uint64 in [2^31, 2^32) wrongly: int64FromString
// hands writeVarint64 a signed low word, so it writes one byte and leaves four zero bytes (3e9 gas
// becomes `00 00 00 00 00`, which protobuf decoders refuse). A gas limit in that range is free to send,
// and its ExecTxResult or ResponseCheckTx would then be bytes CometBFT cannot decode. Such values are
// written as the uint32 varint they are (the same bytes a correct int64 writer gives); every other
// value keeps cosmjs-types' writer. Loaded for its effect by the app (application.ts), before any encode.
import { BinaryWriter } from 'cosmjs-types/binary';

const LOW = 2n ** 31n;
const HIGH = 2n ** 32n;

type Int64Writer = (this: BinaryWriter, value: bigint | number | string) => BinaryWriter;

const proto = BinaryWriter.prototype as unknown as { int64: Int64Writer };
const original = proto.int64;

function int64(this: BinaryWriter, value: bigint | number | string): BinaryWriter {
  const v = typeof value === 'bigint' ? value : BigInt(value);
  return v >= LOW && v < HIGH ? this.uint32(Number(v)) : original.call(this, value);
}

proto.int64 = int64;
