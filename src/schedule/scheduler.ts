// The scheduler: routines, wakeups and reminders, their approval states, and
// the one timer that fires them (spec: "Routine", "Wakeup", "Approval-gated
// objects", Limits "Reminder and wakeup").
//
// States and transitions (each persisted before it is reported):
//   routine   loop.create -> pending (cannot fire); approve -> approved and
//             scheduled; off -> paused; on -> resumed (the next run counts
//             from now: no catch-up for paused time); deny or loop.cancel ->
//             deleted.
//   wakeup    wakeup.set in auto mode -> armed; in ask mode -> pending, with
//             one approval card (the owner's chat and the web page); approve
//             -> armed (its minutes count from then); cancel -> deleted. An
//             armed wakeup fires one turn and retires; a failed turn is tried
//             once more a minute later, then the owner is alerted and it
//             retires.
//   reminder  /remind -> armed at once (the owner typed it); fires as a
//             message to the chat it came from, then retires; /loop deny or
//             cancel -> deleted.
//
// Time: runs are wall-clock instants. While the clock is not set nothing
// fires by the wall clock; a wakeup armed then counts from the device's
// monotonic clock until the wall clock is set (after a restart still unset,
// it counts again from boot: late, never early).
//
// Missed runs (device off, clock not set): a routine whose latest due run is
// at most 6 hours old runs once now, marked late; every older run it missed
// is skipped. Further back, nothing runs: the routine's last result and an
// owner notice say what was missed. Either way its next run is the first
// after now. A wakeup runs late the same way (more than 6 hours late: the
// owner is told instead); a reminder is always delivered, marked late. A run
// is advanced and written before its turn starts, so a restart in the middle
// never runs it twice (at most once; a wakeup's attempt counts the same way).

import type { Clock, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Role } from '../memory/index.ts';
import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { randomId, type RandomFill } from '../util/ids.ts';
import { errorMessage } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';
import { describeSchedule, latestAtOrBefore, nextAfter, type Schedule } from './calendar.ts';
import {
  CATCH_UP_MS,
  LAST_RESULT_BYTES,
  NOTE_MAX_BYTES,
  ON_TIME_MS,
  REMINDERS_MAX,
  ROUTINE_NAME_MAX_BYTES,
  ROUTINE_PROMPT_MAX_BYTES,
  ROUTINES_MAX,
  TICK_MAX_MS,
  WAKE_MAX_MINUTES,
  WAKE_MIN_MINUTES,
  WAKEUP_RETRY_MS,
  WAKEUPS_ARMED_MAX,
  WAKEUPS_PENDING_MAX,
} from './limits.ts';
import type { CreatedBy, Routine, ScheduleStore, Wake } from './store.ts';
import type { TimeZone } from '../util/tz.ts';

export type FailCode = 'not-found' | 'limit' | 'bad-input' | 'state' | 'storage';
export type Outcome<T> = { ok: true; value: T; message: string } | { ok: false; code: FailCode; message: string };

export interface SchedulerDeps {
  clock: Clock;
  /** The owner's time zone (ctx.time): daily and weekly runs are in it; a change moves them at once. */
  time: { zone(): TimeZone; format(ms: number): string; onChange(listener: (zone: TimeZone) => void): void };
  log: Log;
  store: ScheduleStore;
  random: RandomFill;
  engine: { run(req: TurnRequest): Promise<TurnOutcome> };
  /** A person's role now (null: the owner, always admin). */
  roleOf(person: string | null): Role;
  /** The chat a person is reached at (the owner: the owner's chat, null without one). */
  chatOf(person: string | null): string | null;
  /** Delivers a turn's reply (model-written) to a chat; null: the owner's. */
  sendReply(chat: string | null, text: string, key: string): Promise<void>;
  /** A device notice to a chat (default the owner's), de-duplicated by key. */
  notify(key: string, text: string, chat?: string): void;
}

