// The clock's text without Date (firmware code has none): HH:MM, a short
// date and the UTC offset label, from Unix milliseconds and an offset.
// Civil-from-days after H. Hinnant's public-domain algorithm.

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Thu', 'Fri', 'Sat', 'Sun', 'Mon', 'Tue', 'Wed'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number): string => (n < 10 ? '0' : '') + n;

function civil(day: number): { y: number; m: number; d: number } {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

export interface ClockText {
  time: string;
  date: string;
  /** Minutes since midnight (local), for the saver's drift. */
  minuteOfDay: number;
}

export function clockText(wallMs: number, tzMin: number): ClockText {
  const ms = wallMs + tzMin * 60_000;
  const day = Math.floor(ms / DAY_MS);
  const minute = Math.floor((ms - day * DAY_MS) / 60_000);
  const { m, d } = civil(day);
  const weekday = WEEKDAYS[((day % 7) + 7) % 7]!;
  return { time: `${two(Math.floor(minute / 60))}:${two(minute % 60)}`, date: `${weekday} ${d} ${MONTHS[m - 1]!}`, minuteOfDay: minute };
}

/** 'UTC', 'UTC+1', 'UTC-5:30'. */
export function zoneLabel(tzMin: number): string {
  if (tzMin === 0) return 'UTC';
  const a = Math.abs(tzMin);
  return `UTC${tzMin < 0 ? '-' : '+'}${Math.floor(a / 60)}${a % 60 ? ':' + two(a % 60) : ''}`;
}
