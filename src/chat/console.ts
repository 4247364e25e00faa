// The chat subsystem's console commands (test builds): CHAT? (the poll's
// state, queues and settings, never the token) and TGSEND [text] (a test
// message to the owner's chat, waiting for the Bot API's answer).

import { CommandError, type Command } from '../core/console.ts';
import type { ChatQueue } from './queue.ts';
import type { ChatService } from './service.ts';
import type { ChatSettings } from './settings.ts';
import type { BotApi } from './telegram.ts';

export function chatCommands(d: { settings: ChatSettings; service: ChatService; queue: ChatQueue; api: BotApi }): Command[] {
  const { settings, service, queue, api } = d;
  return [
    {
      verb: 'CHAT?',
      help: 'the chat messenger: token set, bot, poll state, owner chat, allowlist size, queues, moderation',
      run: (c) => {
        const m = settings.moderation();
        c.out(`token=${settings.token() ? 'set' : 'unset'} bot=${settings.botId() ?? '-'} state=${service.state} owner=${settings.ownerChat() ?? '-'} allow=${settings.allowlist().length}`);
        c.out(`inbox=${queue.pendingIn().length} sendq=${queue.pendingOut().length} handled=${service.handled} offset=${queue.offset(settings.botId())}`);
        c.out(`modIn=${m.inbound ? 1 : 0} modOut=${m.outbound ? 1 : 0} modFetch=${m.fetched ? 1 : 0}`);
        if (service.lastError) c.out(`lastError=${service.lastError}`);
      },
    },
    {
      verb: 'TGSEND',
      usage: '[text]',
      help: "send a test message to the owner's chat and wait for the Bot API's answer",
      run: async (c) => {
        const owner = settings.ownerChat();
        if (!settings.token()) throw new CommandError('no bot token is set');
        if (!owner) throw new CommandError('the allowlist is empty: no owner chat');
        const r = await api.sendMessage(owner, service.sign(c.args || 'Test message from the device console.'));
        if (!r.ok) throw new CommandError(`${r.error}: ${r.message}`);
        c.out(`sent message ${r.value} to chat ${owner}`);
      },
    },
  ];
}
