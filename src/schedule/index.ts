// The scheduler subsystem (routines, wakeups, reminders, the owner's time
// zone): builds the Scheduler over NVS namespace 'sched', registers its
// tools (loop.*, wakeup.set), chat commands (/remind, /loops, /loop), routes
// (/api/routines, /api/wakeups, /api/timezone) and the schedule section of
// the state snapshot, and starts the timer in Orchestrator mode (Notifier
// mode has no network for turns: nothing fires there, and what fell due is
// handled by the missed-run rule at the next Orchestrator boot).
//
// Turns it starts are scheduled and unattended (origin 'schedule'), through
// the turn engine's queue; a reply goes to the chat the routine or wakeup
// names, else to its person's chat, by the chat messenger when it can take
// it, else by the owner-notice outbox (which waits for the messenger).

import type { Context } from '../core/context.ts';
import type { Assistant } from '../turn/index.ts';
import { registerScheduleCommands } from './commands.ts';
import { installScheduleRoutes } from './routes.ts';
import { Scheduler } from './scheduler.ts';
import { SCHED_NS, ScheduleStore } from './store.ts';
import { registerScheduleTools } from './tools.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const MESSENGER_CHAT = /^-?\d{1,20}$/;

export function installSchedule(ctx: Context, assistant: Assistant): Scheduler {
  const people = ctx.chat.people;
  const store = new ScheduleStore(ctx.store(SCHED_NS), () => ctx.hal.nvs.keys(SCHED_NS), ctx.log);
  const scheduler = new Scheduler({
    clock: ctx.hal.clock,
    log: ctx.log,
    store,
    random: ctx.random,
    engine: assistant.engine,
    roleOf: (person) => people.roleOf(person),
    chatOf: (person) => people.chatOf(person),
    sendReply: async (chat, text, key) => {
      const target = chat ?? people.ownerChat();
      if (target && MESSENGER_CHAT.test(target)) {
        const sent = await ctx.chat.sendText(target, text, 'model');
        // Held back by the content check is an answer; anything else (no bot token yet) waits in the outbox.
        if (sent.ok || sent.error.startsWith('held back')) return;
      }
      ctx.outbox.post(key, text, chat ?? undefined);
    },
    notify: (key, text, chat) => void ctx.outbox.post(key, text, chat),
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
