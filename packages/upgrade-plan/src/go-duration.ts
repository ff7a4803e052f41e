// Durations as Go's time.ParseDuration reads them ("300ms", "1m30s", "1.5h", "-2s"), the form of CometBFT's,
// the Cosmos SDK's and cosmovisor's settings, so a value copied from their configs means the same here.
// The grammar and arithmetic follow Go's src/time/format.go: a signed int64 of nanoseconds, fractions
// truncated; the one difference is noted at MAX_GO_DURATION_NS.

/** Nanoseconds per unit, as Go's unitMap: "µs" is U+00B5 (micro sign), "μs" U+03BC (Greek mu). */
const UNIT_NS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

/** 2^63: the magnitude of the most negative duration, the bound Go checks each step against. */
const TWO_63 = 1n << 63n;

/**
 * The longest duration, 2^63-1 ns (2562047h47m16.854775807s). Go's sum of parts wraps past 2^64, so it reads
 * "9223372036854775808ns9223372036854775808ns" as 0; here any sum past the range is refused.
 */
export const MAX_GO_DURATION_NS: bigint = TWO_63 - 1n;

/** A duration in whole nanoseconds, or why the text is not one. */
export type ParsedGoDuration = { readonly ok: true; readonly ns: bigint } | { readonly ok: false; readonly problem: string };

const isDigit = (c: string): boolean => c >= '0' && c <= '9';

/**
 * Go's time.ParseDuration: an optional sign, then "0" alone or one or more decimal numbers with an optional
 * fraction (".5", "1.", "1.5"), each followed by a unit (ns us µs μs ms s m h). A sign is read as Go reads
 * it: refusing a negative value is the caller's rule. Problems are Go's reasons without its "time: " prefix.
 */
export function parseGoDuration(text: string): ParsedGoDuration {
  const invalid = { ok: false, problem: 'invalid duration' } as const;
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, ns: 0n };
  if (s === '') return invalid;
  let total = 0n;
  let i = 0;
  while (i < s.length) {
    if (!(s[i] === '.' || isDigit(s[i]))) return invalid;
    // the whole part: past 2^63 it is refused outright
    const wholeAt = i;
    let whole = 0n;
    while (i < s.length && isDigit(s[i])) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > TWO_63) return invalid;
      i++;
    }
    const hasWhole = i > wholeAt;
    // the fraction: digits past what an int64 holds are read but add no precision, as in Go
    let fraction = 0n;
    let scale = 1;
    let hasFraction = false;
    if (s[i] === '.') {
      i++;
      const fractionAt = i;
      let full = false;
      while (i < s.length && isDigit(s[i])) {
        if (!full) {
          const next = fraction * 10n + BigInt(s.charCodeAt(i) - 48);
          if (fraction > MAX_GO_DURATION_NS / 10n || next > TWO_63) full = true;
          else {
            fraction = next;
            scale *= 10;
          }
        }
        i++;
      }
      hasFraction = i > fractionAt;
    }
    if (!hasWhole && !hasFraction) return invalid;
    // the unit: everything up to the next digit or period
    const unitAt = i;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    if (i === unitAt) return { ok: false, problem: 'missing unit in duration' };
    const unitText = s.slice(unitAt, i);
    const unit = UNIT_NS.get(unitText);
    if (unit === undefined) return { ok: false, problem: `unknown unit ${JSON.stringify(unitText)} in duration` };
    if (whole > TWO_63 / unit) return invalid;
    let part = whole * unit;
    // Go computes the fraction's nanoseconds in float64 (exact to the nanosecond for fractions of an hour) and truncates
    if (fraction > 0n) part += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
    if (part > TWO_63) return invalid;
    total += part;
    if (total > TWO_63) return invalid;
  }
  if (negative) return { ok: true, ns: -total };
  if (total > MAX_GO_DURATION_NS) return invalid;
  return { ok: true, ns: total };
}

const FORMAT_UNITS: readonly (readonly [string, bigint])[] = [
  ['h', 3_600_000_000_000n],
  ['m', 60_000_000_000n],
  ['s', 1_000_000_000n],
  ['ms', 1_000_000n],
  ['us', 1_000n],
  ['ns', 1n],
];

/**
 * A duration unit by unit, zero units left out ("1m30s", "1s500ms", "1ms250us", "0s"): what chaind writes
 * into config files, readable by eye and by Go; parseGoDuration reads it back to the same nanoseconds.
 */
export function formatGoDuration(ns: bigint): string {
  let rest = ns < 0n ? -ns : ns;
  let out = '';
  for (const [unit, size] of FORMAT_UNITS) {
    const n = rest / size;
    if (n > 0n) out += `${n}${unit}`;
    rest -= n * size;
  }
  if (out === '') return '0s';
  return ns < 0n ? `-${out}` : out;
}

/**
 * Nanoseconds as the milliseconds the settings hold (a fraction below 1 ms kept): whole milliseconds exactly;
 * otherwise durationNs reads the value back to the same nanoseconds up to 2^51 ns (26 days).
 */
export function durationMs(ns: bigint): number {
  return ns % 1_000_000n === 0n ? Number(ns / 1_000_000n) : Number(ns) / 1e6;
}

/** Milliseconds (as durationMs gives them) as whole nanoseconds, for formatGoDuration. */
export function durationNs(ms: number): bigint {
  return Number.isInteger(ms) ? BigInt(ms) * 1_000_000n : BigInt(Math.round(ms * 1e6));
}
