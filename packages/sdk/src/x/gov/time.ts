// Timestamps and durations as gov uses them: exact bigint seconds plus nanos (never floats, never the
// clock), their protobuf JSON forms, and the sortable byte form of the SDK's collections time keys.
import { ChaindError } from '@chaind/errors';
import type { Duration } from 'cosmjs-types/google/protobuf/duration';
import type { Timestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { formatRFC3339, hasRFC3339Form, parseRFC3339 } from '../../types/time.ts';

export type { Duration, Timestamp };

const NANOS = 1_000_000_000n;
/** google.protobuf.Timestamp's valid range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

export class TimeError extends ChaindError<'time'> {
  override readonly name = 'TimeError';
  constructor(message: string, options?: ErrorOptions) {
    super('time', message, options);
  }
}

const totalNanos = (t: { seconds: bigint; nanos: number }): bigint => t.seconds * NANOS + BigInt(t.nanos);

function fromNanos(n: bigint): Timestamp {
  // floor division so nanos stays in [0, 1e9) for times before 1970 too
  let seconds = n / NANOS;
  let nanos = n % NANOS;
  if (nanos < 0n) {
    nanos += NANOS;
    seconds -= 1n;
  }
  return { seconds, nanos: Number(nanos) };
}

export function compareTime(a: Timestamp, b: Timestamp): number {
  const d = totalNanos(a) - totalNanos(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export function isValidTimestamp(t: Timestamp): boolean {
  return t.seconds >= MIN_SECONDS && t.seconds <= MAX_SECONDS && Number.isInteger(t.nanos) && t.nanos >= 0 && t.nanos < 1e9;
}

/** t + d; a result outside the Timestamp range is an error (its key would not sort). */
export function addDuration(t: Timestamp, d: Duration): Timestamp {
  const r = fromNanos(totalNanos(t) + totalNanos(d));
  if (!isValidTimestamp(r)) throw new TimeError(`time ${timestampToJSON(t)} plus ${durationToJSON(d)} is beyond year 9999`);
  return r;
}

export function isPositiveDuration(d: Duration): boolean {
  return totalNanos(d) > 0n;
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

function assertValid(t: Timestamp): void {
  if (!isValidTimestamp(t)) throw new TimeError(`timestamp ${t.seconds}s ${t.nanos}ns is outside 0001-01-01..9999-12-31`);
}

function utcParts(t: Timestamp): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  assertValid(t);
  // whole milliseconds well inside 2^53: exact
  const date = new Date(Number(t.seconds) * 1000);
  return {
    y: date.getUTCFullYear(),
    mo: date.getUTCMonth() + 1,
    d: date.getUTCDate(),
    h: date.getUTCHours(),
    mi: date.getUTCMinutes(),
    s: date.getUTCSeconds(),
  };
}

/**
 * The SDK's sdk.FormatTimeBytes ("2006-01-02T15:04:05.000000000", 29 bytes): fixed width, so byte
 * order is time order; the collections time key of gov's proposal queues.
 */
export function sortableTime(t: Timestamp): string {
  const p = utcParts(t);
  return `${pad(p.y, 4)}-${pad(p.mo, 2)}-${pad(p.d, 2)}T${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}.${pad(t.nanos, 9)}`;
}

/** Protobuf JSON (RFC 3339, "Z", 0/3/6/9 fractional digits), as protojson writes it. */
export function timestampToJSON(t: Timestamp): string {
  assertValid(t);
  return formatRFC3339(t, 'proto');
}

/** Parses an RFC 3339 timestamp (any offset) into a Timestamp; throws TimeError naming the input. */
export function timestampFromJSON(s: string): Timestamp {
  const t = parseRFC3339(s);
  if (t !== undefined) return t;
  const shown = `"${s.slice(0, 64)}"`;
  throw new TimeError(hasRFC3339Form(s) ? `${shown} is not a valid date and time in 0001-01-01..9999-12-31` : `${shown} is not an RFC 3339 timestamp`);
}

/** Protobuf JSON of a Duration: "172800s", "1.5s", "-0.000000001s". */
export function durationToJSON(d: Duration): string {
  const n = totalNanos(d);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const whole = abs / NANOS;
  const frac = abs % NANOS;
  let f = '';
  if (frac !== 0n) {
    const nine = frac.toString().padStart(9, '0');
    f = `.${nine.endsWith('000000') ? nine.slice(0, 3) : nine.endsWith('000') ? nine.slice(0, 6) : nine}`;
  }
  return `${neg ? '-' : ''}${whole}${f}s`;
}

/** google.protobuf.Duration's range: ±10,000 years. */
const MAX_DURATION_SECONDS = 315_576_000_000n;

/** Parses "<seconds>[.<up to 9 digits>]s"; throws TimeError naming the input. */
export function durationFromJSON(s: string): Duration {
  const m = /^(-)?(\d{1,12})(?:\.(\d{1,9}))?s$/.exec(s);
  if (m === null) throw new TimeError(`"${s.slice(0, 64)}" is not a duration such as "172800s"`);
  const seconds = BigInt(m[2]);
  if (seconds > MAX_DURATION_SECONDS) throw new TimeError(`duration "${s}" exceeds 10000 years`);
  const nanos = Number((m[3] ?? '').padEnd(9, '0'));
  return m[1] === '-' ? { seconds: -seconds, nanos: -nanos } : { seconds, nanos };
}
