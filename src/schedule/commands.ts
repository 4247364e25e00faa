// The scheduler's chat owner commands (spec, Chat owner commands), replacing
// the chat subsystem's placeholders: /remind <when> <what> (a one-time
// reminder back to this chat; the span parser is the chat's, src/chat/span.ts),
// /loops (routines, reminders and wakeups), /loop approve | deny | off | on
// <id> (a routine; approve and deny also take a waiting wakeup, deny also
// cancels a reminder or an armed wakeup).

import { parseSpan, type ChatCommandCall, type ChatCommands } from '../chat/index.ts';
import type { Scheduler } from './scheduler.ts';
import { loopLines } from './views.ts';
import { sentence } from '../util/sentence.ts';

const LOOP_USAGE = 'Usage: /loop approve | deny | off | on <id>';

export function registerScheduleCommands(commands: ChatCommands, s: Scheduler): void {
  commands.register({
    name: '/remind',
    usage: '<when> <what>',
    help: 'a one-time reminder in 2 minutes to 7 days (90s, 45 = minutes, 2h, 3d)',
    run: (c: ChatCommandCall) => {
      const when = c.argv[0];
      const what = when ? c.args.slice(c.args.indexOf(when) + when.length).trim() : '';
      if (!when || !what) return 'Usage: /remind <when> <what>, e.g. /remind 2h call the plumber';
      const span = parseSpan(when);
      if (!span.ok) return sentence(span.error);
      const r = s.addReminder({ ms: span.ms, text: what, chat: c.chat, by: c.person });
      return r.ok ? r.message : `No reminder was set: ${r.message}.`;
    },
  });

  commands.register({ name: '/loops', help: 'list routines and reminders', run: () => loopLines(s).join('\n') });

  commands.register({
    name: '/loop',
    usage: 'approve | deny | off | on <id>',
    help: 'manage one routine (deny also cancels a reminder or wakeup)',
    run: (c: ChatCommandCall) => {
      const [rawVerb, id] = c.argv;
      const verb = (rawVerb ?? '').toLowerCase();
      if (!['approve', 'deny', 'off', 'on'].includes(verb) || !id || c.argv.length !== 2) return LOOP_USAGE;
      const routine = s.routine(id);
      const wake = routine ? null : s.wake(id);
      if (!routine && !wake) return `No routine, reminder or wakeup has id ${id}. /loops lists them.`;
      if (routine) {
        const r = verb === 'approve' ? s.approveRoutine(id) : verb === 'deny' ? s.removeRoutine(id) : s.setRoutineEnabled(id, verb === 'on');
        return r.message;
      }
      if (verb === 'off' || verb === 'on') return `${id} is a ${wake!.kind}, not a routine: only routines pause and resume. /loop deny ${id} cancels it.`;
      return (verb === 'approve' ? s.approveWake(id) : s.cancelWake(id)).message;
    },
  });
}
