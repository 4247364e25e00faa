// The orchestrator settings a person sets on the web page (POST /api/orch):
// provider keys, provider priority, the custom endpoint (base URL,
// conversation style, model id, and per role a base URL and model of its
// own: customFor), the orchestrator model, streamed rounds, tlsVerify and the
// monthly token budget per provider (budget_<provider>; usage.ts counts).
// Keys are secrets: registered with the log redactor, never echoed, and
// settable only here (the human-web-only rail), never by a tool or action.

import type { Store } from '../core/store.ts';
import type { Redactor } from '../log/redact.ts';
import { parseUrl } from '../net/url.ts';
import { utf8Length } from '../util/utf8.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const KEY_FIELD = /^key_([a-z]+)$/;
const BUDGET_FIELD = /^budget_([a-z]+)$/;
const ROLE_FIELD = /^custom_(stt|tts|embed)_(base|model)$/;
const WHITESPACE = /\s/;

import { HOSTED, PROVIDERS, type CustomStyle, type ProviderId } from '../contracts/index.ts';

export { HOSTED, PROVIDERS, type CustomStyle, type ProviderId };

const KEY_MAX = 256;
/** The NVS namespace of these settings (the usage ledger reads the budgets here). */
export const ORCH_NS = 'orch';
/** Largest monthly token budget (NVS integers are 32-bit). */
export const TOKEN_BUDGET_MAX = 1_000_000_000;
const DIRECTIVE_MAX = 1500;

/**
 * What the custom endpoint serves: chat (the turn's rounds), stt
 * (transcription), tts (speech), embed (the memory's remote embeddings).
 */
export const CUSTOM_ROLES = ['chat', 'stt', 'tts', 'embed'] as const;
export type CustomRole = (typeof CUSTOM_ROLES)[number];

/** The model a role asks for when the owner names none (the common OpenAI-compatible names; chat: the server's default). */
export const CUSTOM_ROLE_MODELS: Readonly<Record<CustomRole, string>> = { chat: 'default', stt: 'whisper-1', tts: 'tts-1', embed: '' };

/** A role's endpoint: its base URL and model, and whether the owner named them (else they are the defaults). */
export interface CustomRoleEndpoint {
  base: string;
  model: string;
  ownBase: boolean;
  ownModel: boolean;
}

/** The device's TLS verification setting (src/net/tls.ts), which these settings show and set. */
export interface TlsSetting {
  verify(): boolean;
  setVerify(on: boolean): void;
}

export class ProviderSettings {
  constructor(
    private readonly store: Store,
    /** Where keys are registered as secrets (the log's redactor). */
    private readonly redactor: Pick<Redactor, 'add'>,
    private readonly tls: TlsSetting,
  ) {
    for (const p of PROVIDERS) redactor.add(this.key(p));
  }

  key(provider: ProviderId): string | null {
    return this.store.strOrNull(`key.${provider}`);
  }
  /** Provider ids in priority order (default: the hosted three). */
  priority(): ProviderId[] {
    const raw = this.store.str('priority', HOSTED.join(','));
    return raw.split(',').filter((p): p is ProviderId => (PROVIDERS as readonly string[]).includes(p));
  }
  customBase(): string {
    return this.store.str('customBase', '');
  }
  customStyle(): CustomStyle {
    return this.store.str('customStyle', 'chat') === 'messages' ? 'messages' : 'chat';
  }
  customModel(): string {
    return this.store.str('customModel', '');
  }
  /**
   * A role's base URL and model: its own when the owner set them, else the
   * custom endpoint's one base URL and the role's usual model (chat: the
   * custom model setting). The embeddings model is the memory's embedding
   * choice, so that role names a base URL only.
   */
  customFor(role: CustomRole): CustomRoleEndpoint {
    if (role === 'chat') {
      const model = this.customModel();
      return { base: this.customBase(), model: model || CUSTOM_ROLE_MODELS.chat, ownBase: false, ownModel: model !== '' };
    }
    const base = this.store.str(`cb.${role}`, '');
    const model = role === 'embed' ? '' : this.store.str(`cm.${role}`, '');
    return { base: base || this.customBase(), model: model || CUSTOM_ROLE_MODELS[role], ownBase: base !== '', ownModel: model !== '' };
  }
  /** The orchestrator's model id ('' = the provider's default). */
  model(): string {
    return this.store.str('model', '');
  }
  /** The orchestrator's provider, as orch_model or the web set it (null: by priority). */
  orchProvider(): ProviderId | null {
    const p = this.store.strOrNull('provider');
    return p !== null && (PROVIDERS as readonly string[]).includes(p) ? (p as ProviderId) : null;
  }
  /** Providers with a key, in priority order then the rest. */
  keyedList(): ProviderId[] {
    const order = [...this.priority(), ...PROVIDERS.filter((p) => !this.priority().includes(p))];
    return order.filter((p) => this.key(p) !== null);
  }
  /** The owner's directive, the first block of every prompt (at most 1500 bytes). */
  directive(): string {
    return this.store.str('directive', '');
  }
  /** The prompt's total budget in bytes (default 32 KB). */
  promptBudget(): number {
    return this.store.int('promptBudget', 32 * 1024);
  }
  /** midFail (default on): mid-turn failover on the shared transcript. */
  midFail(): boolean {
    return this.store.str('midFail', '1') !== '0';
  }
  /**
   * stream (default on): turn rounds are streamed, so a spoken reply starts
   * with its first sentence and a round's deadline counts silence; off reads
   * every answer whole (today's path before streaming; the bench compares both).
   */
  stream(): boolean {
    return this.store.str('stream', '1') !== '0';
  }

