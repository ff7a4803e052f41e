// Input quoted in an error message: one line, and short enough to read in a log. A plan, a file or a URL
// may hold megabytes or newlines; the message names the value, it does not reproduce it.

/** The longest piece of input a message shows, in characters; the middle of a longer one is left out. */
export const MAX_QUOTED = 200;

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g; // eslint-disable-line no-control-regex

function elide(s: string, max: number): string {
  if (s.length <= max) return s;
  const half = Math.floor((max - 1) / 2);
  return `${s.slice(0, half)}…${s.slice(s.length - half)} (${s.length} characters)`;
}

/** Text for a message, as is but on one line (control characters escaped) and at most MAX_QUOTED characters. */
export function clip(text: string, max: number = MAX_QUOTED): string {
  return elide(
    text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    max,
  );
}

/** A value in JSON form for a message (`"v2"`, `12`, `null`), elided like clip. */
export function quote(value: unknown, max: number = MAX_QUOTED): string {
  return clip(JSON.stringify(value) ?? String(value), max);
}
