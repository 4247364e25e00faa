// What the fabric needs from subsystems that are not its own, each behind a
// small interface with a safe default, so the fabric runs before (or
// without) them and main.ts (or their owners) plug the real ones in:
//   AgentMessenger  sends the fabric's messages to a chat (job completions,
//                   failures, the queue-full notice, synthesis replies,
//                   directly delivered results). Default: the owner-notice
//                   outbox (the chat client drains it).
//   AgentDocs       reads [ATTACHED: <project>/<name>] documents and saves a
//                   project's result as <project>/<name>-<tag>.md. Default:
//                   no file store (attachments get an explicit note, saves
//                   are reported as not done).
//   AgentSkills     approved skill capsules for the brief, and the provider a
//                   connector-matching skill names. Default: none.

/** Sends text to a chat; key de-duplicates (a restart may finish a job twice). */
export interface AgentMessenger {
  send(chat: string, text: string, key: string): void;
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

/** What the default messenger needs of the outbox (src/chat/outbox.ts). */
export interface NoticeQueue {
  post(key: string, text: string, chat?: string): boolean;
}

/**
 * The default messenger: owner notices through the outbox, to the spawning
 * chat when it is a messenger chat, else to the owner's chat.
 */
export function outboxMessenger(outbox: NoticeQueue): AgentMessenger {
  return {
    send: (chat, text, key) => {
      if (isMessengerChat(chat)) outbox.post(key, text, chat);
      else outbox.post(key, text);
    },
  };
}
