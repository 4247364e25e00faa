// What the chat service is given (ServiceDeps: the Bot API, the queues, the
// people, the moderation gates, the assistant, where inbound files and voice
// notes go) and what it keeps for the web page (refused chats, held replies).

import type { ConfigKey, TurnRequest } from '../contracts/index.ts';
import type { Clock } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { ChatCommands } from './commands.ts';
import type { Moderation } from './moderation.ts';
import type { Outbox } from '../outbox/index.ts';
import type { PeopleRegistry } from './people.ts';
import type { ChatQueue } from './queue.ts';
import type { ChatSettings } from './settings.ts';
import type { BotApi } from './telegram.ts';

/** Inbound files kept per message (the Bot API's download limit is 20 MB). */
export const INBOUND_FILE_MAX = 20 * 1024 * 1024;

/** Where inbound photos and documents go (the file store, through src/chat/files-bridge.ts). A refusal's reason is the whole reply. */
export interface InboundFiles {
  begin(meta: { person: string | null; chat: string; kind: 'photo' | 'document'; name: string; size: number | null; mime: string | null }): { ok: true; writer: InboundWriter } | { ok: false; reason: string };
}
export interface InboundWriter {
  /** false refuses the rest (quota, card trouble). */
  write(bytes: Uint8Array): boolean;
  finish(): { ok: true; ref: string } | { ok: false; reason: string };
  abort(): void;
}

export interface RejectedChat {
  chat: string;
  name: string;
  atMono: number;
  count: number;
}
export interface HeldReply {
  chat: string;
  atMono: number;
  categories: string[];
  excerpt: string;
}

/** The assistant as the chat uses it (src/turn/): a turn for a message, and /clear. */
export interface ChatAssistant {
  engine: { run(req: TurnRequest): Promise<unknown> };
  clear(chat: string): void;
}

export interface ServiceDeps {
  clock: Clock;
  log: Log;
  /** The firmware version, in the signature. */
  version: string;
  /** The device's settings (src/device's actions): devName, in the signature. */
  config: { config(key: ConfigKey): unknown };
  /** Owner notices waiting for the chat (src/outbox/outbox.ts), drained into the send queue. */
  outbox: Pick<Outbox, 'post' | 'pending' | 'ack'>;
  /** The SD card's state, for why a file cannot be received (src/storage/). */
  card: { live(): boolean };
  assistant: Pick<ChatAssistant, 'engine'>;
  api: BotApi;
  settings: ChatSettings;
  people: PeopleRegistry;
  commands: ChatCommands;
  moderation: Moderation;
  queue: ChatQueue;
  files: () => InboundFiles | null;
  /** Voice notes to text (src/voice's VoiceNotes); null: not wired, notes are declined. */
  voiceNotes: () => VoiceNoteSink | null;
}

/** What the chat needs to hear a voice note. */
export interface VoiceNoteSink {
  /** Why a note of this type and size cannot be heard now (a sentence for the sender), or null. */
  refusal(mime: string | null, name: string | null, size: number | null): string | null;
  transcribe(note: { bytes: Uint8Array; mime: string | null; name: string | null; chat: string }): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
}
