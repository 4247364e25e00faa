// Time zone and schedule arithmetic (src/util/tz.ts, src/schedule/calendar.ts): POSIX
// TZ strings held to the IANA database's answers (Node's Intl) over random
// instants, skipped and repeated local times at daylight-saving changes, and
// daily, weekly and interval runs across day, week, year and DST boundaries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeSchedule, latestAtOrBefore, nextAfter, parseSchedule, type Schedule } from '../../../src/schedule/calendar.ts';
import { formatLocal, fromLocal, offsetAt, parseTz, toLocal, type TimeZone } from '../../../src/util/tz.ts';
import { daysFromCivil } from '../../../src/util/civil.ts';
import { ianaOffset, ianaTransitions } from '../../support/iana.ts';

function tz(text: string): TimeZone {
  const r = parseTz(text);
  if (!r.ok) throw new Error(r.error);
  return r.tz;
}

function sched(input: unknown): Schedule {
  const r = parseSchedule(input);
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
}

const ZONES: Array<[string, string]> = [
  ['Europe/Berlin', 'CET-1CEST,M3.5.0,M10.5.0/3'],
  ['Europe/London', 'GMT0BST,M3.5.0/1,M10.5.0'],
  ['America/New_York', 'EST5EDT,M3.2.0,M11.1.0'],
  ['America/Los_Angeles', 'PST8PDT,M3.2.0,M11.1.0'],
  ['Australia/Sydney', 'AEST-10AEDT,M10.1.0,M4.1.0/3'],
  ['Pacific/Auckland', 'NZST-12NZDT,M9.5.0,M4.1.0/3'],
  ['Pacific/Chatham', '<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45'],
  ['Asia/Kolkata', 'IST-5:30'],
  ['Asia/Tokyo', 'JST-9'],
  ['America/Sao_Paulo', '<-03>3'],
  ['America/St_Johns', 'NST3:30NDT,M3.2.0,M11.1.0'],
  ['UTC', 'UTC0'],
];

const at = (y: number, mo: number, d: number, h = 0, mi = 0): number => Date.UTC(y, mo - 1, d, h, mi);

// Generous: tests must not fail because a shared machine is slow.
describe('POSIX time zones', { timeout: 30_000 }, () => {
  it('agree with the IANA database on the UTC offset at every change and at random instants from 2024 to 2031', () => {
    for (const [zone, text] of ZONES) {
      const z = tz(text);
      // Every change of offset, to the second (a change an hour off would slip between random instants).
      for (const t of ianaTransitions(zone, at(2024, 1, 1), at(2031, 12, 31))) {
        expect(offsetAt(z, t - 1000), `${zone} just before ${new Date(t).toISOString()}`).toBe(ianaOffset(zone, t - 1000));
        expect(offsetAt(z, t), `${zone} at ${new Date(t).toISOString()}`).toBe(ianaOffset(zone, t));
      }
      fc.assert(
        fc.property(fc.integer({ min: at(2024, 1, 1), max: at(2031, 12, 31) }), (ms) => {
          expect(offsetAt(z, ms), `${zone} at ${new Date(ms).toISOString()}`).toBe(ianaOffset(zone, ms));
        }),
        { numRuns: 400 },
      );
    }
  });

  it('change offset at the very second the IANA database does', () => {
    const berlin = tz('CET-1CEST,M3.5.0,M10.5.0/3');
    // 2026: spring forward 29 March 01:00 UTC, fall back 25 October 01:00 UTC.
    expect(offsetAt(berlin, at(2026, 3, 29, 1) - 1)).toBe(3600);
    expect(offsetAt(berlin, at(2026, 3, 29, 1))).toBe(7200);
    expect(offsetAt(berlin, at(2026, 10, 25, 1) - 1)).toBe(7200);
    expect(offsetAt(berlin, at(2026, 10, 25, 1))).toBe(3600);
    const sydney = tz('AEST-10AEDT,M10.1.0,M4.1.0/3');
    // Southern hemisphere: summer time wraps the new year.
    expect(offsetAt(sydney, at(2026, 1, 15))).toBe(11 * 3600);
    expect(offsetAt(sydney, at(2026, 7, 15))).toBe(10 * 3600);
    expect(offsetAt(sydney, at(2026, 12, 31, 23))).toBe(11 * 3600);
  });

  it('read Jn (February 29 never counted) and n (counted) day rules', () => {
    // Summer time from day 60 to day 300: J60 is 1 March every year; 59 is 29 February in a leap year.
    const j = tz('AAA0BBB,J60/0,J300/0');
    expect(offsetAt(j, at(2028, 2, 29, 12))).toBe(0);
    expect(offsetAt(j, at(2028, 3, 1, 0, 30))).toBe(3600);
    const n = tz('AAA0BBB,59/0,300/0');
    expect(offsetAt(n, at(2028, 2, 29, 0, 30))).toBe(3600);
    expect(offsetAt(n, at(2027, 2, 28, 23, 30))).toBe(0);
    expect(offsetAt(n, at(2027, 3, 1, 0, 30))).toBe(3600);
  });

  it('refuse malformed strings with a reason, and read empty, UTC and GMT as UTC', () => {
    for (const bad of ['CET', 'C-1', 'CET-25', 'CET-1CEST,M13.5.0,M10.5.0', 'CET-1CEST,M3.6.0,M10.5.0', 'CET-1CEST,M3.5.7,M10.5.0', 'CET-1CEST,M3.5.0', 'CET-1CEST,M3.5.0,M10.5.0/200', 'CET-1CEST;', 'Europe/Berlin', `${'A'.repeat(70)}0`]) {
      const r = parseTz(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/POSIX time zone|at most 64/);
    }
    for (const utc of ['', '  ', 'UTC', 'GMT', 'UTC0']) expect(offsetAt(tz(utc), at(2026, 7, 1))).toBe(0);
    // dst without rules takes the US rule; a dst offset may be given.
    expect(offsetAt(tz('EST5EDT'), at(2026, 7, 1))).toBe(-4 * 3600);
    expect(offsetAt(tz('AAA3BBB1,M3.2.0,M11.1.0'), at(2026, 7, 1))).toBe(-3600);
  });

  it('map a local time skipped by spring-forward to as far after the change as it was into the gap, and a repeated one to its first occurrence', () => {
    const berlin = tz('CET-1CEST,M3.5.0,M10.5.0/3');
    const springDay = daysFromCivil(2026, 3, 29);
    // 02:30 does not exist on 29 March 2026: read with CET (before the change) it is 01:30 UTC = 03:30 CEST.
    expect(fromLocal(berlin, springDay, 150)).toBe(at(2026, 3, 29, 1, 30));
    expect(formatLocal(berlin, fromLocal(berlin, springDay, 150))).toBe('Sun 2026-03-29 03:30 CEST');
    expect(fromLocal(berlin, springDay, 90)).toBe(at(2026, 3, 29, 0, 30));
    const fallDay = daysFromCivil(2026, 10, 25);
    // 02:30 happens twice on 25 October 2026 (00:30 UTC in CEST, 01:30 UTC in CET): the first.
    expect(fromLocal(berlin, fallDay, 150)).toBe(at(2026, 10, 25, 0, 30));
    expect(toLocal(berlin, at(2026, 10, 25, 1, 30))).toMatchObject({ h: 2, mi: 30, abbr: 'CET' });
  });
});

