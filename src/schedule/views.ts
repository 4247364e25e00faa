// How routines, wakeups and reminders read: JSON for loop.list and the web
// page (GET /api/routines, GET /api/wakeups: flat scalar fields a list can
// show, plus the schedule in the tool's shape), and lines for the chat's
// /loops.

import { describeSchedule, scheduleJson } from './calendar.ts';
import type { Scheduler } from './scheduler.ts';
import type { Routine, Wake } from './store.ts';

export function routineView(s: Scheduler, r: Routine): Record<string, unknown> {
  return {
    id: r.id,
    name: r.name,
    approval: r.approved ? 'approved' : 'pending',
    approved: r.approved,
    enabled: r.enabled,
    schedule: describeSchedule(r.schedule),
    next: r.approved && r.enabled ? s.when(r.next) : null,
    last: r.last ? `${r.last.ok ? 'ok' : 'failed'}${r.last.late ? ' (late)' : ''} ${r.last.at ? s.when(r.last.at) : ''}: ${r.last.text}` : null,
    chat_id: r.chat,
    created_by: r.createdBy,
    runs: r.runs,
    prompt: r.prompt,
    spec: scheduleJson(r.schedule),
    next_ms: r.approved && r.enabled ? r.next : null,
    running: s.isRunning(r.id),
  };
}

export function wakeView(s: Scheduler, w: Wake): Record<string, unknown> {
  return {
    id: w.id,
    kind: w.kind,
    note: w.note,
    state: w.state,
    armed: w.state === 'armed',
    minutes: w.minutes,
    due: w.state === 'armed' ? s.when(w.due) : null,
    due_ms: w.state === 'armed' ? w.due : null,
    chat_id: w.chat,
    created_by: w.createdBy,
    tries: w.attempts,
  };
}

/** /loops: routines, then reminders and wakeups, then the clock. */
export function loopLines(s: Scheduler): string[] {
  const lines: string[] = [];
  const routines = s.routines();
  lines.push(routines.length ? 'Routines:' : 'No routines.');
  for (const r of routines) {
    const state = !r.approved ? `waits for approval (/loop approve ${r.id})` : r.enabled ? `next ${s.when(r.next)}` : `paused (/loop on ${r.id})`;
    lines.push(`${r.id} "${r.name}", ${describeSchedule(r.schedule)}: ${state}`);
  }
  const reminders = s.wakes('reminder');
  lines.push(reminders.length ? 'Reminders:' : 'No reminders.');
  for (const w of reminders) lines.push(`${w.id} at ${s.when(w.due)}: ${w.note}`);
  const wakeups = s.wakes('wakeup');
  if (wakeups.length) {
    lines.push('Wakeups:');
    for (const w of wakeups) lines.push(`${w.id} ${w.state === 'armed' ? `at ${s.when(w.due)}` : `waits for approval (/loop approve ${w.id})`}: ${w.note}`);
  }
  lines.push(`It is ${s.now()} (time zone ${s.tz().text}).`);
  return lines;
}
