// Where the remote embedder finds an endpoint and key: the provider
// settings of POST /api/orch (human-web-only). Providers with an
// OpenAI-compatible /v1/embeddings: openai, mistral, and the custom endpoint
// (its base URL; plain http runs keyless, see embed-remote.ts).

import type { EmbeddingKeys } from './embed-remote.ts';

/** The provider settings as the embedder reads them (src/providers/settings.ts implements it). */
export interface EmbeddingSettings {
  customBase(): string;
  key(provider: 'openai' | 'mistral' | 'custom'): string | null;
}

const BASES: Record<string, string> = {
  openai: 'https://api.openai.com',
  mistral: 'https://api.mistral.ai',
};

export function embeddingKeys(settings: EmbeddingSettings): EmbeddingKeys {
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
  };
}
