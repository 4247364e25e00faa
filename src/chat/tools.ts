// The chat subsystem's tools: reply.telegram (turn-only: send a message to
// a chat on the allowlist; voice true also sends it as a voice message once
// the text passed the content check, and falls back to text while voice
// replies are off or no speech provider is set up) and the
// tenant tools (admin-only: list people, set a role with the last-admin
// rule, set quota overrides where 0 restores the role default).

import type { ConfigKey } from '../contracts/index.ts';
import { fail, ok, type ToolCaller, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import type { Log } from '../log/log.ts';
import { capBytes } from '../util/cap.ts';
import type { PeopleRegistry, QuotaField } from './people.ts';
import { QUOTA_FIELDS, ROLES } from './people.ts';
import type { ChatService } from './service.ts';
import type { ChatSettings } from './settings.ts';
import { stringify } from '../util/json.ts';

/** A reply.telegram text; longer ones would be several chat messages the model did not mean. */
export const REPLY_TEXT_MAX = 4096 * 4;

function chatArg(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v === 'string' && v.trim()) return v.trim();
  return null;
}

/** The chat a tenant tool changes, or its refusal: admins only (checked here too, not only by access), and a chat id. */
function tenantChat(v: unknown, caller: ToolCaller): string | ToolResult {
  if (!caller.admin) return fail('forbidden', 'admin only');
  return chatArg(v) ?? fail('bad-arguments', 'chat is not a chat id');
}

/** Device sound (src/audio/): whether speech can be made, and a voice message of a text sent into a chat. */
export interface ChatVoice {
  endpoint(): { ok: true } | { ok: false; reason: string };
  voiceMessage(text: string, chat?: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** The conversation record (memory's episodic log): a message sent to another chat joins that chat's conversation. */
export interface Conversations {
  episodic: { append(row: { session: string; role: 'assistant'; kind: 'message'; text: string }): unknown };
}

export interface ChatToolDeps {
  settings: ChatSettings;
  people: PeopleRegistry;
  service: ChatService;
  audio: ChatVoice;
  /** The device's settings (src/device's actions): ttsOn. */
  config: { config(key: ConfigKey): unknown };
  memory: Conversations;
  log: Log;
}

export function chatTools(d: ChatToolDeps): ToolSpec[] {
  const { settings, people, service, audio, config, memory, log } = d;
  return [
    {
      name: 'reply.telegram',
      description:
        'Send a message in the chat messenger. chat_id: a chat on the allowlist (default: the chat of the person you serve; ' +
        'only admins may write to other chats). voice: true asks for a voice message; it falls back to text while voice replies are off.',
      schema: {
        type: 'object',
        properties: {
          text: { type: 'string', minLength: 1, description: 'the message' },
          chat_id: { type: ['string', 'integer'], description: 'the chat to write to (default: the current person\'s chat)' },
          voice: { type: 'boolean', description: 'send as a voice message when voice replies are on', default: false },
        },
        required: ['text'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'turn',
      available: () => settings.token() !== '',
      handler: async (args, caller: ToolCaller) => {
        const text = typeof args.text === 'string' ? args.text.trim() : '';
        if (!text) return fail('bad-arguments', 'text is empty');
        if (text.length > REPLY_TEXT_MAX) return fail('bad-arguments', `text is longer than ${REPLY_TEXT_MAX} characters`);
        const own = people.chatOf(caller.person);
        const target = args.chat_id === undefined ? own : chatArg(args.chat_id);
        if (!target) return fail(args.chat_id === undefined ? 'unavailable' : 'bad-arguments', args.chat_id === undefined ? 'there is no chat to write to (the allowlist is empty)' : 'chat_id is not a chat id');
        if (!caller.admin && target !== own) return fail('forbidden', 'you may only write to your own chat');
        if (!people.mayChat(target)) return fail('refused', `chat ${capBytes(target, 24)} is not on the allowlist; nothing was sent`);
        if (!service.canQueue()) return fail('busy', 'the send queue is full; try again in a moment');
        let note = '';
        let voice = false;
        if (args.voice === true) {
          const tts = audio.endpoint();
          if (config.config('ttsOn') !== true) note = ' as text (voice replies are off)';
          else if (!tts.ok) note = ` as text (no speech: ${tts.reason})`;
          else voice = true;
        }
        const sent = await service.sendText(target, text, 'model');
        if (!sent.queued) return fail('held', 'the message did not pass the content check and was held back; nothing was sent');
        // Only text that passed the content check is also spoken, as a voice message after it (src/audio).
        if (voice) {
          note = ', and a voice message of it follows';
          void audio.voiceMessage(text, target).then((v) => {
            if (!v.ok) log.warn('chat', `voice message to chat ${target} not sent: ${v.reason}`);
          });
        }
        // The message joins the target chat's conversation, so a reply there has its context.
        if (target !== own) {
          try {
            memory.episodic.append({ session: target, role: 'assistant', kind: 'message', text });
          } catch {
            // the conversation record is best effort
          }
        }
        return ok(`queued for chat ${target}${note}`);
      },
    },
    {
      name: 'tenant.list',
      description: 'People on the chat allowlist: chat id, name, role, owner flag, quota overrides and the quotas in force. JSON.',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'admin',
      where: 'both',
      handler: () => ok(stringify({ people: people.list() })),
    },
    {
      name: 'tenant.set_role',
      description: 'Set a person\'s role: admin (manages people and runs owner commands), user, guest, or unknown (revoked). The last admin cannot be demoted; chats are added to the allowlist on the web page only.',
      schema: {
        type: 'object',
        properties: {
          chat: { type: ['string', 'integer'], description: 'the person\'s chat id' },
          role: { type: 'string', enum: [...ROLES] },
        },
        required: ['chat', 'role'],
        additionalProperties: false,
      },
      access: 'admin',
      where: 'both',
      handler: (args, caller) => {
        const chat = tenantChat(args.chat, caller);
        if (typeof chat !== 'string') return chat;
        const r = people.setRole(chat, String(args.role));
        if (!r.ok) return fail(r.code === 'last-admin' ? 'refused' : r.code === 'not-allowed' ? 'not-found' : 'bad-arguments', `${r.message}; nothing was changed`);
        log.info('chat', `chat ${chat} is now ${r.person.role}`);
        return ok(stringify(r.person));
      },
    },
    {
      name: 'tenant.set_quota',
      description: 'Set a person\'s memory quotas: vectors, bytes, ttl_hours (-1: no limit), pins. 0 restores the role default; fields left out are unchanged.',
      schema: {
        type: 'object',
        properties: {
          chat: { type: ['string', 'integer'], description: 'the person\'s chat id' },
          vectors: { type: 'integer', minimum: 0 },
          bytes: { type: 'integer', minimum: 0 },
          ttl_hours: { type: 'integer', minimum: -1 },
          pins: { type: 'integer', minimum: 0 },
        },
        required: ['chat'],
        additionalProperties: false,
      },
      access: 'admin',
      where: 'both',
      handler: (args, caller) => {
        const chat = tenantChat(args.chat, caller);
        if (typeof chat !== 'string') return chat;
        const fields: Partial<Record<QuotaField, unknown>> = {};
        for (const f of QUOTA_FIELDS) if (args[f] !== undefined) fields[f] = args[f];
        const r = people.setQuota(chat, fields);
        if (!r.ok) return fail(r.code === 'not-allowed' ? 'not-found' : 'bad-arguments', `${r.message}; nothing was changed`);
        return ok(stringify(r.person));
      },
    },
  ];
}
