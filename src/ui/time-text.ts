// The clock's text: HH:MM and a short date ('Sun 22 Nov') from local
// calendar fields (the owner's time zone, the device's LocalTime, local()), and the clock as
// the status screen and the saver show it (no time until the clock is set).

import type { Clock } from '../hal/index.ts';
import type { LocalFields } from '../util/tz.ts';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number): string => (n < 10 ? '0' : '') + n;

export interface ClockText {
  time: string;
  date: string;
  /** Minutes since local midnight, for the saver's drift. */
  minuteOfDay: number;
}

export function clockText(t: LocalFields): ClockText {
  return { time: `${two(t.h)}:${two(t.mi)}`, date: `${WEEKDAYS[t.dow]!} ${t.d} ${MONTHS[t.mo - 1]!}`, minuteOfDay: t.h * 60 + t.mi };
}

export interface ScreenClock {
  /** 'HH:MM', or null while the wall clock is not set. */
  time: string | null;
  date: string | null;
  /** A minute count that moves once a minute (the saver's drift): local minutes of the day, or uptime minutes while unset. */
  minute: number;
  /** The zone's name for people (CEST, UTC+5:30). */
  zone: string;
}

/** The clock in the owner's time zone, daylight saving included. */
export function screenClock(clock: Clock, time: { local(ms: number): LocalFields }): ScreenClock {
  const local = time.local(clock.wallMs());
  if (!clock.synced()) return { time: null, date: null, minute: Math.floor(clock.monoMs() / 60_000), zone: local.label };
  const c = clockText(local);
  return { time: c.time, date: c.date, minute: c.minuteOfDay, zone: local.label };
}
