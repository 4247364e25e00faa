// The chat messenger's settings, all on the human-web-only rail: the bot
// token (a protected secret: registered with the log redactor, never echoed,
// never in a tool result or the state), the chat allowlist (whose first
// entry is the owner's chat), and the three moderation switches (owner
// opt-in, default off). They are set only by the token-gated POST /api/chat
// (src/chat/routes.ts); no tool, device action or chat command reaches this
// namespace. The config device action's protected keys tgToken and tgAllow
// name them for the validator (src/contracts/device-contract.ts).

import type { Store } from '../core/store.ts';
import type { Redactor } from '../log/redact.ts';
import { botIdOf, isBotToken } from './telegram.ts';

export const CHAT_NS = 'chat';
/** At most this many chats on the allowlist. */
export const ALLOW_MAX = 32;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LIST_SEPARATORS = /[\s,;]+/;
/** A Telegram chat id: a person's is positive, a group's negative (supergroups -100...). */
const CHAT_ID = /^-?[1-9]\d{0,15}$/;

export interface ModerationSwitches {
  /** Screen inbound guest text (fails closed). */
  inbound: boolean;
  /** Screen outbound replies to guests (fails open; flagged replies are held back). */
  outbound: boolean;
  /** Screen fetched content for prompt injection in non-admin turns (fails open with an untrusted mark). */
  fetched: boolean;
}

export function isChatId(s: string): boolean {
  return CHAT_ID.test(s);
}

/** Parses an allowlist as typed on the web page: ids separated by commas, spaces or semicolons. */
export function parseAllowlist(raw: string): { ok: true; ids: string[] } | { ok: false; error: string } {
  const ids = raw.split(LIST_SEPARATORS).filter(Boolean);
  for (const id of ids) if (!isChatId(id)) return { ok: false, error: `"${id.slice(0, 24)}" is not a chat id (a number such as 123456789, or -100... for a group)` };
  if (new Set(ids).size !== ids.length) return { ok: false, error: 'a chat id is listed twice' };
  if (ids.length > ALLOW_MAX) return { ok: false, error: `at most ${ALLOW_MAX} chats may be on the allowlist` };
  return { ok: true, ids };
}

export class ChatSettings {
  /** Called after a change (the service restarts its poll when the token changed). */
  onChange: ((what: { token: boolean }) => void) | null = null;

  constructor(
    private readonly store: Store,
    private readonly redactor: Redactor,
  ) {
    redactor.add(this.token());
  }

  token(): string {
    return this.store.str('token', '');
  }
  /** The numeric bot id of the token (not a secret: it is the bot's public user id). */
  botId(): string | null {
    return botIdOf(this.token());
  }
  allowlist(): string[] {
    return this.store.str('allow', '').split(',').filter(Boolean);
  }
  /** The owner's chat: the allowlist's first entry (null while the allowlist is empty). */
  ownerChat(): string | null {
    return this.allowlist()[0] ?? null;
  }
  moderation(): ModerationSwitches {
    return { inbound: this.store.bool('modIn', false), outbound: this.store.bool('modOut', false), fetched: this.store.bool('modFetch', false) };
  }

  /** Applies the web form's fields, all or nothing; answers an error sentence or null. */
  apply(fields: Map<string, string>): string | null {
    const writes: Array<[string, string | number | undefined]> = [];
    let tokenChanged = false;
    for (const [name, raw] of fields) {
      const value = raw.trim();
      switch (name) {
        case 'token':
          break; // the gate's form field
        case 'tg_token':
          if (value !== '' && !isBotToken(value)) return 'the bot token is not in the form <bot id>:<secret> that BotFather gives';
          tokenChanged = value !== this.token();
          writes.push(['token', value === '' ? undefined : value]);
          break;
        case 'tg_allow': {
          const list = parseAllowlist(value);
          if (!list.ok) return list.error;
          writes.push(['allow', list.ids.length ? list.ids.join(',') : undefined]);
          break;
        }
        case 'moderate_in':
        case 'moderate_out':
        case 'screen_fetched':
          if (value !== '0' && value !== '1') return `${name} must be 0 or 1`;
          writes.push([name === 'moderate_in' ? 'modIn' : name === 'moderate_out' ? 'modOut' : 'modFetch', value === '1' ? 1 : 0]);
          break;
        default:
          return `unknown setting ${name.slice(0, 32)}`;
      }
    }
    // The secret is masked in the log before it is stored, so no line can carry it.
    for (const [k, v] of writes) if (k === 'token' && typeof v === 'string') this.redactor.add(v);
    this.store.setMany(writes);
    this.onChange?.({ token: tokenChanged });
    return null;
  }
}
