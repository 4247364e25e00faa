// The scheduler's clock work: the one timer and what it fires when something
// is due (a routine's run, maybe late or missed; a wakeup's turn and its one
// retry; a reminder's message), over the routines and wakeups the scheduler
// keeps in RAM and in its store. What the owner and the assistant do to them
// (create, approve, pause, cancel) is scheduler.ts's.
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
import type { RandomFill } from '../util/ids.ts';
import { errorMessage } from '../util/json.ts';
import { describeSchedule, latestAtOrBefore, nextAfter } from './calendar.ts';
import { CATCH_UP_MS, LAST_RESULT_BYTES, ON_TIME_MS, TICK_MAX_MS, WAKEUP_RETRY_MS } from './limits.ts';
import type { Routine, ScheduleStore, Wake } from './store.ts';
import type { TimeZone } from '../util/tz.ts';

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

/** The turn chat when the owner has no messenger chat (replies then wait in the owner-notice outbox). */
export const NO_CHAT = 'schedule';

/** The start of a note or prompt for a message, '...' where it was cut. */
export function excerpt(text: string, bytes: number): string {
  const t = text.trim();
  const cut = capBytes(t, bytes);
  return cut.length < t.length ? `${cut}...` : cut;
}

export abstract class ScheduleRunner {
  protected routinesById = new Map<string, Routine>();
  protected wakesById = new Map<string, Wake>();
  /** Monotonic ms a wakeup on an unset clock was armed at (RAM: after a restart it counts from boot). */
  protected armedMono = new Map<string, number>();
  protected running = new Set<string>();
  protected timer: Timer | null = null;
  /** Nothing fires until start() (Orchestrator mode). */
  protected stopped = true;
  /** Turns the scheduler started (routines and wakeups), for tests and the snapshot. */
  turns = 0;

  constructor(protected readonly d: SchedulerDeps) {
    d.time.onChange(() => this.rezone());
    const { routines, wakes } = d.store.load();
    for (const r of routines) this.routinesById.set(r.id, r);
    for (const w of wakes) {
      this.wakesById.set(w.id, w);
      if (w.state === 'armed' && w.due === null) this.armedMono.set(w.id, d.clock.monoMs());
    }
  }

  tz(): TimeZone {
    return this.d.time.zone();
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

  /** The owner's zone changed (ctx.time): daily and weekly runs move to its local time at once; intervals do not. */
  protected rezone(): void {
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

  protected saveState(r: Routine): boolean {
    try {
      this.d.store.saveRoutineState(r);
      return true;
    } catch (e) {
      this.d.log.error('sched', `routine ${r.id} state not saved: ${errorMessage(e)}`);
      return false;
    }
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
  protected kick(): void {
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

  protected saveWake(w: Wake): boolean {
    try {
      this.d.store.saveWake(w);
      return true;
    } catch (e) {
      this.d.log.error('sched', `${w.kind} ${w.id} not saved: ${errorMessage(e)}`);
      return false;
    }
  }

  /** A routine's run is due: decide between running it (maybe late) and reporting it missed. */
  protected due(r: Routine, now: number): void {
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

  protected target(chat: string | null, by: string | null): { turnChat: string; deliverTo: string | null } {
    if (chat) return { turnChat: chat, deliverTo: chat };
    const own = this.d.chatOf(by);
    return { turnChat: own ?? NO_CHAT, deliverTo: by === null ? null : own };
  }

  protected async turn(req: { chat: string; by: string | null; preamble: string }): Promise<{ outcome: TurnOutcome | null; text: string; error: string }> {
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

  protected async runRoutine(r: Routine, scheduled: number, late: boolean, skipped: number): Promise<void> {
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

  protected async fire(w: Wake, lateBy: number): Promise<void> {
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

  protected remind(w: Wake, lateBy: number): void {
    const late = lateBy > ON_TIME_MS ? `\n(Late: it was due at ${this.when(w.due)} while the device was off or its clock was not set.)` : '';
    this.d.notify(`remind:${w.id}`, `Reminder: ${w.note}${late}`, w.chat ?? undefined);
    this.remove(w);
    this.d.log.info('sched', `reminder ${w.id} delivered`);
  }

  protected retire(w: Wake, alert: string): void {
    this.d.log.warn('sched', `wakeup ${w.id} retired: ${alert}`);
    this.d.notify(`wakefail:${w.id}`, alert);
    this.remove(w);
  }

  protected remove(w: Wake): void {
    try {
      this.d.store.removeWake(w.id);
    } catch (e) {
      this.d.log.error('sched', `${w.kind} ${w.id} not removed: ${errorMessage(e)}`);
    }
    this.wakesById.delete(w.id);
    this.armedMono.delete(w.id);
  }
}
