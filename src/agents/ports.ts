// What the fabric needs from subsystems that are not its own, each behind a
// small interface with a safe default, so the fabric runs before (or
// without) them and the agents' mount plugs the real ones in as they mount:
//   AgentMessenger  sends the fabric's messages to a chat (job completions,
//                   failures, the queue-full notice, synthesis replies,
//                   directly delivered results). Mounting the agents plugs in the
//                   chat messenger's durable send queue (the chat's notify,
//                   which keeps a message in the owner-notice outbox while
//                   the chat cannot take it); the default, for a device
//                   without the chat, is the outbox itself.
//   AgentDocs       reads [ATTACHED: <project>/<name>] documents and saves a
//                   project's result as <project>/<name>-<tag>.md. Default:
//                   no file store (attachments get an explicit note, saves
//                   are reported as not done).
//   AgentSkills     approved skill capsules for the brief, and the provider a
//                   connector-matching skill names. Default: none.

/**
 * Who speaks in a message: the device (job completions, failures, the
 * queue-full notice, the heading over directly delivered results: signed with
 * the device's name like every device notice) or the assistant (a synthesis
 * turn's reply: its own words, unsigned like any turn reply).
 */
export type MessageAuthor = 'device' | 'assistant';

/** Sends text to a chat; key de-duplicates (a restart may finish a job twice). */
export interface AgentMessenger {
  send(chat: string, text: string, key: string, author: MessageAuthor): void;
}

export type DocRead = { ok: true; text: string } | { ok: false; reason: string };
export type DocSave = { ok: true; path: string } | { ok: false; reason: string };

export interface AgentDocs {
  /** A text document of the file store as the person may see it. */
  read(person: string | null, project: string, name: string): DocRead;
  /** Saves (or overwrites) a text document for the person. */
  save(person: string | null, project: string, name: string, text: string): DocSave;
}

export interface SkillCapsule {
  /** The capsule's markdown (front matter included or not: the brief takes it as it is). */
  md: string;
  approved: boolean;
  /** inject: from the front matter ('spawn', 'both', or anything else). */
  inject: string;
}

export interface AgentSkills {
  capsule(id: string): SkillCapsule | null;
  /** The provider a connector-matching skill names for this spawn (null: none). */
  provider(skill: string, task: string): string | null;
}

export const NO_DOCS: AgentDocs = {
  read: () => ({ ok: false, reason: 'the file store is not available on this device' }),
  save: () => ({ ok: false, reason: 'the file store is not available on this device' }),
};

export const NO_SKILLS: AgentSkills = {
  capsule: () => null,
  provider: () => null,
};

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const MESSENGER_CHAT = /^-?\d{1,20}$/;

/** A chat id of the messenger (numeric); console, web and /mcp chats are the owner's. */
export function isMessengerChat(chat: string): boolean {
  return MESSENGER_CHAT.test(chat);
}

/** Where a message cut in the outbox can still be read whole. */
export const WHOLE_TEXT_AT = 'GET /api/sessions has the whole message until a restart, results.get each result';

/** What the default messenger needs of the outbox (src/outbox/outbox.ts). */
export interface NoticeQueue {
  post(key: string, text: string, options?: { chat?: string; signed?: boolean; rest?: string }): boolean;
}

/**
 * The default messenger: owner notices through the outbox, to the spawning
 * chat when it is a messenger chat, else to the owner's chat.
 */
export function outboxMessenger(outbox: NoticeQueue): AgentMessenger {
  return {
    send: (chat, text, key, author) => {
      outbox.post(key, text, { ...(isMessengerChat(chat) ? { chat } : {}), signed: author === 'device', rest: WHOLE_TEXT_AT });
    },
  };
}

/** What the chat messenger offers for device messages (src/chat/index.ts, its notify). */
export interface DeviceNotifier {
  notify(m: { key: string; text: string; chat?: string; signed: boolean; provenance: 'model' | 'device'; rest?: string }): unknown;
}

/**
 * The fabric's messages through the chat's durable send queue, to the
 * spawning chat when it is a messenger chat, else to the owner's chat. Every
 * one counts as model-written for the outbound content check: even the
 * device's own templates carry a model-chosen job name, a provider's error
 * text or a sub-agent's result.
 */
export function chatMessenger(chat: DeviceNotifier): AgentMessenger {
  return {
    send: (to, text, key, author) => {
      chat.notify({ key, text, ...(isMessengerChat(to) ? { chat: to } : {}), signed: author === 'device', provenance: 'model', rest: WHOLE_TEXT_AT });
    },
  };
}
