// Durations as Go's time.ParseDuration writes them ("1s", "500ms", "1m30s", "1.5s"), the form CometBFT's
// and Cosmos' TOML files use, so a value copied from their configs means the same here.

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Milliseconds (possibly fractional) of a Go duration string; undefined when it is not one. "0" is zero, as in Go. */
export function parseDuration(s: string): number | undefined {
  if (s === '0') return 0;
  // a sign is legal in Go, but no configured interval may be negative, so none is accepted
  if (s.length === 0) return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (m === null || m.index !== at) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]];
  }
  return Number.isFinite(ms) ? ms : undefined;
}

/** Go's unit-by-unit form, zero units left out ("1m30s", "1s500ms"); parseDuration reads it back to the same value. */
export function formatDuration(ms: number): string {
  if (!Number.isInteger(ms)) return `${Math.round(ms * 1e6)}ns`;
  let rest = ms;
  let out = '';
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out === '' ? '0s' : out;
}
