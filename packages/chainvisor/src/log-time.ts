/**
 * COSMOVISOR_TIMEFORMAT_LOGS: the layout names cosmovisor accepts, each mapped to Go's time-package constant
 * (copied verbatim), rendered by a small interpreter of the Go layout tokens those constants use.
 */

/** A wall-clock instant broken into the fields Go's layouts print. */
export interface WallTime {
  readonly year: number;
  /** 1-12 */
  readonly month: number;
  readonly day: number;
  /** 0 = Sunday */
  readonly weekday: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
  /** minutes east of UTC */
  readonly offsetMinutes: number;
  /** the zone's abbreviation (`UTC`, `CET`), or '' when none is known (Go then prints -0700 style) */
  readonly zone: string;
}

/** cosmovisor's names (args.go getTimeFormatOption) → Go's layouts; plus our `datetime` and `timeonly`. */
export const TIME_LAYOUTS: Readonly<Record<string, string>> = {
  layout: "01/02 03:04:05PM '06 -0700",
  ansic: 'Mon Jan _2 15:04:05 2006',
  unixdate: 'Mon Jan _2 15:04:05 MST 2006',
  rubydate: 'Mon Jan 02 15:04:05 -0700 2006',
  rfc822: '02 Jan 06 15:04 MST',
  rfc822z: '02 Jan 06 15:04 -0700',
  rfc850: 'Monday, 02-Jan-06 15:04:05 MST',
  rfc1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  rfc1123z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  rfc3339: '2006-01-02T15:04:05Z07:00',
  rfc3339nano: '2006-01-02T15:04:05.999999999Z07:00',
  kitchen: '3:04PM',
  datetime: '2006-01-02 15:04:05',
  timeonly: '15:04:05',
};

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const hour12 = (h: number): number => ((h + 11) % 12) + 1;

function numericZone(off: number, colon: boolean): string {
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}${colon ? ':' : ''}${pad(a % 60)}`;
}

/** Go's layout tokens used by the layouts above; longer ones first so `Monday` wins over `Mon`. */
const TOKENS: readonly (readonly [string, (t: WallTime) => string])[] = [
  ['Monday', (t) => DAYS[t.weekday]],
  ['Mon', (t) => DAYS[t.weekday].slice(0, 3)],
  ['Jan', (t) => MONTHS[t.month - 1]],
  ['2006', (t) => pad(t.year, 4)],
  ['Z07:00', (t) => (t.offsetMinutes === 0 ? 'Z' : numericZone(t.offsetMinutes, true))],
  ['-0700', (t) => numericZone(t.offsetMinutes, false)],
  // .999…: the fraction without trailing zeros, and no dot at all when it is zero
  ['.999999999', (t) => (t.millisecond === 0 ? '' : `.${pad(t.millisecond, 3).replace(/0+$/, '')}`)],
  ['MST', (t) => (t.zone !== '' ? t.zone : numericZone(t.offsetMinutes, false))],
  ['PM', (t) => (t.hour < 12 ? 'AM' : 'PM')],
  ['_2', (t) => String(t.day).padStart(2, ' ')],
  ['06', (t) => pad(t.year % 100)],
  ['01', (t) => pad(t.month)],
  ['02', (t) => pad(t.day)],
  ['15', (t) => pad(t.hour)],
  ['03', (t) => pad(hour12(t.hour))],
  ['04', (t) => pad(t.minute)],
  ['05', (t) => pad(t.second)],
  ['3', (t) => String(hour12(t.hour))],
];

/** Formats `t` with a Go layout made of the tokens above; anything else is copied as is. */
export function formatGoLayout(layout: string, t: WallTime): string {
  let out = '';
  let i = 0;
  while (i < layout.length) {
    const tok = TOKENS.find(([k]) => layout.startsWith(k, i));
    if (tok === undefined) out += layout[i++];
    else {
      out += tok[1](t);
      i += tok[0].length;
    }
  }
  return out;
}

/** `d` in the process's local time zone (TZ), as Go's time.Local would show it. */
export function localWallTime(d: Date): WallTime {
  const offsetMinutes = -d.getTimezoneOffset();
  const name = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? '';
  // a real abbreviation (UTC, GMT, CET, EST); ICU's fallbacks such as GMT+5:30 become Go's -0700 form instead
  const zone = /^[A-Z]{2,5}$/.test(name) ? name : '';
  return {
    year: d.getFullYear(),
    month: d.getMonth() + 1,
    day: d.getDate(),
    weekday: d.getDay(),
    hour: d.getHours(),
    minute: d.getMinutes(),
    second: d.getSeconds(),
    millisecond: d.getMilliseconds(),
    offsetMinutes,
    zone,
  };
}
