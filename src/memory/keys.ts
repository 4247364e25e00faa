// Where the remote embedder finds an endpoint and key: the provider
// settings of POST /api/orch (human-web-only). Providers with an
// OpenAI-compatible /v1/embeddings: openai, mistral, and the custom endpoint
// (its base URL; plain http runs keyless, see embed-remote.ts).

import type { ProviderSettings } from '../providers/index.ts';
import type { EmbeddingKeys } from './embed-remote.ts';

const BASES: Record<string, string> = {
  openai: 'https://api.openai.com',
  mistral: 'https://api.mistral.ai',
};

export function embeddingKeys(settings: ProviderSettings): EmbeddingKeys {
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
