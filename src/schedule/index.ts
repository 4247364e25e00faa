// The scheduler subsystem's face (routines, wakeups, reminders, in the
// owner's time zone): builds the Scheduler over NVS namespace 'sched', registers its
// tools (loop.*, wakeup.set), chat commands (/remind, /loops, /loop), routes
// (/api/routines, /api/wakeups) and the schedule section of
// the state snapshot, and starts the timer in Orchestrator mode (Notifier
// mode has no network for turns: nothing fires there, and what fell due is
// handled by the missed-run rule at the next Orchestrator boot).
//
// Turns it starts are scheduled and unattended (origin 'schedule'), through
// the turn engine's queue; a reply goes to the chat the routine or wakeup
// names, else to its person's chat, through the chat's durable send queue
// (the chat's notify), which waits in the outbox while the messenger is not set up.

import type { Kernel } from '../core/kernel.ts';
import { whole, type Subsystem } from '../core/subsystem.ts';
import type { ChatCommands, DeviceMessage, NotifyOutcome } from '../chat/index.ts';
import { registerScheduleCommands } from './commands.ts';
import { scheduleRoutes } from './routes.ts';
import { Scheduler, type SchedulerDeps } from './scheduler.ts';
import { SCHED_NS, ScheduleStore } from './store.ts';
import { scheduleTools } from './tools.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const MESSENGER_CHAT = /^-?\d{1,20}$/;

/** A messenger chat id, or undefined (the owner's chat) for the console, web and /mcp. */
function messengerChat(chat: string | null | undefined): string | undefined {
  return chat && MESSENGER_CHAT.test(chat) ? chat : undefined;
}

/** What the scheduler needs from others. */
export interface ScheduleOptions {
  /** The turn engine's queue (src/turn/). */
  engine: SchedulerDeps['engine'];
  /** The owner's time zone (src/system/local-time.ts). */
  time: SchedulerDeps['time'];
  /** The chat messenger: people and roles, the durable send queue, the chat commands' registry (src/chat/). */
  chat: {
    people: Pick<SchedulerDeps, 'roleOf' | 'chatOf'> & { mayChat(chat: string): boolean };
    notify(m: DeviceMessage): NotifyOutcome | 'waiting';
    commands: ChatCommands;
  };
}

export const schedule: Subsystem<ScheduleOptions, Scheduler> = {
  name: 'schedule',
  needs: ['engine', 'time', 'chat'],
  provides: { scheduler: whole },
  start(k: Kernel, o: ScheduleOptions) {
    const { chat } = o;
    const people = chat.people;
    const store = new ScheduleStore(k.store(SCHED_NS), () => k.hal.nvs.keys(SCHED_NS), k.log);
    const scheduler = new Scheduler({
      clock: k.hal.clock,
      time: o.time,
      log: k.log,
      store,
      random: (bytes) => k.hal.system.random(bytes),
      engine: o.engine,
      roleOf: (person) => people.roleOf(person),
      chatOf: (person) => people.chatOf(person),
      // One durable path for what the device sends on its own (the chat's notify): the send queue,
      // keyed against repeats after a restart, or the outbox while the messenger is not set up.
      sendReply: async (c, text, key) => void chat.notify({ key, text, chat: messengerChat(c), signed: false, provenance: 'model' }),
      notify: (key, text, c) => void chat.notify({ key, text, chat: messengerChat(c), signed: true, provenance: 'device' }),
    });
    registerScheduleCommands(chat.commands, scheduler);
    if (k.mode === 1) scheduler.start();
    return {
      provides: scheduler,
      tools: scheduleTools(scheduler, people),
      routes: scheduleRoutes(scheduler, k.hal.clock),
      status: {
        sections: [
          () => ({
            schedule: {
              tz: scheduler.tz().text,
              routines: scheduler.routines().length,
              pending: scheduler.routines().filter((r) => !r.approved).length + scheduler.wakes().filter((w) => w.state === 'pending').length,
              wakeups: scheduler.wakes('wakeup').filter((w) => w.state === 'armed').length,
              reminders: scheduler.wakes('reminder').length,
            },
          }),
        ],
      },
      stop: () => scheduler.stop(),
    };
  },
};

export { Scheduler } from './scheduler.ts';
