import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatGoLayout, TIME_LAYOUTS, type WallTime } from './log-time.ts';

/**
 * Expected strings written by hand from Go's layouts (time package constants). Go's layouts are its reference
 * time, Mon Jan 2 15:04:05 MST 2006 (-0700), written in that layout: formatting that instant gives the layout
 * back, except `_2` (space-padded day: " 2"), `.999999999` (trailing zeros dropped: nothing for 0 ns) and
 * `Z07:00` ("Z" only at UTC: "-07:00"). The other two instants apply the same rules by hand.
 */
const fmt = (t: WallTime): Record<string, string> => Object.fromEntries(Object.entries(TIME_LAYOUTS).map(([k, l]) => [k, formatGoLayout(l, t)]));

describe('COSMOVISOR_TIMEFORMAT_LOGS layouts', () => {
  test("Go's reference time reproduces each layout", () => {
    const ref: WallTime = { year: 2006, month: 1, day: 2, weekday: 1, hour: 15, minute: 4, second: 5, millisecond: 0, offsetMinutes: -420, zone: 'MST' };
    assert.deepEqual(fmt(ref), {
      layout: "01/02 03:04:05PM '06 -0700",
      ansic: 'Mon Jan  2 15:04:05 2006',
      unixdate: 'Mon Jan  2 15:04:05 MST 2006',
      rubydate: 'Mon Jan 02 15:04:05 -0700 2006',
      rfc822: '02 Jan 06 15:04 MST',
      rfc822z: '02 Jan 06 15:04 -0700',
      rfc850: 'Monday, 02-Jan-06 15:04:05 MST',
      rfc1123: 'Mon, 02 Jan 2006 15:04:05 MST',
      rfc1123z: 'Mon, 02 Jan 2006 15:04:05 -0700',
      rfc3339: '2006-01-02T15:04:05-07:00',
      rfc3339nano: '2006-01-02T15:04:05-07:00',
      kitchen: '3:04PM',
      datetime: '2006-01-02 15:04:05',
      timeonly: '15:04:05',
    });
  });

  test('a morning at UTC: two-digit day, AM, Z, a trimmed fraction', () => {
    const t: WallTime = { year: 2026, month: 11, day: 24, weekday: 2, hour: 9, minute: 7, second: 8, millisecond: 120, offsetMinutes: 0, zone: 'UTC' };
    assert.deepEqual(fmt(t), {
      layout: "11/24 09:07:08AM '26 +0000",
      ansic: 'Tue Nov 24 09:07:08 2026',
      unixdate: 'Tue Nov 24 09:07:08 UTC 2026',
      rubydate: 'Tue Nov 24 09:07:08 +0000 2026',
      rfc822: '24 Nov 26 09:07 UTC',
      rfc822z: '24 Nov 26 09:07 +0000',
      rfc850: 'Tuesday, 24-Nov-26 09:07:08 UTC',
      rfc1123: 'Tue, 24 Nov 2026 09:07:08 UTC',
      rfc1123z: 'Tue, 24 Nov 2026 09:07:08 +0000',
      rfc3339: '2026-11-24T09:07:08Z',
      rfc3339nano: '2026-11-24T09:07:08.12Z',
      kitchen: '9:07AM',
      datetime: '2026-11-24 09:07:08',
      timeonly: '09:07:08',
    });
  });

  test('just after midnight at +05:30 with no zone abbreviation: 12 AM, and MST printed as +0530 (Go does the same)', () => {
    const t: WallTime = { year: 2026, month: 3, day: 7, weekday: 6, hour: 0, minute: 30, second: 0, millisecond: 500, offsetMinutes: 330, zone: '' };
    assert.deepEqual(fmt(t), {
      layout: "03/07 12:30:00AM '26 +0530",
      ansic: 'Sat Mar  7 00:30:00 2026',
      unixdate: 'Sat Mar  7 00:30:00 +0530 2026',
      rubydate: 'Sat Mar 07 00:30:00 +0530 2026',
      rfc822: '07 Mar 26 00:30 +0530',
      rfc822z: '07 Mar 26 00:30 +0530',
      rfc850: 'Saturday, 07-Mar-26 00:30:00 +0530',
      rfc1123: 'Sat, 07 Mar 2026 00:30:00 +0530',
      rfc1123z: 'Sat, 07 Mar 2026 00:30:00 +0530',
      rfc3339: '2026-03-07T00:30:00+05:30',
      rfc3339nano: '2026-03-07T00:30:00.5+05:30',
      kitchen: '12:30AM',
      datetime: '2026-03-07 00:30:00',
      timeonly: '00:30:00',
    });
  });
});
