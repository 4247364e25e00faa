// Calendar arithmetic without Date (not available to firmware code): UTC
// day numbers, the YYYYMMDD names of the episodic log's day files, and a
// short timestamp for tool output (the civil arithmetic: src/util/civil.ts).

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DAY_NAME = /^(\d{4})(\d{2})(\d{2})$/;

import { civilFromDays, daysFromCivil } from '../util/civil.ts';

const DAY_MS = 86_400_000;

export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** 'YYYYMMDD' of a day number. */
export function dayName(day: number): string {
  const [y, m, d] = civilFromDays(day);
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
  const [y, m, d] = civilFromDays(day);
  const min = Math.floor((ms - day * DAY_MS) / 60_000);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)} ${pad(Math.floor(min / 60), 2)}:${pad(min % 60, 2)}`;
}
