// Calendar arithmetic without Date (not available to firmware code): UTC
// day numbers, the YYYYMMDD names of the episodic log's day files, and a
// short timestamp for tool output. Civil-from-days after H. Hinnant.

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DAY_NAME = /^(\d{4})(\d{2})(\d{2})$/;

const DAY_MS = 86_400_000;

export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

function civil(day: number): [number, number, number] {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** 'YYYYMMDD' of a day number. */
export function dayName(day: number): string {
  const [y, m, d] = civil(day);
  return `${pad(y, 4)}${pad(m, 2)}${pad(d, 2)}`;
}

/** The day number of a 'YYYYMMDD' name, or null. */
export function parseDayName(name: string): number | null {
  const m = DAY_NAME.exec(name);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const day = daysFromCivil(y, mo, d);
  return dayName(day) === name ? day : null;
}

/** 'YYYY-MM-DD HH:MM' (UTC). */
export function stamp(ms: number): string {
  const day = dayOf(ms);
  const [y, m, d] = civil(day);
  const min = Math.floor((ms - day * DAY_MS) / 60_000);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)} ${pad(Math.floor(min / 60), 2)}:${pad(min % 60, 2)}`;
}
