// The owner's time zone as a POSIX TZ string (the form ESP-IDF's setenv("TZ")
// takes, e.g. "CET-1CEST,M3.5.0,M10.5.0/3"), parsed and applied here without
// Date or Intl (neither is for firmware code): UTC offset at an instant,
// local calendar fields of an instant, and the instant of a local time.
//
// Grammar: std offset [dst [offset] [,start[/time],end[/time]]]
//   names: three or more letters, or <...> with letters, digits, + and -;
//   offset: [+|-]hh[:mm[:ss]], hours 0-24, positive WEST of Greenwich (POSIX);
//   dst offset: default one hour ahead of standard time;
//   rules: Mm.w.d (month 1-12, week 1-5 with 5 = last, day 0-6 with 0 = Sunday),
//   Jn (1-365, February 29 never counted) or n (0-365, counted); time
//   [+|-]hh[:mm[:ss]], hours up to 167 (POSIX 2008), default 02:00:00;
//   dst without rules: the US rule M3.2.0,M11.1.0.
// "UTC" and "GMT" alone read as UTC0; an empty string is UTC.
//
// A local time that does not exist (skipped by a spring-forward change) or
// exists twice (repeated by a fall-back change) resolves as RFC 5545 and
// Temporal's "compatible" rule do: a skipped time is read with the offset in
// force before the change (02:30 in a 02:00->03:00 gap is 03:30 new time); a
// repeated time is its first occurrence.
//
// Host-independent and pure: the device's one owner time zone (src/system/
// local-time.ts, ctx.time) applies it for the scheduler, the screen, the
// sub-agent brief and the turn prompt.

import { civilFromDays, daysFromCivil, weekday } from './civil.ts';

const DAY_S = 86_400;

/** Seconds east of UTC (local = UTC + offset). */
type Offset = number;

interface Rule {
  kind: 'M' | 'J' | 'N';
  month: number;
  week: number;
  day: number;
  /** Seconds after local midnight (may be negative or past a day). */
  time: number;
}

export interface TimeZone {
  /** The TZ string as given (trimmed). */
  text: string;
  std: { name: string; offset: Offset };
  dst: { name: string; offset: Offset; start: Rule; end: Rule } | null;
}

export type TzResult = { ok: true; tz: TimeZone } | { ok: false; error: string };

export const UTC: TimeZone = { text: 'UTC0', std: { name: 'UTC', offset: 0 }, dst: null };

/** The longest TZ string accepted (ESP-IDF keeps TZ in the environment; real ones are under 60). */
export const TZ_TEXT_MAX = 64;


function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

// --- parsing -----------------------------------------------------------------------

class Cursor {
  i = 0;
  constructor(readonly s: string) {}
  peek(): string {
    return this.s[this.i] ?? '';
  }
  done(): boolean {
    return this.i >= this.s.length;
  }
}

