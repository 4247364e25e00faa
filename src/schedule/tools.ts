// The scheduler's tools (spec, Tool server): loop.create (admin-only; refused
// in scheduled turns and in every other unattended turn, synthesis included:
// the spec's unattended rails name no loop.create), loop.list and
// loop.cancel (admin-only), wakeup.set (admin-only; at most 4 armed).
//
// Who a routine or wakeup runs for is the caller's person (null: the owner);
// its replies go to chat_id when given (a chat on the allowlist), else to
// that person's chat (the owner's chat for the owner).

import { fail, ok, type ToolCaller, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import { parseSchedule } from './calendar.ts';
import { INTERVAL_MAX_S, INTERVAL_MIN_S, ROUTINE_NAME_MAX_BYTES, WAKE_MAX_MINUTES, WAKE_MIN_MINUTES } from './limits.ts';
import type { FailCode, Outcome, Scheduler } from './scheduler.ts';
import { routineView, wakeView } from './views.ts';
import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CHAT_ID = /^-?\d{1,20}$/;

function result<T>(o: Outcome<T>): ToolResult {
  if (o.ok) return ok(o.message);
  const type: Record<FailCode, string> = { 'not-found': 'not-found', limit: 'limit', 'bad-input': 'bad-arguments', state: 'refused', storage: 'storage' };
  return fail(type[o.code], o.message);
}

/** Who may be messaged (the chat's people registry). */
export interface ChatAllowlist {
  mayChat(chat: string): boolean;
}

/** A chat_id argument: a chat on the allowlist; null when absent. */
export function chatIdArg(people: ChatAllowlist, v: unknown): { ok: true; chat: string | null } | { ok: false; error: string } {
  if (v === undefined || v === null || v === '') return { ok: true, chat: null };
  const chat = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!CHAT_ID.test(chat)) return { ok: false, error: 'chat_id must be a chat id (a number)' };
  if (!people.mayChat(chat)) return { ok: false, error: `chat ${chat} is not on the allowlist` };
  return { ok: true, chat };
}

function via(caller: ToolCaller): 'mcp' | 'model' {
  return caller.via === 'mcp' ? 'mcp' : 'model';
}

export function scheduleTools(s: Scheduler, people: ChatAllowlist): ToolSpec[] {
  return [
    {
      name: 'loop.create',
      description:
        'Create a routine: a prompt the assistant runs on a schedule, its reply going to a chat. It waits for the owner\'s approval before it can run. ' +
        'schedule: {"kind":"interval","every_seconds":N} (N at least 300), or {"kind":"daily","at":"HH:MM"} (optionally days), or {"kind":"weekly","at":"HH:MM","days":["mon","thu"]}; times are the owner\'s local time.',
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: ROUTINE_NAME_MAX_BYTES, description: 'a short name' },
          prompt: { type: 'string', minLength: 1, description: 'what to do at each run (at most 1000 bytes)' },
          chat_id: { type: ['string', 'integer'], description: 'the chat its replies go to (default: yours)' },
          schedule: {
            type: 'object',
            properties: {
              kind: { type: 'string', enum: ['interval', 'daily', 'weekly'] },
              every_seconds: { type: 'integer', minimum: INTERVAL_MIN_S, maximum: INTERVAL_MAX_S, description: 'interval: seconds between runs' },
              at: { type: 'string', description: 'daily or weekly: local time HH:MM' },
              days: { type: 'array', maxItems: 7, items: { type: ['string', 'integer'] }, description: 'weekdays: mon ... sun, or 0-6 with 0 = Sunday (weekly: required; daily: optional)' },
            },
            required: ['kind'],
            additionalProperties: false,
          },
        },
        required: ['name', 'prompt', 'schedule'],
        additionalProperties: false,
      },
      access: 'admin',
      where: 'both',
      scheduled: false,
      unattended: false,
      handler: (args, caller) => {
        const schedule = parseSchedule(args.schedule);
        if (!schedule.ok) return fail('bad-arguments', schedule.error);
        const chat = chatIdArg(people, args.chat_id);
        if (!chat.ok) return fail('bad-arguments', chat.error);
        return result(s.createRoutine({ name: String(args.name), prompt: String(args.prompt), chat: chat.chat, schedule: schedule.schedule, by: caller.person, createdBy: via(caller) }));
      },
    },
    {
      name: 'loop.list',
      description: 'Routines (approval, schedule, next run, last result), reminders and wakeups, with the owner\'s time zone. JSON.',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'admin',
      where: 'both',
      handler: () =>
        ok(
          stringify({
            routines: s.routines().map((r) => routineView(s, r)),
            wakeups: s.wakes().map((w) => wakeView(s, w)),
            tz: s.tz().text,
            now: s.now(),
          }),
        ),
    },
    {
      name: 'loop.cancel',
      description: 'Delete a routine, or cancel a wakeup or reminder, by id.',
      schema: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 15 } }, required: ['id'], additionalProperties: false },
      access: 'admin',
      where: 'both',
      handler: (args) => {
        const id = String(args.id).trim();
        return s.routine(id) ? result(s.removeRoutine(id)) : result(s.cancelWake(id));
      },
    },
    {
      name: 'wakeup.set',
      description:
        'Wake yourself once, minutes from now (2 to 10080), for one turn with your note; the reply goes to your chat. ' +
        'In the owner\'s ask mode it waits for approval (its minutes then count from the approval). At most 4 are armed.',
      schema: {
        type: 'object',
        properties: {
          minutes: { type: 'integer', minimum: WAKE_MIN_MINUTES, maximum: WAKE_MAX_MINUTES },
          note: { type: 'string', minLength: 1, description: 'what to do then (at most 500 bytes)' },
        },
        required: ['minutes', 'note'],
        additionalProperties: false,
      },
      access: 'admin',
      where: 'both',
      handler: (args, caller) => result(s.setWakeup({ minutes: Number(args.minutes), note: String(args.note), chat: null, by: caller.person, createdBy: via(caller) })),
    },
  ];
}
