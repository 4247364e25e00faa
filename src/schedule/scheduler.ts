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
// This file owns those operations (create, approve, pause, cancel, set) and
// reading the lists; the timer, firing what is due, late runs and missed ones
// are runner.ts's (ScheduleRunner, which Scheduler extends).

import { randomId } from '../util/ids.ts';
import { errorMessage } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';
import { describeSchedule, nextAfter, type Schedule } from './calendar.ts';
import {
  NOTE_MAX_BYTES,
  REMINDERS_MAX,
  ROUTINE_NAME_MAX_BYTES,
  ROUTINE_PROMPT_MAX_BYTES,
  ROUTINES_MAX,
  WAKE_MAX_MINUTES,
  WAKE_MIN_MINUTES,
  WAKEUPS_ARMED_MAX,
  WAKEUPS_PENDING_MAX,
} from './limits.ts';
import { excerpt, ScheduleRunner } from './runner.ts';
import type { CreatedBy, Routine, Wake } from './store.ts';

export { NO_CHAT, type SchedulerDeps } from './runner.ts';

export type FailCode = 'not-found' | 'limit' | 'bad-input' | 'state' | 'storage';
export type Outcome<T> = { ok: true; value: T; message: string } | { ok: false; code: FailCode; message: string };

export interface RoutineInput {
  name: string;
  prompt: string;
  chat: string | null;
  schedule: Schedule;
  by: string | null;
  createdBy: CreatedBy;
}

function fail<T>(code: FailCode, message: string): Outcome<T> {
  return { ok: false, code, message };
}

function byAge(a: { created: number; id: string }, b: { created: number; id: string }): number {
  return a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export class Scheduler extends ScheduleRunner {
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
  mode(): 'ask' | 'auto' {
    return this.d.store.mode();
  }
  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  // --- settings ----------------------------------------------------------------------

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
}
