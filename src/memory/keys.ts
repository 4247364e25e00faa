// Where the remote embedder finds an endpoint and key, and where its spending
// is counted: the provider settings of POST /api/orch (human-web-only) and the
// providers' usage ledger (src/providers/usage.ts). Providers with
// /v1/embeddings: openai, mistral, and the custom endpoint (its base URL;
// plain http runs keyless, see embed-remote.ts). An embedding answer's input
// tokens count against its provider's day and month like a turn's, and a
// provider at or past its monthly budget takes no embedding call, as it takes
// no turn.

import { PROVIDERS, type ProviderId, type Usage } from '../contracts/index.ts';
import type { EmbeddingKeys } from './embed-remote.ts';

/** The provider settings as the embedder reads them (src/providers/settings.ts implements it). */
export interface EmbeddingSettings {
  customBase(): string;
  key(provider: 'openai' | 'mistral' | 'custom'): string | null;
}

/** The usage ledger as the embedder uses it (src/providers/usage.ts's UsageLedger implements it). */
export interface EmbeddingLedger {
  record(provider: ProviderId, usage: Usage): void;
  exhausted(provider: ProviderId): boolean;
  budget(provider: ProviderId): number;
  /** The first day of the next month, when budgets start again (YYYY-MM-DD). */
  resetsOn(): string;
}

const BASES: Record<string, string> = {
  openai: 'https://api.openai.com',
  mistral: 'https://api.mistral.ai',
};

function providerId(p: string): ProviderId | null {
  return (PROVIDERS as readonly string[]).includes(p) ? (p as ProviderId) : null;
}

/**
 * The device's embedding keys: endpoints and keys from the settings; usage
 * and budgets in the ledger (null: none counted, none enforced; a test
 * without providers).
 */
export function embeddingKeys(settings: EmbeddingSettings, usage: EmbeddingLedger | null): EmbeddingKeys {
  return {
    endpoint(provider) {
      if (provider === 'custom') {
        const base = settings.customBase();
        return base ? { baseUrl: base, key: settings.key('custom') } : null;
      }
      const base = BASES[provider];
      const key = base ? settings.key(provider as 'openai' | 'mistral') : null;
      return base && key ? { baseUrl: base, key } : null;
    },
    refusal(provider) {
      const p = providerId(provider);
      if (!usage || !p || !usage.exhausted(p)) return null;
      const who = p === 'custom' ? 'the custom endpoint' : p;
      return `${who} has used its monthly budget of ${usage.budget(p)} tokens, so nothing is embedded with it until ${usage.resetsOn()} or until the owner raises the budget on the web page`;
    },
    spent(provider, inputTokens) {
      const p = providerId(provider);
      if (usage && p && inputTokens > 0) usage.record(p, { input: inputTokens, output: 0, reasoning: 0, cached: 0 });
    },
  };
}
