// RFC 3339 times to and from protobuf Timestamps: parsed as CometBFT reads genesis_time, formatted in
// the three forms the node's interfaces use (Go's RFC3339Nano and RFC3339, protobuf JSON).
// Calendar arithmetic is integer-only (no Date, no clock): days-from-civil and back (H. Hinnant).
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';

/** protobuf Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const MIN_SECONDS = -62135596800n;
const MAX_SECONDS = 253402300799n;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

const floorDiv = (a: number, b: number): number => Math.floor(a / b);

function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const doy = floorDiv(153 * (m + (m > 2 ? -3 : 9)) + 2, 5) + d - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  const zz = z + 719468;
  const era = floorDiv(zz, 146097);
  const doe = zz - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const mp = floorDiv(5 * doy + 2, 153);
  const d = doy - floorDiv(153 * mp + 2, 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const daysInMonth = (y: number, m: number): number =>
  m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

/** Whether `s` is written as an RFC 3339 time (digits and separators in place), valid or not. */
export function hasRFC3339Form(s: string): boolean {
  return RFC3339.test(s);
}

/** Parses an RFC 3339 time with up to nanosecond precision and a Z or ±hh:mm offset; undefined when it is not one. */
export function parseRFC3339(s: string): Timestamp | undefined {
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || se > 59) return undefined;
  let offset = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[8].slice(1, 3));
    const om = Number(m[8].slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offset = (m[8][0] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + se - offset);
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) return undefined;
  return { seconds, nanos: m[7] === undefined ? 0 : Number(m[7].padEnd(9, '0')) };
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/**
 * How a time's fraction of a second is written:
 *   'nano'  Go's RFC3339Nano: up to 9 digits, trailing zeros dropped (CometBFT's JSON, genesis_time)
 *   'proto' protobuf JSON: 0, 3, 6 or 9 digits (protojson, the gRPC gateway)
 *   'none'  Go's RFC3339: whole seconds, the fraction left out (the SDK's TxResponse.timestamp)
 */
export type SecondsFraction = 'nano' | 'proto' | 'none';

function fraction(nanos: number, style: SecondsFraction): string {
  if (nanos === 0 || style === 'none') return '';
  const nine = pad(nanos, 9);
  if (style === 'nano') return `.${nine.replace(/0+$/, '')}`;
  return `.${nine.endsWith('000000') ? nine.slice(0, 3) : nine.endsWith('000') ? nine.slice(0, 6) : nine}`;
}

/** A Timestamp as RFC 3339 in UTC ("2006-01-02T15:04:05Z", the fraction as `style` says); RangeError outside its range. */
export function formatRFC3339(t: Timestamp, style: SecondsFraction = 'nano'): string {
  if (t.seconds < MIN_SECONDS || t.seconds > MAX_SECONDS || !Number.isInteger(t.nanos) || t.nanos < 0 || t.nanos > 999_999_999) {
    throw new RangeError(`timestamp out of range: ${t.seconds}s ${t.nanos}ns`);
  }
  const days = Number(t.seconds >= 0n ? t.seconds / 86400n : -((-t.seconds + 86399n) / 86400n));
  const rest = Number(t.seconds - BigInt(days) * 86400n);
  const [y, mo, d] = civilFromDays(days);
  return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(Math.floor(rest / 3600), 2)}:${pad(Math.floor(rest / 60) % 60, 2)}:${pad(rest % 60, 2)}${fraction(t.nanos, style)}Z`;
}
