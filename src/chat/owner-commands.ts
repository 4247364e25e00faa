// The spec's chat owner commands that the chat subsystem serves itself
// (/help, /start, /update, /compact, /clear). /fetch and /play come with the
// file store and the music player (src/chat/files-bridge.ts); /remind,
// /loops and /loop with the scheduler (src/schedule/commands.ts); /skill
// with skills (src/skills/index.ts); /mcp with connectors
// (src/connectors/commands.ts). A subsystem not on the device yet would
// register an honest placeholder here (ChatCommand.placeholder), which its
// real command replaces (ChatCommands.register).

import type { Clock } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Updates } from '../ota/index.ts';
import type { ChatCommandCall, ChatCommands } from './commands.ts';
import type { ChatAssistant } from './service.ts';

/** How long "/clear yes" may follow "/clear". */
export const CLEAR_CONFIRM_MS = 10 * 60_000;

/** Conversation compaction (src/turn/compact.ts), for /compact. */
export interface ChatCompactor {
  busy(chat: string): boolean;
  hasConversation(chat: string): boolean;
  compact(chat: string, person: string | null, admin: boolean): Promise<{ ok: true; messages: number; saved: number; reply: string } | { ok: false; message: string }>;
}

/** The owner's active task (memory's scratchpad), which /clear forgets. */
export interface ActiveTask {
  scratch: { setActive(text: string): unknown };
}

export interface OwnerCommandDeps {
  clock: Clock;
  log: Log;
  /** The running firmware's version. */
  version: string;
  /** Firmware updates (src/ota/), for /update. */
  updates: Pick<Updates, 'apply'>;
  memory: ActiveTask;
  assistant: Pick<ChatAssistant, 'clear'>;
  compactor: ChatCompactor;
  /** Sends a later message to a chat (device-authored, signed). */
  later(chat: string, text: string): void;
}

function usage(name: string, synopsis: string): string {
  return `Usage: ${name} ${synopsis}`;
}

export function registerOwnerCommands(commands: ChatCommands, deps: OwnerCommandDeps): void {
  const { assistant, compactor } = deps;
  const clearAsked = new Map<string, number>();

  const help = (c: ChatCommandCall): string => {
    const list = commands.listFor(c.role).map((cmd) => `${cmd.name}${cmd.usage ? ` ${cmd.usage}` : ''} - ${cmd.help}`);
    const intro = c.role === 'admin' ? 'Hello! Write to me in plain words, or use a command:' : 'Hello! Write to me in plain words. You can also use:';
    return [intro, ...list].join('\n');
  };
  commands.register({ name: '/help', help: 'this list', open: true, run: help });
  commands.register({ name: '/start', help: 'a greeting and this list', open: true, run: help });

  commands.register({
    name: '/update',
    help: 'install a pending firmware update',
    run: (c) => {
      const version = deps.version;
      const ticket = deps.updates.apply({ source: 'chat' });
      if (!ticket.ok) return ticket.reason === 'up-to-date' ? `The firmware is up to date (${version}).` : ticket.message;
      void ticket.done.then(
        (o) => {
          if (o.kind === 'up-to-date') deps.later(c.chat, `The firmware is up to date (${o.version ?? version}).`);
          else if (o.kind === 'failed') deps.later(c.chat, `The update did not install (${o.lastOta || o.error || 'failed'}${o.detail ? `: ${o.detail}` : ''}). The running firmware ${version} stays.`);
        },
        () => deps.later(c.chat, 'The update did not install (internal error).'),
      );
      return `Checking for the update and installing it. The device restarts when it is in (running ${version} now).`;
    },
  });

  commands.register({
    name: '/compact',
    help: 'summarize our conversation into long-term memory, in the background',
    run: (c) => {
      if (compactor.busy(c.chat)) return 'A compaction of this conversation is already running.';
      if (!compactor.hasConversation(c.chat)) return 'There is no conversation to compact since it was last cleared.';
      void compactor.compact(c.chat, c.person, c.role === 'admin').then((o) =>
        deps.later(c.chat, o.ok ? `Compacted ${o.messages} message(s) into ${o.saved} memory item(s); our conversation starts fresh from here.${o.reply ? `\n${o.reply}` : ''}` : o.message),
      );
      return 'Compacting our conversation into long-term memory in the background. I will tell you when it is done.';
    },
  });

  commands.register({
    name: '/clear',
    usage: '[yes]',
    help: 'forget our conversation and the active task (long-term memory and files stay)',
    run: (c) => {
      const now = deps.clock.monoMs();
      const asked = clearAsked.get(c.chat);
      if (c.args.toLowerCase() === 'yes') {
        if (asked === undefined || now - asked > CLEAR_CONFIRM_MS) return 'Send /clear first, then /clear yes to confirm.';
        clearAsked.delete(c.chat);
        assistant.clear(c.chat);
        // The active task is the owner's scratchpad line; a member's chat has none of its own.
        if (c.person === null) deps.memory.scratch.setActive('');
        deps.log.info('chat', `conversation ${c.chat} cleared from the chat`);
        return 'Done: I forgot our conversation and the active task. Long-term memory and files are kept.';
      }
      if (c.args) return usage('/clear', '(then /clear yes)');
      clearAsked.set(c.chat, now);
      return 'This forgets our conversation and the active task; long-term memory and files are kept. Reply /clear yes within 10 minutes to confirm.';
    },
  });
}