export interface RoutineInput {
  name: string;
  prompt: string;
  chat: string | null;
  schedule: Schedule;
  by: string | null;
  createdBy: CreatedBy;
}

/** The turn chat when the owner has no messenger chat (replies then wait in the owner-notice outbox). */
export const NO_CHAT = 'schedule';

function fail<T>(code: FailCode, message: string): Outcome<T> {
  return { ok: false, code, message };
}

function byAge(a: { created: number; id: string }, b: { created: number; id: string }): number {
  return a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function excerpt(text: string, bytes: number): string {
  const t = text.trim();
  const cut = capBytes(t, bytes);
  return cut.length < t.length ? `${cut}...` : cut;
}

export class Scheduler {
  private routinesById = new Map<string, Routine>();
  private wakesById = new Map<string, Wake>();
  /** Monotonic ms a wakeup on an unset clock was armed at (RAM: after a restart it counts from boot). */
  private armedMono = new Map<string, number>();
  private running = new Set<string>();
  private timer: Timer | null = null;
  /** Nothing fires until start() (Orchestrator mode). */
  private stopped = true;
  /** Turns the scheduler started (routines and wakeups), for tests and the snapshot. */
  turns = 0;

  constructor(private readonly d: SchedulerDeps) {
    d.time.onChange(() => this.rezone());
    const { routines, wakes } = d.store.load();
    for (const r of routines) this.routinesById.set(r.id, r);
    for (const w of wakes) {
      this.wakesById.set(w.id, w);
      if (w.state === 'armed' && w.due === null) this.armedMono.set(w.id, d.clock.monoMs());
    }
  }

  // --- reading -----------------------------------------------------------------------

  /** Oldest first (as they read back after a restart). */
  routines(): Routine[] {
    return [...this.routinesById.values()].sort(byAge);
  }
  routine(id: string): Routine | null {
    return this.routinesById.get(id) ?? null;
  }
  wakes(kind?: Wake['kind']): Wake[] {
    return [...this.wakesById.values()].filter((w) => !kind || w.kind === kind).sort(byAge);
  }
  wake(id: string): Wake | null {
    return this.wakesById.get(id) ?? null;
  }
  tz(): TimeZone {
    return this.d.time.zone();
  }
  mode(): 'ask' | 'auto' {
    return this.d.store.mode();
  }
  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** A wall-clock instant for people, in the owner's time zone. */
  when(ms: number | null): string {
    if (ms === null) return this.d.clock.synced() ? 'not scheduled' : 'when the clock is set';
    return this.d.time.format(ms);
  }

  /** Now, for people ('unknown' while the clock is not set). */
  now(): string {
    return this.d.clock.synced() ? this.d.time.format(this.d.clock.wallMs()) : 'unknown (the clock is not set yet)';
  }

  // --- settings ----------------------------------------------------------------------

  /** The owner's zone changed (ctx.time): daily and weekly runs move to its local time at once; intervals do not. */
  private rezone(): void {
    if (this.d.clock.synced()) {
      const now = this.d.clock.wallMs();
      for (const rt of this.routinesById.values()) {
        if (rt.schedule.kind === 'interval' || !rt.approved || !rt.enabled) continue;
        rt.next = nextAfter(rt.schedule, this.tz(), now, rt.anchor ?? now);
        this.saveState(rt);
      }
    }
    this.kick();
  }

  setMode(mode: string): Outcome<'ask' | 'auto'> {
    if (mode !== 'ask' && mode !== 'auto') return fail('bad-input', 'the wakeup approval mode is ask or auto');
    try {
      this.d.store.setMode(mode);
    } catch (e) {
      return fail('storage', `the mode was not saved: ${errorMessage(e)}`);
    }
    return { ok: true, value: mode, message: mode === 'ask' ? 'New wakeups wait for your approval.' : 'New wakeups are armed at once.' };
  }

  // --- routines ----------------------------------------------------------------------

  private newId(prefix: string): string {
    for (;;) {
      const id = randomId(this.d.random, prefix, 2);
      if (!this.routinesById.has(id) && !this.wakesById.has(id)) return id;
    }
  }

  createRoutine(input: RoutineInput): Outcome<Routine> {
    const name = input.name.trim();
    const prompt = input.prompt.trim();
    if (!name) return fail('bad-input', 'name is empty');
    if (utf8Length(name) > ROUTINE_NAME_MAX_BYTES) return fail('bad-input', `name is longer than ${ROUTINE_NAME_MAX_BYTES} bytes`);
    if (!prompt) return fail('bad-input', 'prompt is empty');
    if (utf8Length(prompt) > ROUTINE_PROMPT_MAX_BYTES) return fail('bad-input', `prompt is longer than ${ROUTINE_PROMPT_MAX_BYTES} bytes`);
    if (this.routinesById.size >= ROUTINES_MAX) return fail('limit', `there are already ${ROUTINES_MAX} routines; cancel one first`);
    const { clock } = this.d;
    const r: Routine = {
      id: this.newId('r'),
      name,
      prompt,
      chat: input.chat,
      by: input.by,
      createdBy: input.createdBy,
      schedule: input.schedule,
      created: clock.synced() ? clock.wallMs() : 0,
      approved: false,
      enabled: true,
      anchor: null,
      next: null,
      last: null,
      runs: 0,
      failing: false,
    };
    try {
      this.d.store.addRoutine(r);
    } catch (e) {
      return fail('storage', `the routine was not saved (${errorMessage(e)}); nothing was created`);
    }
    this.routinesById.set(r.id, r);
    this.d.log.info('sched', `routine ${r.id} "${r.name}" created (${describeSchedule(r.schedule)}), waiting for approval`);
    this.d.notify(
      `card:${r.id}`,
      `A routine waits for your approval: "${r.name}" (${describeSchedule(r.schedule)}${r.chat ? `, replies to chat ${r.chat}` : ''}).\n` +
        `It will do: ${excerpt(r.prompt, 300)}\nReply /loop approve ${r.id} to let it run, or /loop deny ${r.id} to delete it. The web page's Routines & Wakeups lists it too.`,
    );
    return { ok: true, value: r, message: `Routine ${r.id} "${r.name}" (${describeSchedule(r.schedule)}) is created and waits for the owner's approval; it cannot run before.` };
  }

  private saveState(r: Routine): boolean {
    try {
      this.d.store.saveRoutineState(r);
      return true;
    } catch (e) {
      this.d.log.error('sched', `routine ${r.id} state not saved: ${errorMessage(e)}`);
      return false;
    }
  }

  /** Changes a routine's state all or nothing: the change is kept only if it was written. */
  private change(r: Routine, edit: (r: Routine) => void): Outcome<Routine> | null {
    const before = { ...r };
    edit(r);
    try {
      this.d.store.saveRoutineState(r);
      return null;
    } catch (e) {
      Object.assign(r, before);
      return fail('storage', `nothing was changed: ${errorMessage(e)}`);
    }
  }

  private schedule(r: Routine): void {
    const { clock } = this.d;
    if (!clock.synced()) {
      r.anchor = null;
      r.next = null;
      return;
    }
    const now = clock.wallMs();
    r.anchor = now;
    r.next = nextAfter(r.schedule, this.tz(), now, now);
  }

  approveRoutine(id: string): Outcome<Routine> {
    const r = this.routinesById.get(id);
    if (!r) return fail('not-found', `No routine has id ${id}.`);
    if (r.approved) return { ok: true, value: r, message: `Routine ${id} "${r.name}" is already approved (${r.enabled ? `next run ${this.when(r.next)}` : 'paused'}).` };
    const failed = this.change(r, (x) => {
      x.approved = true;
      x.enabled = true;
      this.schedule(x);
    });
    if (failed) return failed;
    this.d.log.info('sched', `routine ${id} approved`);
    this.kick();
    return { ok: true, value: r, message: `Approved routine ${id} "${r.name}" (${describeSchedule(r.schedule)}); next run ${this.when(r.next)}.` };
  }

  setRoutineEnabled(id: string, on: boolean): Outcome<Routine> {
    const r = this.routinesById.get(id);
    if (!r) return fail('not-found', `No routine has id ${id}.`);
    if (!r.approved) return fail('state', `Routine ${id} "${r.name}" waits for approval; approve it (or deny it) first.`);
    if (r.enabled === on) return { ok: true, value: r, message: `Routine ${id} "${r.name}" is already ${on ? `on (next run ${this.when(r.next)})` : 'paused'}.` };
    const failed = this.change(r, (x) => {
      x.enabled = on;
      if (on) this.schedule(x);
      else x.next = null;
    });
    if (failed) return failed;
    this.d.log.info('sched', `routine ${id} ${on ? 'resumed' : 'paused'}`);
    this.kick();
    return { ok: true, value: r, message: on ? `Resumed routine ${id} "${r.name}"; next run ${this.when(r.next)}.` : `Paused routine ${id} "${r.name}". /loop on ${id} resumes it.` };
  }

  removeRoutine(id: string): Outcome<Routine> {
    const r = this.routinesById.get(id);
    if (!r) return fail('not-found', `No routine has id ${id}.`);
    try {
      this.d.store.removeRoutine(id);
    } catch (e) {
      return fail('storage', `nothing was deleted: ${errorMessage(e)}`);
    }
    this.routinesById.delete(id);
    this.d.log.info('sched', `routine ${id} deleted`);
    return { ok: true, value: r, message: `Deleted routine ${id} "${r.name}".` };
  }

  // --- wakeups and reminders ---------------------------------------------------------

  private count(kind: Wake['kind'], state?: Wake['state']): number {
    let n = 0;
    for (const w of this.wakesById.values()) if (w.kind === kind && (!state || w.state === state)) n++;
    return n;
  }

  private arm(w: Wake): void {
    const { clock } = this.d;
    w.state = 'armed';
    w.left = w.minutes * 60_000;
    if (clock.synced()) w.due = clock.wallMs() + w.left;
    else {
      w.due = null;
      this.armedMono.set(w.id, clock.monoMs());
    }
  }

  private checkNote(note: string, what: string): string | null {
    if (!note.trim()) return `${what} is empty`;
    if (utf8Length(note.trim()) > NOTE_MAX_BYTES) return `${what} is longer than ${NOTE_MAX_BYTES} bytes`;
    return null;
  }

  setWakeup(input: { minutes: number; note: string; chat: string | null; by: string | null; createdBy: CreatedBy }): Outcome<Wake> {
    if (!Number.isInteger(input.minutes) || input.minutes < WAKE_MIN_MINUTES || input.minutes > WAKE_MAX_MINUTES) {
      return fail('bad-input', `minutes must be a whole number from ${WAKE_MIN_MINUTES} to ${WAKE_MAX_MINUTES} (2 minutes to 7 days)`);
    }
    const bad = this.checkNote(input.note, 'note');
    if (bad) return fail('bad-input', bad);
    const ask = this.mode() === 'ask';
    if (ask ? this.count('wakeup', 'pending') >= WAKEUPS_PENDING_MAX : this.count('wakeup', 'armed') >= WAKEUPS_ARMED_MAX) {
      return fail('limit', ask ? `${WAKEUPS_PENDING_MAX} wakeups already wait for approval` : `${WAKEUPS_ARMED_MAX} wakeups are already armed (the most there may be); cancel one first`);
    }
    const { clock } = this.d;
    const w: Wake = {
      id: this.newId('w'),
      kind: 'wakeup',
      note: input.note.trim(),
      minutes: input.minutes,
      chat: input.chat,
      by: input.by,
      createdBy: input.createdBy,
      state: 'pending',
      created: clock.synced() ? clock.wallMs() : 0,
      due: null,
      left: input.minutes * 60_000,
      attempts: 0,
    };
    if (!ask) this.arm(w);
    try {
      this.d.store.saveWake(w);
    } catch (e) {
      this.armedMono.delete(w.id);
      return fail('storage', `the wakeup was not saved (${errorMessage(e)}); nothing was set`);
    }
    this.wakesById.set(w.id, w);
    this.d.log.info('sched', `wakeup ${w.id} ${ask ? 'waits for approval' : `armed for ${this.when(w.due)}`}`);
    if (ask) {
      this.d.notify(
        `card:${w.id}`,
        `The assistant asks to wake itself in ${w.minutes} minute(s) once approved, to: ${excerpt(w.note, 300)}\nReply /loop approve ${w.id} to arm it, or /loop deny ${w.id} to cancel it (also on the web page).`,
      );
      return { ok: true, value: w, message: `Wakeup ${w.id} waits for the owner's approval (ask mode); once approved it fires ${w.minutes} minute(s) later.` };
    }
    this.kick();
    return { ok: true, value: w, message: `Wakeup ${w.id} is armed: one turn at ${this.when(w.due)}${w.due === null ? ` (${w.minutes} minute(s) from now)` : ''}.` };
  }

  approveWake(id: string): Outcome<Wake> {
    const w = this.wakesById.get(id);
    if (!w) return fail('not-found', `No wakeup or reminder has id ${id}.`);
    if (w.state === 'armed') return { ok: true, value: w, message: `${w.kind === 'reminder' ? 'Reminder' : 'Wakeup'} ${id} is already armed (${this.when(w.due)}).` };
    if (this.count('wakeup', 'armed') >= WAKEUPS_ARMED_MAX) return fail('limit', `${WAKEUPS_ARMED_MAX} wakeups are already armed (the most there may be); cancel one first.`);
    const before = { ...w };
    this.arm(w);
    try {
      this.d.store.saveWake(w);
    } catch (e) {
      Object.assign(w, before);
      this.armedMono.delete(id);
      return fail('storage', `nothing was changed: ${errorMessage(e)}`);
    }
    this.d.log.info('sched', `wakeup ${id} approved, armed for ${this.when(w.due)}`);
    this.kick();
    return { ok: true, value: w, message: `Armed wakeup ${id}: one turn at ${this.when(w.due)}.` };
  }

  cancelWake(id: string): Outcome<Wake> {
    const w = this.wakesById.get(id);
    if (!w) return fail('not-found', `No wakeup or reminder has id ${id}.`);
    try {
      this.d.store.removeWake(id);
    } catch (e) {
      return fail('storage', `nothing was cancelled: ${errorMessage(e)}`);
    }
    this.wakesById.delete(id);
    this.armedMono.delete(id);
    this.d.log.info('sched', `${w.kind} ${id} cancelled`);
    return { ok: true, value: w, message: `Cancelled ${w.kind} ${id}.` };
  }

  addReminder(input: { ms: number; text: string; chat: string; by: string | null }): Outcome<Wake> {
    const bad = this.checkNote(input.text, 'the reminder text');
    if (bad) return fail('bad-input', bad);
    const minutes = input.ms / 60_000;
    if (minutes < WAKE_MIN_MINUTES || minutes > WAKE_MAX_MINUTES) return fail('bad-input', 'a reminder must be from 2 minutes to 7 days away');
    if (this.count('reminder') >= REMINDERS_MAX) return fail('limit', `${REMINDERS_MAX} reminders are already set; cancel one with /loop deny <id> first`);
    const { clock } = this.d;
    const w: Wake = {
      id: this.newId('m'),
      kind: 'reminder',
      note: input.text.trim(),
      minutes,
      chat: input.chat,
      by: input.by,
      createdBy: 'owner',
      state: 'armed',
      created: clock.synced() ? clock.wallMs() : 0,
      due: null,
      left: input.ms,
      attempts: 0,
    };
    if (clock.synced()) w.due = clock.wallMs() + input.ms;
    else this.armedMono.set(w.id, clock.monoMs());
    try {
      this.d.store.saveWake(w);
    } catch (e) {
      this.armedMono.delete(w.id);
      return fail('storage', `the reminder was not saved (${errorMessage(e)})`);
    }
    this.wakesById.set(w.id, w);
    this.d.log.info('sched', `reminder ${w.id} set for ${this.when(w.due)}`);
    this.kick();
    return { ok: true, value: w, message: `Reminder ${w.id} set for ${this.when(w.due)}. /loop deny ${w.id} cancels it.` };
  }

  // --- the timer ---------------------------------------------------------------------

  /** Starts the timer (Orchestrator mode). */
  start(): void {
    this.stopped = false;
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** Looks at the clock on the next loop turn. */
  private kick(): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.d.clock.setTimeout(() => this.tick(), 0);
  }

  /** Fires what is due and sets the timer for the next thing (at most TICK_MAX_MS away). */
  tick(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.stopped) return;
    const { clock } = this.d;
    const synced = clock.synced();
    const now = clock.wallMs();
    const mono = clock.monoMs();
    let wait = TICK_MAX_MS;
    for (const r of [...this.routinesById.values()]) {
      if (!r.approved || !r.enabled || this.running.has(r.id) || !synced) continue;
      if (r.next === null) {
        r.anchor ??= now;
        r.next = nextAfter(r.schedule, this.tz(), now, r.anchor);
        this.saveState(r);
      }
      if (now < r.next) {
        wait = Math.min(wait, r.next - now);
        continue;
      }
      this.due(r, now);
    }
    for (const w of [...this.wakesById.values()]) {
      if (w.state !== 'armed' || this.running.has(w.id)) continue;
      if (w.due === null) {
        const end = (this.armedMono.get(w.id) ?? mono) + w.left;
        if (synced) {
          // The wall clock is set now: from here on the wakeup keeps wall time.
          w.due = now + Math.max(0, end - mono);
          this.saveWake(w);
        } else if (mono >= end) {
          void this.fire(w, 0);
          continue;
        } else {
          wait = Math.min(wait, end - mono);
          continue;
        }
      }
      if (!synced) continue;
      if (now < w.due) {
        wait = Math.min(wait, w.due - now);
        continue;
      }
      void this.fire(w, now - w.due);
    }
    this.timer = clock.setTimeout(() => this.tick(), Math.max(0, wait));
  }

  private saveWake(w: Wake): boolean {
    try {
      this.d.store.saveWake(w);
      return true;
    } catch (e) {
      this.d.log.error('sched', `${w.kind} ${w.id} not saved: ${errorMessage(e)}`);
      return false;
    }
  }

  /** A routine's run is due: decide between running it (maybe late) and reporting it missed. */
  private due(r: Routine, now: number): void {
    const anchor = r.anchor ?? now;
    const scheduled = r.next!;
    const latest = latestAtOrBefore(r.schedule, this.tz(), now, anchor) ?? scheduled;
    let skipped = 0;
    for (let t = scheduled; t < latest && skipped < 10_000; t = nextAfter(r.schedule, this.tz(), t, anchor)) skipped++;
    r.next = nextAfter(r.schedule, this.tz(), now, anchor);
    const lateBy = now - latest;
    if (lateBy > CATCH_UP_MS) {
      r.last = { at: now, ok: false, late: true, text: capBytes(`Missed the run of ${this.when(latest)} (the device was off or its clock was not set)${skipped ? ` and ${skipped} earlier one(s)` : ''}.`, LAST_RESULT_BYTES) };
      this.saveState(r);
      this.d.log.warn('sched', `routine ${r.id} missed its run of ${this.when(latest)}; next ${this.when(r.next)}`);
      this.d.notify(`missed:${r.id}:${latest}`, `Routine ${r.id} "${r.name}" missed its run of ${this.when(latest)} while the device was off or its clock was not set; it runs next at ${this.when(r.next)}.`);
      return;
    }
    // Advanced and written before the turn: a restart in the middle does not run it again.
    this.saveState(r);
    if (skipped) this.d.log.info('sched', `routine ${r.id}: ${skipped} missed run(s) skipped, the latest runs now`);
    void this.runRoutine(r, latest, lateBy > ON_TIME_MS, skipped);
  }

  private target(chat: string | null, by: string | null): { turnChat: string; deliverTo: string | null } {
    if (chat) return { turnChat: chat, deliverTo: chat };
    const own = this.d.chatOf(by);
    return { turnChat: own ?? NO_CHAT, deliverTo: by === null ? null : own };
  }

  private async turn(req: { chat: string; by: string | null; preamble: string }): Promise<{ outcome: TurnOutcome | null; text: string; error: string }> {
    let reply = '';
    let ask = '';
    let outcome: TurnOutcome | null = null;
    let error = '';
    this.turns++;
    try {
      outcome = await this.d.engine.run({
        chat: req.chat,
        text: '',
        person: req.by,
        admin: this.d.roleOf(req.by) === 'admin',
        origin: 'schedule',
        scheduled: true,
        unattended: true,
        preamble: req.preamble,
        deliver: (r, a) => {
          reply = r;
          ask = a;
        },
      });
      if (outcome.status !== 'ok') error = outcome.error ?? (outcome.status === 'deferred' ? 'the device was short on memory' : outcome.status);
    } catch (e) {
      error = errorMessage(e);
    }
    return { outcome, text: [reply, ask].filter((t) => t.trim()).join('\n\n'), error };
  }

  private async runRoutine(r: Routine, scheduled: number, late: boolean, skipped: number): Promise<void> {
    this.running.add(r.id);
    try {
      if (this.d.roleOf(r.by) === 'unknown') {
        r.last = { at: this.d.clock.wallMs(), ok: false, late, text: 'Not run: the person it runs for may no longer use this device.' };
        this.saveState(r);
        return;
      }
      const { turnChat, deliverTo } = this.target(r.chat, r.by);
      const preamble =
        `[SYSTEM] Scheduled routine "${r.name}" (${r.id}, ${describeSchedule(r.schedule)}) runs now` +
        (late ? `, late: it was due at ${this.when(scheduled)} while the device was off or its clock was not set` : '') +
        (skipped ? ` (${skipped} earlier missed run(s) were skipped)` : '') +
        `. It is ${this.now()}. No person wrote this message: do what the routine asks and write what the chat should read, briefly.\n[ROUTINE] ${r.prompt}`;
      const { outcome, text, error } = await this.turn({ chat: turnChat, by: r.by, preamble });
      const at = this.d.clock.wallMs();
      if (!this.routinesById.has(r.id)) return; // deleted while it ran
      r.runs++;
      if (outcome?.status === 'ok') {
        if (text) await this.d.sendReply(deliverTo, text, `loop:${r.id}:${scheduled}`);
        r.last = { at, ok: true, late, text: capBytes(text || '(no reply)', LAST_RESULT_BYTES) };
        r.failing = false;
        this.d.log.info('sched', `routine ${r.id} ran${late ? ' (late)' : ''}`);
      } else {
        r.last = { at, ok: false, late, text: capBytes(`Failed: ${error}`, LAST_RESULT_BYTES) };
        this.d.log.warn('sched', `routine ${r.id} failed: ${error}`);
        if (!r.failing) this.d.notify(`loopfail:${r.id}:${scheduled}`, `Routine ${r.id} "${r.name}" failed: ${capBytes(error, 200)}. It runs again at ${this.when(r.next)}; the web page shows its last result.`);
        r.failing = true;
      }
      this.saveState(r);
    } finally {
      this.running.delete(r.id);
      this.kick();
    }
  }

  private async fire(w: Wake, lateBy: number): Promise<void> {
    this.running.add(w.id);
    try {
      if (w.kind === 'reminder') return this.remind(w, lateBy);
      if (w.attempts >= 2) {
        // A restart during the retry: it had its two tries.
        this.retire(w, `Wakeup ${w.id} did not finish (the device restarted during its retry) and is retired. Its note: ${excerpt(w.note, 300)}`);
        return;
      }
      if (lateBy > CATCH_UP_MS) {
        this.retire(w, `Wakeup ${w.id} was due at ${this.when(w.due)} while the device was off or its clock was not set, so it did not run. Its note: ${excerpt(w.note, 300)}`);
        return;
      }
      w.attempts++;
      // The attempt counts before the turn: a restart in the middle makes the next one the retry.
      this.saveWake(w);
      const { turnChat, deliverTo } = this.target(w.chat, w.by);
      const late = lateBy > ON_TIME_MS;
      const preamble =
        `[SYSTEM] Wakeup ${w.id}: you set it ${w.minutes} minute(s) before${late ? ` ${this.when(w.due)}; it runs late because the device was off or its clock was not set` : ''}${w.attempts > 1 ? ' (second try: the first turn failed)' : ''}. ` +
        `It is ${this.now()}. No person wrote this message: act on your note and tell the chat what it needs to know, briefly.\n[NOTE] ${w.note}`;
      const { outcome, text, error } = await this.turn({ chat: turnChat, by: w.by, preamble });
      if (!this.wakesById.has(w.id)) return; // cancelled while it ran
      if (outcome?.status === 'ok') {
        if (text) await this.d.sendReply(deliverTo, text, `wake:${w.id}`);
        this.remove(w);
        this.d.log.info('sched', `wakeup ${w.id} fired and retired`);
        return;
      }
      if (w.attempts < 2) {
        this.d.log.warn('sched', `wakeup ${w.id} failed (${error}); one retry in ${WAKEUP_RETRY_MS / 1000} s`);
        const { clock } = this.d;
        if (clock.synced()) w.due = clock.wallMs() + WAKEUP_RETRY_MS;
        else {
          w.due = null;
          w.left = WAKEUP_RETRY_MS;
          this.armedMono.set(w.id, clock.monoMs());
        }
        this.saveWake(w);
        return;
      }
      this.retire(w, `Wakeup ${w.id} failed twice (${capBytes(error, 200)}) and is retired. Its note: ${excerpt(w.note, 300)}`);
    } finally {
      this.running.delete(w.id);
      this.kick();
    }
  }

  private remind(w: Wake, lateBy: number): void {
    const late = lateBy > ON_TIME_MS ? `\n(Late: it was due at ${this.when(w.due)} while the device was off or its clock was not set.)` : '';
    this.d.notify(`remind:${w.id}`, `Reminder: ${w.note}${late}`, w.chat ?? undefined);
    this.remove(w);
    this.d.log.info('sched', `reminder ${w.id} delivered`);
  }

  private retire(w: Wake, alert: string): void {
    this.d.log.warn('sched', `wakeup ${w.id} retired: ${alert}`);
    this.d.notify(`wakefail:${w.id}`, alert);
    this.remove(w);
  }

  private remove(w: Wake): void {
    try {
      this.d.store.removeWake(w.id);
    } catch (e) {
      this.d.log.error('sched', `${w.kind} ${w.id} not removed: ${errorMessage(e)}`);
    }
    this.wakesById.delete(w.id);
    this.armedMono.delete(w.id);
  }
}
