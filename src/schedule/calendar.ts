// A routine's schedule (spec: {kind interval, every_seconds at least 300} or
// {kind daily or weekly, at HH:MM, days[]}): checking what a tool or the web
// sends, the next run after an instant, the latest run at or before one, and
// a line for people. Daily and weekly times are the owner's local time
// (src/util/tz.ts, with its rule for skipped and repeated times);
// intervals are plain elapsed time from an anchor (the approval), untouched
// by time zones and daylight saving.
//
// days[]: weekday names (sun, mon, ... or in full, any case) or numbers 0-7
// (0 and 7 are Sunday, as cron has them). weekly needs at least one day;
// daily runs every day unless days[] narrows it.

import { INTERVAL_MAX_S, INTERVAL_MIN_S } from './limits.ts';
import { WEEKDAYS, fromLocal, toLocal, type TimeZone } from '../util/tz.ts';
import { weekday } from '../util/civil.ts';
import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const HHMM = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export type Schedule = { kind: 'interval'; every: number } | { kind: 'daily' | 'weekly'; at: number; days: number[] };

export type ScheduleResult = { ok: true; schedule: Schedule } | { ok: false; error: string };

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function dayOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 7) return v % 7;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s.length >= 3) {
      const i = DAY_NAMES.findIndex((n) => n === s || n.slice(0, 3) === s);
      if (i >= 0) return i;
    }
    if (s.length === 1 && s >= '0' && s <= '7') return Number(s) % 7;
  }
  return null;
}

/** Checks a schedule object as loop.create or the web sends it. */
export function parseSchedule(input: unknown): ScheduleResult {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { ok: false, error: 'schedule must be an object with kind interval, daily or weekly' };
  const o = input as Record<string, unknown>;
  const kind = typeof o['kind'] === 'string' ? o['kind'].trim().toLowerCase() : '';
  if (kind === 'interval') {
    const every = typeof o['every_seconds'] === 'string' && o['every_seconds'].trim() !== '' ? Number(o['every_seconds']) : o['every_seconds'];
    if (typeof every !== 'number' || !Number.isInteger(every)) return { ok: false, error: 'an interval schedule needs every_seconds, a whole number of seconds' };
    if (every < INTERVAL_MIN_S) return { ok: false, error: `every_seconds must be at least ${INTERVAL_MIN_S} (5 minutes)` };
    if (every > INTERVAL_MAX_S) return { ok: false, error: `every_seconds must be at most ${INTERVAL_MAX_S} (30 days)` };
    return { ok: true, schedule: { kind: 'interval', every } };
  }
  if (kind !== 'daily' && kind !== 'weekly') return { ok: false, error: 'schedule.kind must be interval, daily or weekly' };
  const m = typeof o['at'] === 'string' ? HHMM.exec(o['at'].trim()) : null;
  if (!m) return { ok: false, error: `a ${kind} schedule needs at, a local time HH:MM (00:00 to 23:59)` };
  const at = Number(m[1]) * 60 + Number(m[2]);
  const raw = o['days'];
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) return { ok: false, error: 'days must be a list of weekdays (mon, tue, ... or 0-6 with 0 = Sunday)' };
  const days: number[] = [];
  for (const v of (raw ?? []) as unknown[]) {
    const d = dayOf(v);
    if (d === null) return { ok: false, error: `days: ${stringify(v).slice(0, 20)} is not a weekday (mon, tue, ... or 0-6 with 0 = Sunday)` };
    if (!days.includes(d)) days.push(d);
  }
  if (kind === 'weekly' && !days.length) return { ok: false, error: 'a weekly schedule needs days, at least one weekday' };
  days.sort((a, b) => a - b);
  // Every day listed is a daily schedule; kept as given, the line for people says which.
  return { ok: true, schedule: { kind, at, days } };
}

function allows(s: Extract<Schedule, { at: number }>, dow: number): boolean {
  return !s.days.length || s.days.includes(dow);
}

/**
 * The first run strictly after `afterMs`. Interval runs fall on anchor + k *
 * every; daily and weekly runs at the local time on an allowed day.
 */
export function nextAfter(s: Schedule, tz: TimeZone, afterMs: number, anchorMs: number): number {
  if (s.kind === 'interval') {
    const every = s.every * 1000;
    if (afterMs < anchorMs) return anchorMs + every;
    return anchorMs + (Math.floor((afterMs - anchorMs) / every) + 1) * every;
  }
  // From the day before: a time moved forward by a gap may still lie ahead.
  const today = toLocal(tz, afterMs).day;
  for (let day = today - 1; day <= today + 8; day++) {
    if (!allows(s, weekday(day))) continue;
    const at = fromLocal(tz, day, s.at);
    if (at > afterMs) return at;
  }
  // Unreachable with a valid schedule (every week has an allowed day).
  return afterMs + 7 * 86_400_000;
}

/** The latest run at or before `atMs` (null: none since the anchor). */
export function latestAtOrBefore(s: Schedule, tz: TimeZone, atMs: number, anchorMs: number): number | null {
  if (s.kind === 'interval') {
    const every = s.every * 1000;
    if (atMs < anchorMs + every) return null;
    return anchorMs + Math.floor((atMs - anchorMs) / every) * every;
  }
  const today = toLocal(tz, atMs).day;
  for (let day = today + 1; day >= today - 8; day--) {
    if (!allows(s, weekday(day))) continue;
    const at = fromLocal(tz, day, s.at);
    if (at <= atMs) return at;
  }
  return null;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** 'every 10m', 'daily 07:30', 'weekly 18:00 Mon, Thu' for people. */
export function describeSchedule(s: Schedule): string {
  if (s.kind === 'interval') {
    const e = s.every;
    const parts: string[] = [];
    let left = e;
    for (const [unit, n] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
      if (left >= n) {
        parts.push(`${Math.floor(left / n)}${unit}`);
        left %= n;
      }
    }
    return `every ${parts.join(' ')}`;
  }
  const time = `${pad2(Math.floor(s.at / 60))}:${pad2(s.at % 60)}`;
  const days = s.days.length && s.days.length < 7 ? ` ${s.days.map((d) => WEEKDAYS[d]).join(', ')}` : '';
  return `${s.kind} ${time}${days}`;
}

/** The schedule in the tool's shape (for loop.list and the web). */
export function scheduleJson(s: Schedule): Record<string, unknown> {
  if (s.kind === 'interval') return { kind: 'interval', every_seconds: s.every };
  return { kind: s.kind, at: `${pad2(Math.floor(s.at / 60))}:${pad2(s.at % 60)}`, days: s.days.map((d) => DAY_NAMES[d]!.slice(0, 3)) };
}
