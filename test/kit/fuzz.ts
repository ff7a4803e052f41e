// Fuzz settings shared by every property in test/fuzz/: `npm test` runs each property on a fixed seed
// with its own bounded count; `npm run fuzz` (scripts/fuzz.mjs) sets FUZZ_SEED to a random seed and
// FUZZ_SCALE to a larger multiple, and reruns until its time is up.
import type { Parameters } from 'fast-check';

/** The seed CI runs with: a failure found by CI reproduces with `npm test -- test/fuzz`. */
export const CI_SEED = 22;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** This run's seed (FUZZ_SEED, else CI_SEED). */
export function fuzzSeed(): number {
  return envInt('FUZZ_SEED', CI_SEED);
}

/**
 * fast-check parameters for one property: `runs` cases in CI, `runs × FUZZ_SCALE` under `npm run fuzz`.
 * On a failure fast-check's error names the seed and the shrunk counterexample; turn it into a fixed
 * regression test beside the property.
 */
export function fuzzParameters<T>(runs: number): Parameters<T> {
  return { seed: fuzzSeed(), numRuns: runs * Math.max(1, envInt('FUZZ_SCALE', 1)) };
}

/** The protobuf varint of `v`: minimal, or padded with continuation bytes to `width` bytes (non-minimal, up to 10 and beyond). */
export function varintBytes(v: bigint, width = 0): number[] {
  const out: number[] = [];
  let x = v;
  do {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  } while (x > 0n);
  while (out.length < width) out.push(0x80);
  out[out.length - 1] &= 0x7f;
  return out;
}