// Generous: tests must not fail because a shared machine is slow.
describe('schedules', { timeout: 30_000 }, () => {
  const utc = tz('UTC0');
  const berlin = tz('CET-1CEST,M3.5.0,M10.5.0/3');

  it('check their input like loop.create sends it', () => {
    expect(parseSchedule({ kind: 'interval', every_seconds: 299 })).toMatchObject({ ok: false, error: expect.stringMatching(/at least 300/) });
    expect(parseSchedule({ kind: 'interval', every_seconds: 300 })).toMatchObject({ ok: true });
    expect(parseSchedule({ kind: 'interval', every_seconds: 2.5e6 + 1e5 })).toMatchObject({ ok: false });
    expect(parseSchedule({ kind: 'daily', at: '24:00' })).toMatchObject({ ok: false });
    expect(parseSchedule({ kind: 'daily', at: '7:05' })).toMatchObject({ ok: true, schedule: { at: 425, days: [] } });
    expect(parseSchedule({ kind: 'weekly', at: '18:00' })).toMatchObject({ ok: false, error: expect.stringMatching(/needs days/) });
    expect(parseSchedule({ kind: 'weekly', at: '18:00', days: ['Thu', 'monday', 7, 1] })).toMatchObject({ ok: true, schedule: { days: [0, 1, 4] } });
    expect(parseSchedule({ kind: 'weekly', at: '18:00', days: ['someday'] })).toMatchObject({ ok: false });
    expect(parseSchedule({ kind: 'hourly' })).toMatchObject({ ok: false });
    expect(parseSchedule('daily')).toMatchObject({ ok: false });
    expect(describeSchedule(sched({ kind: 'interval', every_seconds: 5400 }))).toBe('every 1h 30m');
    expect(describeSchedule(sched({ kind: 'weekly', at: '18:00', days: ['thu', 'mon'] }))).toBe('weekly 18:00 Mon, Thu');
  });

  it('run daily at the local time, across the day and the year boundary', () => {
    const s = sched({ kind: 'daily', at: '07:30' });
    expect(nextAfter(s, berlin, at(2026, 12, 31, 5), 0)).toBe(at(2026, 12, 31, 6, 30));
    expect(nextAfter(s, berlin, at(2026, 12, 31, 6, 30), 0)).toBe(at(2027, 1, 1, 6, 30));
    expect(nextAfter(s, utc, at(2026, 12, 31, 23, 59), 0)).toBe(at(2027, 1, 1, 7, 30));
    expect(latestAtOrBefore(s, berlin, at(2027, 1, 1, 6, 29), 0)).toBe(at(2026, 12, 31, 6, 30));
  });

  it('run weekly on the listed days, across the week boundary', () => {
    const s = sched({ kind: 'weekly', at: '18:00', days: ['mon', 'thu'] });
    // Friday 2026-11-27 in UTC: next is Monday 30th, then Thursday 3 December.
    const mon = nextAfter(s, utc, at(2026, 11, 27, 12), 0);
    expect(mon).toBe(at(2026, 11, 30, 18));
    expect(nextAfter(s, utc, mon, 0)).toBe(at(2026, 12, 3, 18));
    expect(latestAtOrBefore(s, utc, at(2026, 11, 30, 17), 0)).toBe(at(2026, 11, 26, 18));
    // A weekday of the owner's zone, not of UTC: 00:30 Monday in Berlin is Sunday 23:30 UTC.
    const early = sched({ kind: 'weekly', at: '00:30', days: ['mon'] });
    expect(nextAfter(early, berlin, at(2026, 11, 28), 0)).toBe(at(2026, 11, 29, 23, 30));
  });

  it('run a time skipped by spring-forward once, after the change, and a repeated time once, at its first occurrence', () => {
    const s = sched({ kind: 'daily', at: '02:30' });
    const saturday = nextAfter(s, berlin, at(2026, 3, 28), 0);
    expect(saturday).toBe(at(2026, 3, 28, 1, 30));
    const sunday = nextAfter(s, berlin, saturday, 0);
    expect(formatLocal(berlin, sunday)).toBe('Sun 2026-03-29 03:30 CEST');
    const monday = nextAfter(s, berlin, sunday, 0);
    expect(formatLocal(berlin, monday)).toBe('Mon 2026-03-30 02:30 CEST');
    // Fall back: one run on 25 October (the first 02:30), then Monday's.
    const first = nextAfter(s, berlin, at(2026, 10, 24, 12), 0);
    expect(first).toBe(at(2026, 10, 25, 0, 30));
    const next = nextAfter(s, berlin, first, 0);
    expect(next).toBe(at(2026, 10, 26, 1, 30));
    expect(formatLocal(berlin, next)).toBe('Mon 2026-10-26 02:30 CET');
    // Runs that are not near the change keep their local time on both sides of it.
    const seven = sched({ kind: 'daily', at: '07:00' });
    expect(nextAfter(seven, berlin, at(2026, 3, 28, 7), 0)).toBe(at(2026, 3, 29, 5));
    expect(nextAfter(seven, berlin, at(2026, 3, 27, 7), 0)).toBe(at(2026, 3, 28, 6));
  });

  it('run intervals on anchor + k * every, untouched by daylight saving', () => {
    const s = sched({ kind: 'interval', every_seconds: 3600 });
    const anchor = at(2026, 3, 29, 0, 15);
    expect(nextAfter(s, berlin, anchor, anchor)).toBe(anchor + 3600_000);
    expect(nextAfter(s, berlin, anchor + 3600_000, anchor)).toBe(anchor + 7200_000);
    expect(nextAfter(s, berlin, anchor + 5 * 3600_000 + 1, anchor)).toBe(anchor + 6 * 3600_000);
    expect(latestAtOrBefore(s, berlin, anchor + 3599_000, anchor)).toBeNull();
    expect(latestAtOrBefore(s, berlin, anchor + 5.5 * 3600_000, anchor)).toBe(anchor + 5 * 3600_000);
  });

  it('never return a run at or before the instant asked about, for any zone and schedule', () => {
    const kinds = fc.oneof(
      fc.record({ kind: fc.constant('daily'), at: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${h}:${String(m).padStart(2, '0')}`) }),
      fc.record({
        kind: fc.constant('weekly'),
        at: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${h}:${String(m).padStart(2, '0')}`),
        days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
      }),
    );
    fc.assert(
      fc.property(kinds, fc.constantFrom(...ZONES.map((z) => z[1])), fc.integer({ min: at(2025, 1, 1), max: at(2030, 1, 1) }), (input, text, ms) => {
        const s = sched(input);
        const z = tz(text);
        const next = nextAfter(s, z, ms, 0);
        expect(next).toBeGreaterThan(ms);
        expect(next - ms).toBeLessThanOrEqual(8 * 86_400_000);
        const prev = latestAtOrBefore(s, z, ms, 0)!;
        expect(prev).toBeLessThanOrEqual(ms);
        // Nothing lies between the latest and the next run.
        expect(nextAfter(s, z, prev, 0)).toBe(next);
      }),
      { numRuns: 500 },
    );
  });
});
