// The owner's time zone: the device's one notion of local time (the
// system subsystem's part `time`, made when it mounts and handed to those that read it).
// The scheduler plans daily and weekly runs in it, the screen's clock and
// saver show it, the sub-agent brief's now-header and the turn prompt's now
// line say it. One POSIX TZ string (src/util/tz.ts), default UTC, kept in
// NVS `sys/tz` (a factory reset erases it, as every setting but the mount's),
// set by POST /api/timezone (the web page) and the screen's settings menu
// (COMMON_ZONES, plus the last custom zone set on the web, kept in
// `sys/tzc` so stepping past it in the menu does not lose it).
//
// A bad zone is refused with the reason and changes nothing; a change is
// written before it is applied, then told to the listeners (the scheduler
// moves its daily and weekly runs at once).
//
// Routes (src/system/routes.ts; token-gated; the shapes the web page reads):
//   GET  /api/timezone   {tz, now, offset, abbr, label, dst, synced}
//   POST /api/timezone   tz=<POSIX TZ string> (empty: UTC); the same, and message
// Errors: 400 bad-input (a string that does not parse), 500 storage.

import type { LocalTimeView } from '../contracts/index.ts';
import type { Store } from '../core/store.ts';
import type { Clock } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { errorMessage, stringify } from '../util/json.ts';
import { formatFields, formatOffset, offsetLabel, parseTz, toLocal, UTC, type LocalFields, type TimeZone } from '../util/tz.ts';
import { COMMON_ZONES } from '../util/zones.ts';

export const TIME_NS = 'sys';
const K_TZ = 'tz';
const K_CUSTOM = 'tzc';
/** Where the scheduler kept the zone before it was the device's (unreleased dev builds): adopted once, then removed. */
export const LEGACY_TIME_NS = 'sched';

export type TimeSet = { ok: true; zone: TimeZone; changed: boolean } | { ok: false; code: 'bad-input' | 'storage'; message: string };

/** A zone the menu offers: a common one by its place, the custom one by its abbreviation. */
export interface ZoneChoice {
  name: string;
  zone: TimeZone;
  custom: boolean;
}

/** Same offsets, names and rules (UTC and UTC0, EST5EDT and EST5EDT,M3.2.0,M11.1.0 are one zone). */
export function sameZone(a: TimeZone, b: TimeZone): boolean {
  return a.text === b.text || stringify([a.std, a.dst]) === stringify([b.std, b.dst]);
}

function parseCommon(): ZoneChoice[] {
  const out: ZoneChoice[] = [];
  for (const z of COMMON_ZONES) {
    const r = parseTz(z.tz);
    if (r.ok) out.push({ name: z.name, zone: r.tz, custom: false });
  }
  return out;
}

/** COMMON_ZONES parsed when the module loads (on the device: the preload, so they are in flash). */
const COMMON_PARSED: readonly ZoneChoice[] = parseCommon();

/** COMMON_ZONES parsed (the menu reads them while it is open). */
function commonZones(): readonly ZoneChoice[] {
  return COMMON_PARSED;
}

function isCommon(zone: TimeZone): boolean {
  return commonZones().some((c) => sameZone(c.zone, zone));
}

export class LocalTime implements LocalTimeView {
  private current: TimeZone = UTC;
  private customZone: TimeZone | null = null;
  private listeners: Array<(zone: TimeZone) => void> = [];

  constructor(
    private readonly clock: Pick<Clock, 'wallMs' | 'synced'>,
    private readonly store: Store,
    private readonly log: Log,
    legacy?: Store,
  ) {
    if (legacy) this.adopt(legacy);
    this.current = this.read(K_TZ) ?? UTC;
    this.customZone = this.read(K_CUSTOM);
  }

  private read(key: string): TimeZone | null {
    const text = this.store.strOrNull(key);
    if (text === null) return null;
    const r = parseTz(text);
    if (r.ok) return r.tz;
    this.log.warn('time', `the stored time zone (${key}) does not parse; ignored (${r.error})`);
    return null;
  }