  /** The owner's monthly token budget for a provider (0: none). */
  budget(provider: ProviderId): number {
    return this.store.int(`bgt.${provider}`, 0);
  }

  /** What the web page may show: which keys are set, never their values. */
  view(): Record<string, unknown> {
    return {
      keys: Object.fromEntries(PROVIDERS.map((p) => [p, this.key(p) !== null])),
      priority: this.priority(),
      custom: { base: this.customBase(), style: this.customStyle(), model: this.customModel(), roles: this.rolesView() },
      model: this.model(),
      provider: this.orchProvider(),
      directive: this.directive(),
      midFail: this.midFail(),
      stream: this.stream(),
      promptBudget: this.promptBudget(),
      tlsVerify: this.tls.verify(),
      budgets: Object.fromEntries(PROVIDERS.map((p) => [p, this.budget(p) || null])),
    };
  }

  /** Each role's endpoint as the page and device.status show it. */
  rolesView(): Record<CustomRole, CustomRoleEndpoint> {
    return { chat: this.customFor('chat'), stt: this.customFor('stt'), tts: this.customFor('tts'), embed: this.customFor('embed') };
  }

  /** Applies the form's fields, all or nothing. Returns an error sentence or null. */
  apply(fields: Map<string, string>): string | null {
    const writes: Array<[string, string | number | undefined]> = [];
    let tls: boolean | null = null;
    for (const [name, raw] of fields) {
      const value = raw.trim();
      if (name === 'token') continue; // the gate's form field
      const keyOf = KEY_FIELD.exec(name);
      if (keyOf) {
        if (!(PROVIDERS as readonly string[]).includes(keyOf[1]!)) return `unknown provider ${keyOf[1]}`;
        if (utf8Length(value) > KEY_MAX || WHITESPACE.test(value)) return `the ${keyOf[1]} key is malformed`;
        writes.push([`key.${keyOf[1]}`, value === '' ? undefined : value]);
        continue;
      }
      const roleOf = ROLE_FIELD.exec(name);
      if (roleOf) {
        // An empty value goes back to the default: the one base URL, the role's usual model.
        const [, role, part] = roleOf;
        if (part === 'base' && value !== '' && !parseUrl(value).ok) return `the custom endpoint's ${role} base URL must be an http(s) URL`;
        if (part === 'model' && (role === 'embed' || utf8Length(value) > 39 || WHITESPACE.test(value))) return role === 'embed' ? 'the embeddings model is chosen in the memory settings' : `${name} must be a model id of at most 39 bytes`;
        writes.push([`${part === 'base' ? 'cb' : 'cm'}.${role}`, value === '' ? undefined : value]);
        continue;
      }
      const budgetOf = BUDGET_FIELD.exec(name);
      if (budgetOf) {
        // A human-web-only setting (spec, Authentication 13): only this form sets it.
        if (!(PROVIDERS as readonly string[]).includes(budgetOf[1]!)) return `unknown provider ${budgetOf[1]}`;
        const n = Number(value);
        if (value === '' || !Number.isInteger(n) || n < 0 || n > TOKEN_BUDGET_MAX) return `${name} is a whole number of tokens a month, 0 (no budget) to ${TOKEN_BUDGET_MAX}`;
        writes.push([`bgt.${budgetOf[1]}`, n === 0 ? undefined : n]);
        continue;
      }
      switch (name) {
        case 'tlsVerify':
          if (value !== '0' && value !== '1') return 'tlsVerify must be 0 or 1';
          tls = value === '1';
          break;
        case 'priority': {
          const list = value.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean);
          if (!list.length || list.some((p) => !(PROVIDERS as readonly string[]).includes(p)) || new Set(list).size !== list.length)
            return `priority must list providers among ${PROVIDERS.join(', ')}, each once`;
          writes.push(['priority', list.join(',')]);
          break;
        }
        case 'custom_base': {
          if (value !== '' && !parseUrl(value).ok) return 'the custom endpoint must be an http(s) URL';
          writes.push(['customBase', value === '' ? undefined : value]);
          break;
        }
        case 'custom_style':
          if (value !== 'chat' && value !== 'messages') return 'the conversation style is chat or messages';
          writes.push(['customStyle', value]);
          break;
        case 'directive':
          if (utf8Length(raw) > DIRECTIVE_MAX) return `the directive may be at most ${DIRECTIVE_MAX} bytes`;
          writes.push(['directive', raw === '' ? undefined : raw]);
          break;
        case 'prompt_budget': {
          const n = Number(value);
          if (!Number.isInteger(n) || n < 8192 || n > 65536) return 'prompt_budget is a number of bytes from 8192 to 65536';
          writes.push(['promptBudget', n]);
          break;
        }
        case 'midFail':
        case 'stream':
          if (value !== '0' && value !== '1') return `${name} must be 0 or 1`;
          writes.push([name, value]);
          break;
        case 'custom_model':
        case 'model':
          if (utf8Length(value) > 39 || WHITESPACE.test(value)) return `${name} must be a model id of at most 39 bytes`;
          writes.push([name === 'model' ? 'model' : 'customModel', value === '' ? undefined : value]);
          break;
        default:
          return `unknown setting ${name}`;
      }
    }
    this.store.setMany(writes);
    for (const [k, v] of writes) if (k.startsWith('key.') && typeof v === 'string' && v) this.redactor.add(v);
    if (tls !== null) this.tls.setVerify(tls);
    return null;
  }
}
