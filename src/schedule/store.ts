// The scheduler's records in NVS (namespace 'sched'), so routines, wakeups,
// reminders and the wakeup mode survive a reboot or a power cut. NVS writes one
// key atomically, so every record is one key (or two written together):
//   d.<id>  a routine's definition (name, prompt, chat, schedule, creator):
//           written once, at loop.create;
//   s.<id>  a routine's state (approval, enabled, anchor, next run, last
//           result, runs): small, rewritten at each run, kept apart from
//           the definition so a run does not rewrite the prompt (flash wear);
//   w.<id>  a wakeup or reminder;
//   wmode   the wakeup approval mode (ask or auto).
// A record that does not read back whole is dropped at boot, with a log
// line, and its keys removed.

import type { Store } from '../core/store.ts';
import type { Log } from '../log/log.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { parseSchedule, scheduleJson, type Schedule } from './calendar.ts';

export const SCHED_NS = 'sched';
const K_MODE = 'wmode';

export type CreatedBy = 'model' | 'mcp' | 'owner';

export interface LastResult {
  /** Wall ms of the run (0 when the clock was not set). */
  at: number;
  ok: boolean;
  late: boolean;
  text: string;
}

export interface Routine {
  id: string;
  name: string;
  prompt: string;
  /** The chat its replies go to (null: the owner's chat). */
  chat: string | null;
  /** The person it runs for (null: the owner). */
  by: string | null;
  createdBy: CreatedBy;
  schedule: Schedule;
  /** Wall ms of creation (0 when the clock was not set). */
  created: number;
  approved: boolean;
  enabled: boolean;
  /** Interval runs fall on anchor + k * every (set at approval or resume). */
  anchor: number | null;
  /** Wall ms of the next run (null: not computed yet, e.g. the clock is not set). */
  next: number | null;
  last: LastResult | null;
  runs: number;
  /** The last run failed (the owner hears of the first failure after a success). */
  failing: boolean;
}

export type WakeKind = 'wakeup' | 'reminder';

export interface Wake {
  id: string;
  kind: WakeKind;
  note: string;
  minutes: number;
  chat: string | null;
  by: string | null;
  createdBy: CreatedBy;
  state: 'pending' | 'armed';
  created: number;
  /** Wall ms when it fires; null while armed on an unset clock (then `left` counts from boot). */
  due: number | null;
  /** Milliseconds to wait from arming, for a wakeup armed while the clock was not set. */
  left: number;
  /** Turns tried (a wakeup gets one retry). */
  attempts: number;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
function by(v: unknown): CreatedBy {
  return v === 'mcp' || v === 'owner' ? v : 'model';
}

function readLast(v: unknown): LastResult | null {
  if (!isPlainObject(v)) return null;
  return { at: num(v['at']) ?? 0, ok: v['ok'] === true, late: v['late'] === true, text: str(v['text']) ?? '' };
}

export class ScheduleStore {
  constructor(
    private readonly store: Store,
    /** The namespace's keys (the HAL's listing; Store reads and writes by key). */
    private readonly keys: () => string[],
    private readonly log: Log,
  ) {}

  private get(key: string): unknown {
    const v = this.store.strOrNull(key);
    if (v === null) return undefined;
    const r = parseJson(v);
    return r.ok ? r.value : undefined;
  }

  private drop(keys: string[], why: string): void {
    this.log.warn('sched', `dropped ${keys.join(', ')}: ${why}`);
    try {
      this.store.setMany(keys.map((k) => [k, undefined] as const));
    } catch {
      // the next boot drops it again
    }
  }

  /** Every routine and wakeup that reads back whole. */
  load(): { routines: Routine[]; wakes: Wake[] } {
    const routines: Routine[] = [];
    const wakes: Wake[] = [];
    const keys = this.keys();
    for (const key of keys) {
      if (key.startsWith('d.')) {
        const id = key.slice(2);
        const r = this.readRoutine(id, this.get(key), this.get(`s.${id}`));
        if (r) routines.push(r);
        else this.drop([key, `s.${id}`], 'the routine did not read back');
      } else if (key.startsWith('s.') && !keys.includes(`d.${key.slice(2)}`)) {
        this.drop([key], 'a routine state without its definition');
      } else if (key.startsWith('w.')) {
        const w = this.readWake(key.slice(2), this.get(key));
        if (w) wakes.push(w);
        else this.drop([key], 'the wakeup did not read back');
      }
    }
    routines.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
    wakes.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
    return { routines, wakes };
  }

  private readRoutine(id: string, d: unknown, s: unknown): Routine | null {
    if (!isPlainObject(d) || !isPlainObject(s)) return null;
    const name = str(d['name']);
    const prompt = str(d['prompt']);
    const sched = parseSchedule(d['schedule']);
    if (!name || !prompt || !sched.ok) return null;
    return {
      id,
      name,
      prompt,
      chat: str(d['chat']),
      by: str(d['by']),
      createdBy: by(d['via']),
      schedule: sched.schedule,
      created: num(d['at']) ?? 0,
      approved: s['ok'] === true,
      enabled: s['on'] !== false,
      anchor: num(s['anchor']),
      next: num(s['next']),
      last: readLast(s['last']),
      runs: num(s['runs']) ?? 0,
      failing: s['failing'] === true,
    };
  }

  private readWake(id: string, v: unknown): Wake | null {
    if (!isPlainObject(v)) return null;
    const note = str(v['note']);
    const minutes = num(v['min']);
    const state = v['state'] === 'pending' || v['state'] === 'armed' ? v['state'] : null;
    if (!note || minutes === null || !state) return null;
    return {
      id,
      kind: v['kind'] === 'reminder' ? 'reminder' : 'wakeup',
      note,
      minutes,
      chat: str(v['chat']),
      by: str(v['by']),
      createdBy: by(v['via']),
      state,
      created: num(v['at']) ?? 0,
      due: num(v['due']),
      left: num(v['left']) ?? minutes * 60_000,
      attempts: num(v['tries']) ?? 0,
    };
  }

  private routineDef(r: Routine): string {
    return stringify({ name: r.name, prompt: r.prompt, chat: r.chat, by: r.by, via: r.createdBy, schedule: scheduleJson(r.schedule), at: r.created });
  }

  private routineState(r: Routine): string {
    return stringify({ ok: r.approved, on: r.enabled, anchor: r.anchor, next: r.next, last: r.last, runs: r.runs, failing: r.failing });
  }

  /** A new routine: definition and state in one atomic write. Throws HalError (ENOSPC, ...). */
  addRoutine(r: Routine): void {
    this.store.setMany([
      [`d.${r.id}`, this.routineDef(r)],
      [`s.${r.id}`, this.routineState(r)],
    ]);
  }

  saveRoutineState(r: Routine): void {
    this.store.set(`s.${r.id}`, this.routineState(r));
  }

  removeRoutine(id: string): void {
    this.store.setMany([
      [`d.${id}`, undefined],
      [`s.${id}`, undefined],
    ]);
  }

  saveWake(w: Wake): void {
    this.store.set(
      `w.${w.id}`,
      stringify({ kind: w.kind, note: w.note, min: w.minutes, chat: w.chat, by: w.by, via: w.createdBy, state: w.state, at: w.created, due: w.due, left: w.left, tries: w.attempts }),
    );
  }

  removeWake(id: string): void {
    this.store.delete(`w.${id}`);
  }

  mode(): 'ask' | 'auto' {
    return this.store.str(K_MODE, '') === 'ask' ? 'ask' : 'auto';
  }
  setMode(mode: 'ask' | 'auto'): void {
    this.store.set(K_MODE, mode);
  }
}
