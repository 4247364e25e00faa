// The system subsystem's shared shapes (src/system/): the device timeline
// (rows of restarts, updates, mode switches and storage changes that storage,
// power, ota and the console write and memory logs) and the owner's local
// time (the one time zone the scheduler, the screen, the prompt and the
// sub-agent brief read). Subsystems that write or read them take these from
// here instead of declaring them again; the system's Timeline and LocalTime
// implement them. Types only.

import type { LocalFields, TimeZone } from '../util/tz.ts';

export type TimelineKind = 'restart' | 'update' | 'mode' | 'storage';

export interface TimelineRow {
  kind: TimelineKind;
  text: string;
  /** Wall-clock ms (meaningful when synced), and ms since boot. */
  wallMs: number;
  synced: boolean;
  monoMs: number;
}

/** Where a subsystem writes device timeline rows. */
export interface TimelineSink {
  row(kind: TimelineKind, text: string): void;
}

/** The owner's local time as its readers see it (src/system/local-time.ts). */
export interface LocalTimeView {
  zone(): TimeZone;
  /** Local calendar fields, offset, abbreviation and label of an instant (default now). */
  local(ms?: number): LocalFields;
  /** 'Mon 2026-11-23 07:00 CET'. */
  format(ms: number): string;
  /** The local time with its name and offset, for a model. */
  stamp(ms: number): string;
  /** stamp() of now, or null while the clock is not set. */
  nowStamp(): string | null;
  /** Called after every change of zone. */
  onChange(listener: (zone: TimeZone) => void): void;
}
