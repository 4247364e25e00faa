// The clock's text: HH:MM and a short date ('Sun 22 Nov') from local
// calendar fields (the owner's time zone, ctx.time.local()).

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
