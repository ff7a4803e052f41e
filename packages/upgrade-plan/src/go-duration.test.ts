import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { durationMs, durationNs, formatGoDuration, MAX_GO_DURATION_NS, parseGoDuration } from './go-duration.ts';

const S = 1_000_000_000n;
const H = 3600n * S;
const MIN_NS = -(1n << 63n);

describe("Go's time.ParseDuration", () => {
  // each expected value worked out by hand from src/time/format.go (ParseDuration, leadingInt,
  // leadingFraction, unitMap) and the examples in Go's documentation of the time package
  const valid: [string, bigint][] = [
    ['1h2m3.5s', H + 2n * 60n * S + 3_500_000_000n],
    ['1h15m30.918273645s', 4_530_918_273_645n],
    ['2h45m', 9900n * S],
    ['1.5h', 5400n * S],
    ['300ms', 300_000_000n],
    ['1.5\u00b5s', 1500n], // U+00B5 micro sign
    ['1.5\u03bcs', 1500n], // U+03BC Greek mu
    ['2us', 2000n],
    ['.5s', 500_000_000n],
    ['1.s', S],
    ['0', 0n],
    ['+0', 0n],
    ['-0', 0n],
    ['0s', 0n],
    ['-1s', -S],
    ['+1s', S],
    ['-1.5h', -5400n * S],
    ['1s1s', 2n * S],
    ['0.1ns', 0n], // a fraction of a nanosecond is truncated
    ['1.9ns', 1n],
    ['0.3333333333h', 1_199_999_999_880n], // 3333333333 × 3.6e12 / 1e10, exact in float64
    ['9223372036854775807ns', MAX_GO_DURATION_NS],
    ['-9223372036854775808ns', MIN_NS],
    ['2562047h', 2562047n * H],
    ['2562047h47m16.854775807s', MAX_GO_DURATION_NS],
  ];
  const invalid: [string, string][] = [
    ['1', 'missing unit in duration'],
    ['1m1', 'missing unit in duration'],
    ['s', 'invalid duration'],
    ['', 'invalid duration'],
    ['-', 'invalid duration'],
    ['.', 'invalid duration'],
    ['.s', 'invalid duration'],
    ['-.s', 'invalid duration'],
    ['--1s', 'invalid duration'],
    ['1d', 'unknown unit "d" in duration'],
    ['1S', 'unknown unit "S" in duration'],
    ['1 s', 'unknown unit " s" in duration'],
    ['1e3ms', 'unknown unit "e" in duration'],
    ['9223372036854775808ns', 'invalid duration'],
    ['2562048h', 'invalid duration'],
    ['2562047h47m16.854775808s', 'invalid duration'],
    ['-9223372036854775809ns', 'invalid duration'],
    ['99999999999999999999ns', 'invalid duration'],
    // Go wraps this sum past 2^64 to 0 and accepts it; refused here
    ['9223372036854775808ns9223372036854775808ns', 'invalid duration'],
  ];

  test('the grammar and arithmetic of Go, whole nanoseconds, fractions truncated', () => {
    for (const [s, ns] of valid) assert.deepEqual(parseGoDuration(s), { ok: true, ns }, s);
  });

  test("what Go refuses, with Go's reason", () => {
    for (const [s, problem] of invalid) assert.deepEqual(parseGoDuration(s), { ok: false, problem }, s);
  });

  test('formatGoDuration writes unit by unit, zero units left out', () => {
    assert.equal(formatGoDuration(0n), '0s');
    assert.equal(formatGoDuration(1500n * 1_000_000n), '1s500ms');
    assert.equal(formatGoDuration(90n * S), '1m30s');
    assert.equal(formatGoDuration(H), '1h');
    assert.equal(formatGoDuration(1_250_000n), '1ms250us');
    assert.equal(formatGoDuration(-S), '-1s');
    assert.equal(formatGoDuration(MAX_GO_DURATION_NS), '2562047h47m16s854ms775us807ns');
  });

  test('property: every int64 of nanoseconds, formatted, reads back the same', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: MIN_NS, max: MAX_GO_DURATION_NS }), fc.bigInt({ min: -10n * H, max: 10n * H })), (ns) => {
        assert.deepEqual(parseGoDuration(formatGoDuration(ns)), { ok: true, ns });
      }),
      { numRuns: 2000 },
    );
  });

  test('property: Go\'s own seconds-with-fraction form ("16.854775807s") reads back the same', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_GO_DURATION_NS }), (ns) => {
        const text = `${ns / S}.${String(ns % S).padStart(9, '0')}s`;
        assert.deepEqual(parseGoDuration(text), { ok: true, ns });
      }),
      { numRuns: 1000 },
    );
  });

  test('property: milliseconds as settings hold them go back to the same nanoseconds and text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 51n }), (ns) => {
        assert.equal(durationNs(durationMs(ns)), ns);
        assert.deepEqual(parseGoDuration(formatGoDuration(durationNs(durationMs(ns)))), { ok: true, ns });
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number(MAX_GO_DURATION_NS / 1_000_000n) }), (ms) => {
        assert.equal(durationMs(durationNs(ms)), ms);
      }),
    );
  });
});
