// sdk.LegacyDec arithmetic on bigint numerators over 10^18: the rounding of the SDK's Mul and Quo
// (banker's rounding of the 19th digit), so a tally decides exactly as a Go node would.
import { DEC_ONE, decToString, parseDec } from '../../types/coins.ts';

export { DEC_ONE, decToString };

const HALF = DEC_ONE / 2n;

/** LegacyDec's chopPrecisionAndRound for a non-negative value: drop 18 digits, round half to even. */
function chop(x: bigint): bigint {
  const q = x / DEC_ONE;
  const r = x % DEC_ONE;
  if (r < HALF) return q;
  if (r > HALF) return q + 1n;
  return q % 2n === 0n ? q : q + 1n;
}

/** a × b, as LegacyDec.Mul; both non-negative. */
export function decMul(a: bigint, b: bigint): bigint {
  return chop(a * b);
}

/** a ÷ b, as LegacyDec.Quo: truncated to 36 digits, then rounded to 18; both non-negative, b > 0. */
export function decQuo(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new RangeError('decimal division by zero');
  return chop((a * DEC_ONE * DEC_ONE) / b);
}

/** An integer as a decimal numerator. */
export const decFromInt = (n: bigint): bigint => n * DEC_ONE;

/** LegacyDec.TruncateInt. */
export const decTruncate = (d: bigint): bigint => d / DEC_ONE;

/** A decimal string ("0.5", "0.500000000000000000") → numerator, or undefined when it is not one. */
export function tryParseDec(s: string): bigint | undefined {
  try {
    return parseDec(s);
  } catch {
    return undefined;
  }
}
