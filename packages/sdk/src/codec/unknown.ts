// The Cosmos SDK's unknown-field rejection for transactions (codec/unknownproto, as x/auth/tx's
// decoder uses it): a field the schema does not know is refused, so nobody can append bytes to a
// tx (TxRaw is not signed) and get a different tx hash for the same transaction. Non-critical
// fields (number with bit 11 set) are allowed where the SDK allows them: in TxBody and below.
// Known fields of the wrong wire type are refused too, as the SDK's gogoproto decoder does:
// cosmjs-types reads them as their declared type whatever the wire says.
import { ChaindError } from '@chaind/errors';
import { Buffer } from 'node:buffer';
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './wire.ts';

/** A message's fields: number → [name, wire type, nested schema for message fields]. */
export interface Schema {
  readonly name: string;
  readonly fields: ReadonlyMap<number, readonly [string, number, Schema?]>;
  /** Any only: the value's schema by type URL, as UTF-8 (values of other types are left to their decoders). */
  readonly anyValues?: readonly (readonly [Uint8Array, Schema])[];
}

const NON_CRITICAL_BIT = 1024;
/**
 * Nested messages deeper than this are refused before anything decodes them: recursion that deep would
 * end where the JS stack does, a point that differs between machines (Go's decoders allow 10,000; no
 * tx of ours nests beyond a handful).
 */
export const MAX_PROTOBUF_NESTING_DEPTH = 100;
const MAX_FIELD = 2 ** 29 - 1;

function schema(name: string, fields: [number, string, number, Schema?][], anyValues?: readonly (readonly [Uint8Array, Schema])[]): Schema {
  return { name, fields: new Map(fields.map(([n, f, w, s]) => [n, [f, w, s] as const])), anyValues };
}

const pubKeySchema = schema('PubKey', [[1, 'Key', WIRE_LEN]]);
const anySchema = schema(
  'Any',
  [
    [1, 'TypeUrl', WIRE_LEN],
    [2, 'Value', WIRE_LEN],
  ],
  [[Buffer.from('/cosmos.crypto.secp256k1.PubKey'), pubKeySchema]],
);
const timestampSchema = schema('Timestamp', [
  [1, 'Seconds', WIRE_VARINT],
  [2, 'Nanos', WIRE_VARINT],
]);
const coinSchema = schema('Coin', [
  [1, 'Denom', WIRE_LEN],
  [2, 'Amount', WIRE_LEN],
]);
const bitArraySchema = schema('CompactBitArray', [
  [1, 'ExtraBitsStored', WIRE_VARINT],
  [2, 'Elems', WIRE_LEN],
]);
const singleSchema = schema('Single', [[1, 'Mode', WIRE_VARINT]]);
const multiFields: [number, string, number, Schema?][] = [[1, 'Bitarray', WIRE_LEN, bitArraySchema]];
const multiSchema = schema('Multi', multiFields);
const modeInfoSchema = schema('ModeInfo', [
  [1, 'Single', WIRE_LEN, singleSchema],
  [2, 'Multi', WIRE_LEN, multiSchema],
]);
// Multi.mode_infos is ModeInfo again: a cycle, closed after both exist
(multiSchema.fields as Map<number, readonly [string, number, Schema?]>).set(2, ['ModeInfos', WIRE_LEN, modeInfoSchema]);

export const txRawSchema: Schema = schema('TxRaw', [
  [1, 'BodyBytes', WIRE_LEN],
  [2, 'AuthInfoBytes', WIRE_LEN],
  [3, 'Signatures', WIRE_LEN],
]);
export const txBodySchema: Schema = schema('TxBody', [
  [1, 'Messages', WIRE_LEN, anySchema],
  [2, 'Memo', WIRE_LEN],
  [3, 'TimeoutHeight', WIRE_VARINT],
  [4, 'Unordered', WIRE_VARINT],
  [5, 'TimeoutTimestamp', WIRE_LEN, timestampSchema],
  [1023, 'ExtensionOptions', WIRE_LEN, anySchema],
  [2047, 'NonCriticalExtensionOptions', WIRE_LEN, anySchema],
]);
export const authInfoSchema: Schema = schema('AuthInfo', [
  [
    1,
    'SignerInfos',
    WIRE_LEN,
    schema('SignerInfo', [
      [1, 'PublicKey', WIRE_LEN, anySchema],
      [2, 'ModeInfo', WIRE_LEN, modeInfoSchema],
      [3, 'Sequence', WIRE_VARINT],
    ]),
  ],
  [
    2,
    'Fee',
    WIRE_LEN,
    schema('Fee', [
      [1, 'Amount', WIRE_LEN, coinSchema],
      [2, 'GasLimit', WIRE_VARINT],
      [3, 'Payer', WIRE_LEN],
      [4, 'Granter', WIRE_LEN],
    ]),
  ],
  [
    3,
    'Tip',
    WIRE_LEN,
    schema('Tip', [
      [1, 'Amount', WIRE_LEN, coinSchema],
      [2, 'Tipper', WIRE_LEN],
    ]),
  ],
]);

/** Thrown for a message the schema refuses; its text is the SDK's. */
export class UnknownFieldError extends ChaindError<'unknown-field'> {
  override readonly name = 'UnknownFieldError';
  constructor(message: string) {
    super('unknown-field', message);
  }
}