  /** The scheduler's old key, read once: kept if no zone is set yet, then removed (in that order, so a power cut between loses nothing). */
  private adopt(legacy: Store): void {
    const old = legacy.strOrNull(K_TZ);
    if (old === null) return;
    try {
      const r = parseTz(old);
      if (r.ok && this.store.strOrNull(K_TZ) === null) {
        this.store.setMany([[K_TZ, r.tz.text], ...(isCommon(r.tz) ? [] : [[K_CUSTOM, r.tz.text] as const])]);
        this.log.info('time', `time zone ${r.tz.text} taken over from the scheduler's setting`);
      }
      legacy.delete(K_TZ);
    } catch (e) {
      this.log.warn('time', `the scheduler's time zone setting was not taken over: ${errorMessage(e)}`);
    }
  }

  zone(): TimeZone {
    return this.current;
  }

  /** Local calendar fields, offset, abbreviation and label of an instant (default now). */
  local(ms = this.clock.wallMs()): LocalFields {
    return toLocal(this.current, ms);
  }

  /** 'Mon 2026-11-23 07:00 CET'. */
  format(ms: number): string {
    return formatFields(this.local(ms));
  }

  /**
   * 'Sun 2026-11-22 10:00 CET (UTC+01:00)': the local time with its name and
   * offset, for a model that must relate it to other times; a zone named only
   * by its offset ('... 14:30 UTC+5:30', '... 09:00 UTC') says it once.
   */
  stamp(ms: number): string {
    const t = this.local(ms);
    const text = formatFields(t);
    return t.label === offsetLabel(t.offset) ? text : `${text} (UTC${formatOffset(t.offset)})`;
  }

  /** stamp() of now, or null while the clock is not set. */
  nowStamp(): string | null {
    return this.clock.synced() ? this.stamp(this.clock.wallMs()) : null;
  }

  /** The zone's name for people at an instant (default now): CEST, or UTC+5:30 for a nameless offset. */
  label(ms = this.clock.wallMs()): string {
    return this.local(ms).label;
  }

  /** Sets the zone from a POSIX TZ string: written, then applied and told to the listeners; bad input or a failed write changes nothing. */
  set(text: string): TimeSet {
    const r = parseTz(text);
    if (!r.ok) return { ok: false, code: 'bad-input', message: r.error };
    const zone = r.tz;
    if (zone.text === this.current.text) return { ok: true, zone, changed: false };
    const custom = isCommon(zone) ? null : zone;
    try {
      this.store.setMany([[K_TZ, zone.text], ...(custom ? [[K_CUSTOM, custom.text] as const] : [])]);
    } catch (e) {
      return { ok: false, code: 'storage', message: `the time zone was not saved: ${errorMessage(e)}` };
    }
    this.current = zone;
    if (custom) this.customZone = custom;
    this.log.info('time', `time zone set to ${zone.text}`);
    for (const listener of this.listeners) {
      try {
        listener(zone);
      } catch (e) {
        this.log.error('time', `a time zone listener failed: ${errorMessage(e)}`);
      }
    }
    return { ok: true, zone, changed: true };
  }

  /** Called after every change of zone. */
  onChange(listener: (zone: TimeZone) => void): void {
    this.listeners.push(listener);
  }

  /**
   * The zones the screen's menu steps through: the common ones, and the
   * custom zone (the last one set that is not common, or the current one)
   * in its place by standard offset.
   */
  choices(ms = this.clock.wallMs()): ZoneChoice[] {
    const list = [...commonZones()];
    const custom = this.customZone ?? (isCommon(this.current) ? null : this.current);
    if (custom && !isCommon(custom)) {
      const at = list.findIndex((c) => c.zone.std.offset > custom.std.offset);
      list.splice(at < 0 ? list.length : at, 0, { name: toLocal(custom, ms).label, zone: custom, custom: true });
    }
    return list;
  }
}
