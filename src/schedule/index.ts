// The scheduler subsystem (routines, wakeups, reminders, in the owner's time
// zone, ctx.time): builds the Scheduler over NVS namespace 'sched', registers its
// tools (loop.*, wakeup.set), chat commands (/remind, /loops, /loop), routes
// (/api/routines, /api/wakeups) and the schedule section of
// the state snapshot, and starts the timer in Orchestrator mode (Notifier
// mode has no network for turns: nothing fires there, and what fell due is
// handled by the missed-run rule at the next Orchestrator boot).
//
// Turns it starts are scheduled and unattended (origin 'schedule'), through
// the turn engine's queue; a reply goes to the chat the routine or wakeup
// names, else to its person's chat, through the chat's durable send queue
// (ctx.chat.notify), which waits in the outbox while the messenger is not set up.

import type { Context } from '../core/context.ts';
import type { Assistant } from '../turn/index.ts';
import { registerScheduleCommands } from './commands.ts';
import { installScheduleRoutes } from './routes.ts';
import { Scheduler } from './scheduler.ts';
import { SCHED_NS, ScheduleStore } from './store.ts';
import { registerScheduleTools } from './tools.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const MESSENGER_CHAT = /^-?\d{1,20}$/;

/** A messenger chat id, or undefined (the owner's chat) for the console, web and /mcp. */
function messengerChat(chat: string | null | undefined): string | undefined {
  return chat && MESSENGER_CHAT.test(chat) ? chat : undefined;
}

export function installSchedule(ctx: Context, assistant: Assistant): Scheduler {
  const people = ctx.chat.people;
  const store = new ScheduleStore(ctx.store(SCHED_NS), () => ctx.hal.nvs.keys(SCHED_NS), ctx.log);
  const scheduler = new Scheduler({
    clock: ctx.hal.clock,
    time: ctx.time,
    log: ctx.log,
    store,
    random: ctx.random,
    engine: assistant.engine,
    roleOf: (person) => people.roleOf(person),
    chatOf: (person) => people.chatOf(person),
    // One durable path for what the device sends on its own (ctx.chat.notify): the send queue,
    // keyed against repeats after a restart, or the outbox while the messenger is not set up.
    sendReply: async (chat, text, key) => void ctx.chat.notify({ key, text, chat: messengerChat(chat), signed: false, provenance: 'model' }),
    notify: (key, text, chat) => void ctx.chat.notify({ key, text, chat: messengerChat(chat), signed: true, provenance: 'device' }),
  });
  registerScheduleTools(ctx, scheduler);
  registerScheduleCommands(ctx.chat.commands, scheduler);
  installScheduleRoutes(ctx, scheduler);
  ctx.status.section(() => ({
    schedule: {
      tz: scheduler.tz().text,
      routines: scheduler.routines().length,
      pending: scheduler.routines().filter((r) => !r.approved).length + scheduler.wakes().filter((w) => w.state === 'pending').length,
      wakeups: scheduler.wakes('wakeup').filter((w) => w.state === 'armed').length,
      reminders: scheduler.wakes('reminder').length,
    },
  }));
  if (ctx.mode === 1) scheduler.start();
  return scheduler;
}