/** Thrown for messages nested deeper than MAX_PROTOBUF_NESTING_DEPTH. */
export class NestingDepthError extends ChaindError<'nesting-too-deep'> {
  override readonly name = 'NestingDepthError';
  constructor() {
    super('nesting-too-deep', `protobuf message nesting depth exceeded maximum of ${MAX_PROTOBUF_NESTING_DEPTH}`);
  }
}

function wireTypeName(w: number): string {
  switch (w) {
    case WIRE_VARINT:
      return 'varint';
    case WIRE_FIXED64:
      return 'fixed64';
    case WIRE_LEN:
      return 'bytes';
    case 3:
      return 'start_group';
    case 4:
      return 'end_group';
    case WIRE_FIXED32:
      return 'fixed32';
    default:
      return `unknown type: ${w}`;
  }
}

const malformed = (): UnknownFieldError => new UnknownFieldError('invalid protobuf encoding');

/** Where the last `varint` ended (a module variable: no tuple allocated per field). */
let after = 0;

/** A varint at `pos` (at most 10 bytes) as a Number, possibly rounded above 2^53; its end in `after`. */
function varint(buf: Uint8Array, pos: number, end: number): number {
  if (pos < end && buf[pos] < 0x80) {
    after = pos + 1;
    return buf[pos];
  }
  let v = 0;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw malformed();
    const b = buf[pos++];
    v += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) {
      after = pos;
      return v;
    }
  }
  throw malformed();
}

/**
 * Throws `UnknownFieldError` when `bytes` (a `s` message) has a field `s` does not know (allowed when
 * it is non-critical and `allowNonCritical`) or a known field of the wrong wire type, here or in any
 * nested message the schema describes.
 */
export function rejectUnknownFields(bytes: Uint8Array, s: Schema, allowNonCritical: boolean): void {
  walk(bytes, 0, bytes.length, s, allowNonCritical, 0);
}

function walk(buf: Uint8Array, pos: number, end: number, s: Schema, allowNonCritical: boolean, depth: number): void {
  if (depth > MAX_PROTOBUF_NESTING_DEPTH) throw new NestingDepthError();
  let typeUrl: [number, number] | undefined;
  let value: [number, number] | undefined;
  while (pos < end) {
    const tag = varint(buf, pos, end);
    const num = Math.floor(tag / 8);
    const wire = tag % 8;
    if (num < 1 || num > MAX_FIELD) throw malformed();
    const field = s.fields.get(num);
    if (field === undefined) {
      if ((num & NON_CRITICAL_BIT) === 0 || !allowNonCritical) {
        throw new UnknownFieldError(`errUnknownField "${s.name}": {TagNum: ${num}, WireType:"${wireTypeName(wire)}"}`);
      }
    } else if (field[1] !== wire) {
      throw new UnknownFieldError(`proto: wrong wireType = ${wire} for field ${field[0]}`);
    }
    pos = after;
    switch (wire) {
      case WIRE_VARINT:
        varint(buf, pos, end);
        pos = after;
        break;
      case WIRE_FIXED64:
        pos += 8;
        break;
      case WIRE_FIXED32:
        pos += 4;
        break;
      case WIRE_LEN: {
        const len = varint(buf, pos, end);
        const start = after;
        pos = start + len;
        if (pos > end) throw malformed();
        if (field?.[2] !== undefined) walk(buf, start, pos, field[2], allowNonCritical, depth + 1);
        if (s.anyValues !== undefined && field !== undefined) {
          if (num === 1) typeUrl = [start, pos];
          else value = [start, pos];
        }
        break;
      }
      default:
        throw malformed(); // groups: no field of these messages is one
    }
    if (pos > end) throw malformed();
  }
  if (s.anyValues !== undefined && value !== undefined && typeUrl !== undefined) {
    const url = buf.subarray(typeUrl[0], typeUrl[1]);
    for (const [known, valueSchema] of s.anyValues) {
      if (Buffer.compare(url, known) === 0) walk(buf, value[0], value[1], valueSchema, allowNonCritical, depth + 1);
    }
  }
}

const varintLength = (v: number): number => (v < 0x80 ? 1 : 1 + varintLength(Math.floor(v / 128)));

/**
 * The SDK's ADR-027 check of TxRaw (x/auth/tx rejectNonADR027TxRaw): only length-delimited fields,
 * in non-decreasing field order, each length in its shortest varint. Otherwise anyone could reorder
 * a TxRaw's fields, or pad a length, and get a new tx hash for the same signed tx.
 */
export function rejectNonAdr027TxRaw(bytes: Uint8Array): void {
  let prev = 0;
  let pos = 0;
  while (pos < bytes.length) {
    const tag = varint(bytes, pos, bytes.length);
    const afterTag = after;
    const num = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire !== WIRE_LEN) throw new UnknownFieldError(`expected ${WIRE_LEN} wire type, got ${wire}`);
    if (num < prev) throw new UnknownFieldError(`txRaw must follow ADR-027, got tagNum ${num} after tagNum ${prev}`);
    prev = num;
    const len = varint(bytes, afterTag, bytes.length);
    const start = after;
    const read = start - afterTag;
    if (read !== varintLength(len)) {
      throw new UnknownFieldError(`length prefix varint for tagNum ${num} is not as short as possible, read ${read}, only need ${varintLength(len)}`);
    }
    pos = start + len;
    if (pos > bytes.length) throw malformed();
  }
}