const isLetter = (c: string): boolean => (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
const isDigit = (c: string): boolean => c >= '0' && c <= '9';

function readName(c: Cursor): string | null {
  if (c.peek() === '<') {
    const end = c.s.indexOf('>', c.i);
    if (end < 0) return null;
    const name = c.s.slice(c.i + 1, end);
    for (const ch of name) if (!isLetter(ch) && !isDigit(ch) && ch !== '+' && ch !== '-') return null;
    if (name.length < 3) return null;
    c.i = end + 1;
    return name;
  }
  const from = c.i;
  while (isLetter(c.peek())) c.i++;
  const name = c.s.slice(from, c.i);
  return name.length >= 3 ? name : null;
}

function readNumber(c: Cursor, maxDigits: number): number | null {
  const from = c.i;
  while (isDigit(c.peek()) && c.i - from < maxDigits) c.i++;
  if (c.i === from) return null;
  return Number(c.s.slice(from, c.i));
}

/** [+|-]hh[:mm[:ss]] in seconds, or null; hours up to maxHours. */
function readHms(c: Cursor, maxHours: number): number | null {
  let sign = 1;
  if (c.peek() === '+' || c.peek() === '-') {
    sign = c.peek() === '-' ? -1 : 1;
    c.i++;
  }
  const h = readNumber(c, 3);
  if (h === null || h > maxHours) return null;
  let total = h * 3600;
  for (const unit of [60, 1]) {
    if (c.peek() !== ':') break;
    c.i++;
    const n = readNumber(c, 2);
    if (n === null || n > 59) return null;
    total += n * unit;
  }
  return sign * total;
}

function readRule(c: Cursor): Rule | string {
  let rule: Rule;
  if (c.peek() === 'M') {
    c.i++;
    const month = readNumber(c, 2);
    if (month === null || month < 1 || month > 12 || c.peek() !== '.') return 'a rule Mm.w.d needs a month 1-12';
    c.i++;
    const week = readNumber(c, 1);
    if (week === null || week < 1 || week > 5 || c.peek() !== '.') return 'a rule Mm.w.d needs a week 1-5';
    c.i++;
    const day = readNumber(c, 1);
    if (day === null || day > 6) return 'a rule Mm.w.d needs a day 0-6 (0 is Sunday)';
    rule = { kind: 'M', month, week, day, time: 7200 };
  } else if (c.peek() === 'J') {
    c.i++;
    const n = readNumber(c, 3);
    if (n === null || n < 1 || n > 365) return 'a rule Jn needs a day 1-365';
    rule = { kind: 'J', month: 0, week: 0, day: n, time: 7200 };
  } else {
    const n = readNumber(c, 3);
    if (n === null || n > 365) return 'a rule needs Mm.w.d, Jn or a day 0-365';
    rule = { kind: 'N', month: 0, week: 0, day: n, time: 7200 };
  }
  if (c.peek() === '/') {
    c.i++;
    const t = readHms(c, 167);
    if (t === null) return 'a rule time must be [+|-]hh[:mm[:ss]] with hours up to 167';
    rule.time = t;
  }
  return rule;
}

const US_START: Rule = { kind: 'M', month: 3, week: 2, day: 0, time: 7200 };
const US_END: Rule = { kind: 'M', month: 11, week: 1, day: 0, time: 7200 };

/** Parses a POSIX TZ string; the error says what is wrong. */
export function parseTz(input: string): TzResult {
  const text = input.trim();
  if (!text) return { ok: true, tz: UTC };
  if (text.length > TZ_TEXT_MAX) return { ok: false, error: `a time zone is at most ${TZ_TEXT_MAX} characters` };
  if (text === 'UTC' || text === 'GMT') return { ok: true, tz: { text, std: { name: text, offset: 0 }, dst: null } };
  const bad = (why: string): TzResult => ({ ok: false, error: `"${text}" is not a POSIX time zone: ${why} (e.g. CET-1CEST,M3.5.0,M10.5.0/3 or EST5EDT,M3.2.0,M11.1.0 or UTC0)` });
  const c = new Cursor(text);
  const stdName = readName(c);
  if (!stdName) return bad('it must start with a name of three or more letters');
  const stdWest = readHms(c, 24);
  if (stdWest === null) return bad('the name must be followed by an offset such as -1 or 5 or -5:30');
  // (|| 0: no negative zero for UTC)
  const std = { name: stdName, offset: -stdWest || 0 };
  if (c.done()) return { ok: true, tz: { text, std, dst: null } };
  const dstName = readName(c);
  if (!dstName) return bad('after the offset comes a daylight-saving name of three or more letters');
  let dstOffset = std.offset + 3600;
  if (!c.done() && c.peek() !== ',') {
    const west = readHms(c, 24);
    if (west === null) return bad('the daylight-saving offset is malformed');
    dstOffset = -west || 0;
  }
  let start = US_START;
  let end = US_END;
  if (!c.done()) {
    if (c.peek() !== ',') return bad('the rules must follow a comma');
    c.i++;
    const s = readRule(c);
    if (typeof s === 'string') return bad(s);
    if (c.peek() !== ',') return bad('the start and end rules are separated by a comma');
    c.i++;
    const e = readRule(c);
    if (typeof e === 'string') return bad(e);
    if (!c.done()) return bad(`unexpected text "${c.s.slice(c.i, c.i + 8)}"`);
    start = s;
    end = e;
  }
  return { ok: true, tz: { text, std, dst: { name: dstName, offset: dstOffset, start, end } } };
}

// --- applying ----------------------------------------------------------------------

/** The day number of a rule's date in year y. */
function ruleDay(rule: Rule, y: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  if (rule.kind === 'J') return jan1 + rule.day - 1 + (isLeap(y) && rule.day >= 60 ? 1 : 0);
  if (rule.kind === 'N') return jan1 + rule.day;
  const first = daysFromCivil(y, rule.month, 1);
  let d = first + ((rule.day - weekday(first) + 7) % 7) + 7 * (rule.week - 1);
  const last = first + daysInMonth(y, rule.month) - 1;
  while (d > last) d -= 7;
  return d;
}

/** UTC ms of a rule's change in year y, given the offset in force before it. */
function changeAt(rule: Rule, y: number, before: Offset): number {
  return (ruleDay(rule, y) * DAY_S + rule.time - before) * 1000;
}

/** Is daylight-saving time in force at this instant? */
export function isDst(tz: TimeZone, utcMs: number): boolean {
  const dst = tz.dst;
  if (!dst) return false;
  const y = civilFromDays(Math.floor((utcMs / 1000 + tz.std.offset) / DAY_S))[0];
  const start = changeAt(dst.start, y, tz.std.offset);
  const end = changeAt(dst.end, y, dst.offset);
  // Northern rules start and end in one year; southern ones wrap around the new year.
  return start < end ? utcMs >= start && utcMs < end : !(utcMs >= end && utcMs < start);
}

/** Seconds east of UTC at this instant. */
export function offsetAt(tz: TimeZone, utcMs: number): Offset {
  return isDst(tz, utcMs) ? tz.dst!.offset : tz.std.offset;
}

export interface LocalFields {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** 0 = Sunday. */
  dow: number;
  /** The local day number (days since 1970-01-01 in local time). */
  day: number;
  offset: Offset;
  /** Daylight-saving time is in force. */
  dst: boolean;
  /** The zone's name for this instant as written (CET, CEST, or +0530 from <+0530>). */
  abbr: string;
  /** The name for people: the abbreviation, or UTC+5:30 for a zone whose name is only its offset. */
  label: string;
}

export function toLocal(tz: TimeZone, utcMs: number): LocalFields {
  const dst = isDst(tz, utcMs);
  const offset = dst ? tz.dst!.offset : tz.std.offset;
  const local = Math.floor(utcMs / 1000) + offset;
  const day = Math.floor(local / DAY_S);
  const secs = local - day * DAY_S;
  const [y, mo, d] = civilFromDays(day);
  const abbr = dst ? tz.dst!.name : tz.std.name;
  return { y, mo, d, h: Math.floor(secs / 3600), mi: Math.floor((secs % 3600) / 60), s: secs % 60, dow: weekday(day), day, offset, dst, abbr, label: zoneLabel(abbr, offset) };
}

/**
 * The UTC ms of a local wall time on a local day (minutes after local
 * midnight). A skipped time reads with the offset before the change; a
 * repeated time is its first occurrence (see the header).
 */
export function fromLocal(tz: TimeZone, day: number, minutes: number): number {
  const local = (day * DAY_S + minutes * 60) * 1000;
  if (!tz.dst) return local - tz.std.offset * 1000;
  const found: number[] = [];
  for (const off of [tz.std.offset, tz.dst.offset]) {
    const utc = local - off * 1000;
    if (offsetAt(tz, utc) === off) found.push(utc);
  }
  if (found.length) return Math.min(...found);
  // In a gap: the offset before a spring-forward change is the smaller one.
  return local - Math.min(tz.std.offset, tz.dst.offset) * 1000;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');
export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** 'Mon 2026-11-23 07:00 CET' for people (a zone named only by its offset: '... 07:00 UTC-3'). */
export function formatLocal(tz: TimeZone, utcMs: number): string {
  return formatFields(toLocal(tz, utcMs));
}

/** formatLocal of fields already computed. */
export function formatFields(t: LocalFields): string {
  return `${WEEKDAYS[t.dow]} ${t.y}-${pad2(t.mo)}-${pad2(t.d)} ${pad2(t.h)}:${pad2(t.mi)} ${t.label}`;
}

/** 'UTC', 'UTC+1', 'UTC-5:30' for an offset in seconds east. */
export function offsetLabel(offset: Offset): string {
  if (offset === 0) return 'UTC';
  const a = Math.abs(offset);
  const m = Math.floor((a % 3600) / 60);
  return `UTC${offset < 0 ? '-' : '+'}${Math.floor(a / 3600)}${m ? `:${pad2(m)}` : ''}`;
}

/**
 * A zone's name for people: its abbreviation when it has one of letters
 * (CET, CEST, IST), else the offset (UTC+4 for <+04>, UTC-3 for <-03>):
 * IANA writes a number where a place has no common abbreviation.
 */
export function zoneLabel(abbr: string, offset: Offset): string {
  for (const ch of abbr) if (!isLetter(ch)) return offsetLabel(offset);
  return abbr || offsetLabel(offset);
}

/** '+01:00' for an offset in seconds. */
export function formatOffset(offset: Offset): string {
  const a = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${pad2(Math.floor(a / 3600))}:${pad2(Math.floor((a % 3600) / 60))}`;
}
