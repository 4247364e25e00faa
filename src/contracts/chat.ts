// What the subsystems below the chat see of it (src/chat/): a device message
// and what became of it (notify), an owner notice for the outbox (post), and
// a chat command other subsystems register into the chat's registry (/remind,
// /skill, /mcp, ...). The chat ranks above the turn, the agents, audio, voice,
// system, connectors and the scheduler's peers, so they declare what they need
// with these shapes and take the chat's parts as late needs. Types only.

/** A person's role in the chat (the same four as memory's quotas, src/memory/quotas.ts). */
export type ChatRole = 'admin' | 'user' | 'guest' | 'unknown';

/** Who wrote an outbound text: the model (screened for a guest) or the device itself (exempt). */
export type Provenance = 'model' | 'device';

/** A message the device sends on its own (not an answer to a chat message). */
export interface DeviceMessage {
  /** De-duplication key (a restart may produce the same message again). */
  key: string;
  text: string;
  /** The chat to tell (absent: the owner's chat). */
  chat?: string;
  /** Signed with the device's name and firmware: device notices yes, the assistant's own words no. */
  signed: boolean;
  /** Who wrote it, for the outbound gate (text to a guest written by a model is screened). */
  provenance: Provenance;
}

export type NotifyOutcome = 'queued' | 'duplicate' | 'dropped' | 'unroutable';

/** The chat's notify: a device message into the send queue, or the outbox while the chat cannot take it ('waiting'). */
export interface DeviceMessenger {
  notify(m: DeviceMessage & { rest?: string }): NotifyOutcome | 'waiting';
}

/** How an owner notice is posted to the outbox (src/outbox/outbox.ts). */
export interface PostOptions {
  /** The chat to tell (default: the owner's). */
  chat?: string;
  /** Default true: a device notice. */
  signed?: boolean;
  /** Where the whole text can be read, named in the mark of a cut text. */
  rest?: string;
}

/** The owner-notice outbox as a poster sees it: false when the key was queued or delivered lately. */
export interface NoticePoster {
  post(key: string, text: string, options?: PostOptions): boolean;
}

export interface ChatCommandCall {
  /** The chat the command came from. */
  chat: string;
  /** The memory and file namespace of the sender (null: the owner). */
  person: string | null;
  role: ChatRole;
  /** Everything after the command word, trimmed. */
  args: string;
  argv: string[];
}

export interface ChatCommand {
  /** '/update' */
  name: string;
  /** Argument synopsis for /help, e.g. '<id>'. */
  usage?: string;
  help: string;
  /** Anyone who may chat may run it (/help, /start); otherwise admins only. */
  open?: boolean;
  /** Answers "not available yet" until its subsystem registers the real command. */
  placeholder?: boolean;
  /** The reply text (signed by the chat service). */
  run(call: ChatCommandCall): string | Promise<string>;
}

/** The chat commands' registry, as a subsystem that serves a command sees it. */
export interface ChatCommandRegistry {
  register(command: ChatCommand): void;
}
