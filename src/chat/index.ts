// The chat messenger subsystem's face. The Chat (chat.ts: people and roles,
// notify, the chat commands' registry, the voice-note and inbound-file
// hooks) is made in its mount and provided as the parts chat, people and
// commands (the subsystems below it take them as late needs); mounting
// attaches what it needs (ChatOptions: the Bot
// API's client, the assistant, the outbox, the file store ...), starts the
// long poll in Orchestrator mode, and registers its routes (/api/chat,
// /api/people: routes.ts), console commands (CHAT?, TGSEND: console.ts),
// tools (reply.telegram, tenant.*: tools.ts) and the chat section of the
// state snapshot.

import type { Kernel } from '../core/kernel.ts';
import { whole, type Later, type Subsystem } from '../core/subsystem.ts';
import { Chat, type ChatNeeds } from './chat.ts';
import type { VoiceNoteSink } from './service.ts';
import { chatCommands } from './console.ts';
import { chatRoutes } from './routes.ts';
import { chatTools } from './tools.ts';

export { type ChatNeeds } from './chat.ts';
export type { DeviceMessage, NotifyOutcome } from './service.ts';
export type { ChatCommands } from './commands.ts';

export { parseSpan } from './span.ts';

export type { ChatCommandCall } from './commands.ts';

/** What the chat needs from others: what the Chat it makes attaches when mounted (chat.ts), and voice, later. */
export interface ChatOptions extends ChatNeeds {
  /** Voice (src/voice/, mounted after the chat): voice notes are transcribed through it once it mounts. */
  voice: Later<{ notes: VoiceNoteSink }>;
}

export const chat: Subsystem<ChatOptions, Chat> = {
  name: 'chat',
  needs: ['outbox', 'client', 'assistant', 'compactor', 'providers', 'files', 'music', 'updates', 'actions', 'audio', 'card'],
  later: ['memory', 'voice'],
  // The Chat, attached (its send queue takes messages from here on); its people and the chat commands' registry.
  provides: { chat: whole, people: (c) => c.people, commands: (c) => c.commands },
  start(k: Kernel, o: ChatOptions) {
    const c = new Chat(k.hal.nvs, (ns) => k.store(ns), k.log);
    const { settings, people, moderation, queue } = c;
    const { service, api, memory } = c.attach(k, o);
    o.voice.when((v) => c.setVoiceNotes(v.notes));
    return {
      provides: c,
      routes: chatRoutes({ settings, people, service, moderation, queue, clock: k.hal.clock, log: k.log }),
      commands: chatCommands({ settings, service, queue, api }),
      tools: chatTools({ settings, people, service, audio: o.audio, config: o.actions, memory, log: k.log }),
      status: { sections: [() => ({ chat: { configured: settings.token() !== '', state: service.state, allowlisted: settings.allowlist().length } })] },
      stop: () => c.stop(),
    };
  },
};
