// What the firmware knows about models, compiled in: per provider, the
// models it has tested its wire against or expects, each with the roles
// the device can use it for, a size class and capability flags. The
// providers' model lists (refreshed every 24 h by catalog.ts) say which of
// these an account can reach; this table says what each one can do.
//
// Roles: orchestrator (runs the turn: tools and structured output),
// sub-agent (background jobs), image (image.generate), embedding (memory's
// remote embedder), transcribe (speech to text: planned), speech (text to
// speech), moderation (the chat's gates).
// Size class: S small and fast, M the general middle, L the largest.
// Flags: tools, json-schema (strict structured output), reasoning, vision,
// web-search (provider-side search for sub-agents), deep-research.
//
// The orchestrator default of each provider is the wire's default
// (src/providers/catalog.ts CATALOG[p].defaultModel): one truth for the
// catalog, the turn's alternates and GET /api/fallbacks.

import { CATALOG } from '../providers/index.ts';
import type { ProviderId } from '../contracts/index.ts';

export type Role = 'orchestrator' | 'sub-agent' | 'image' | 'embedding' | 'transcribe' | 'speech' | 'moderation';
export type Size = 'S' | 'M' | 'L';
export type Flag = 'tools' | 'json-schema' | 'reasoning' | 'vision' | 'web-search' | 'deep-research';

export interface KnownModel {
  id: string;
  roles: Role[];
  size: Size;
  flags: Flag[];
}

const CHAT: Role[] = ['orchestrator', 'sub-agent'];
const TOOLS: Flag[] = ['tools', 'json-schema'];

export const KNOWN: Readonly<Record<ProviderId, readonly KnownModel[]>> = {
  openai: [
    { id: 'gpt-5', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning', 'vision', 'web-search'] },
    { id: 'gpt-5-mini', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning', 'vision', 'web-search'] },
    { id: 'gpt-5-nano', roles: CHAT, size: 'S', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'gpt-4.1', roles: CHAT, size: 'L', flags: [...TOOLS, 'vision', 'web-search'] },
    { id: 'gpt-4.1-mini', roles: CHAT, size: 'M', flags: [...TOOLS, 'vision', 'web-search'] },
    { id: 'o4-mini', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'o3', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'o3-deep-research', roles: ['sub-agent'], size: 'L', flags: ['reasoning', 'web-search', 'deep-research'] },
    { id: 'gpt-image-1-mini', roles: ['image'], size: 'S', flags: [] },
    { id: 'gpt-image-1', roles: ['image'], size: 'L', flags: [] },
    { id: 'text-embedding-3-small', roles: ['embedding'], size: 'S', flags: [] },
    { id: 'text-embedding-3-large', roles: ['embedding'], size: 'L', flags: [] },
    { id: 'gpt-4o-mini-transcribe', roles: ['transcribe'], size: 'S', flags: [] },
    { id: 'gpt-4o-mini-tts', roles: ['speech'], size: 'S', flags: [] },
    { id: 'omni-moderation-latest', roles: ['moderation'], size: 'S', flags: [] },
  ],
  anthropic: [
    { id: 'claude-opus-4-5', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'claude-sonnet-4-5', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'claude-haiku-4-5', roles: CHAT, size: 'S', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'claude-opus-4-1', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning', 'vision'] },
  ],
  mistral: [
    { id: 'mistral-large-latest', roles: CHAT, size: 'L', flags: [...TOOLS, 'vision'] },
    { id: 'mistral-medium-latest', roles: CHAT, size: 'M', flags: [...TOOLS, 'vision'] },
    { id: 'mistral-small-latest', roles: CHAT, size: 'S', flags: [...TOOLS, 'vision'] },
    { id: 'magistral-medium-latest', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning'] },
    { id: 'mistral-embed', roles: ['embedding'], size: 'S', flags: [] },
    { id: 'mistral-moderation-latest', roles: ['moderation'], size: 'S', flags: [] },
    { id: 'voxtral-mini-latest', roles: ['transcribe'], size: 'S', flags: [] },
  ],
  zai: [
    { id: 'glm-4.6', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning'] },
    { id: 'glm-4.5', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning'] },
    { id: 'glm-4.5-air', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning'] },
    { id: 'glm-4.5-flash', roles: CHAT, size: 'S', flags: [...TOOLS] },
  ],
  router: [
    { id: 'openai/gpt-5-mini', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'openai/gpt-5', roles: CHAT, size: 'L', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'anthropic/claude-sonnet-4-5', roles: CHAT, size: 'M', flags: [...TOOLS, 'reasoning', 'vision'] },
    { id: 'mistral/mistral-medium-latest', roles: CHAT, size: 'M', flags: [...TOOLS, 'vision'] },
  ],
  // The custom endpoint runs whatever its server lists; 'default' is what it gets without a model id.
  custom: [{ id: 'default', roles: ['orchestrator', 'sub-agent'], size: 'M', flags: ['json-schema'] }],
};

/** The default model of a role for a provider (orchestrator: the wire's default). */
export const ROLE_DEFAULTS: Readonly<Partial<Record<ProviderId, Partial<Record<Role, string>>>>> = {
  openai: { orchestrator: CATALOG.openai.defaultModel, image: 'gpt-image-1-mini', embedding: 'text-embedding-3-small', transcribe: 'gpt-4o-mini-transcribe', speech: 'gpt-4o-mini-tts', moderation: 'omni-moderation-latest' },
  anthropic: { orchestrator: CATALOG.anthropic.defaultModel },
  mistral: { orchestrator: CATALOG.mistral.defaultModel, embedding: 'mistral-embed', transcribe: 'voxtral-mini-latest', moderation: 'mistral-moderation-latest' },
  zai: { orchestrator: CATALOG.zai.defaultModel },
  router: { orchestrator: CATALOG.router.defaultModel },
  custom: { orchestrator: CATALOG.custom.defaultModel },
};

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SMALL = /(nano|mini|small|haiku|flash|air|lite|tiny|\b[1-9]b\b|-[1-9]b)/i;
const LARGE = /(large|opus|ultra|pro\b|-70b|-405b|deep-research)/i;
const EMBEDDING = /embed/i;
const IMAGE = /(image|dall-e|cogview)/i;
const SPEECH = /(tts|speech)/i;
const TRANSCRIBE = /(whisper|transcribe|voxtral)/i;
const MODERATION = /moderation/i;
const LEGACY = /^(babbage|davinci|ada|curie)/i;

/** A size class read from an unknown model's name. */
export function guessSize(id: string): Size {
  if (SMALL.test(id)) return 'S';
  if (LARGE.test(id)) return 'L';
  return 'M';
}

/** Roles read from an unknown model's name (a guess: such models are probe-hidden). */
export function guessRoles(id: string): Role[] {
  if (EMBEDDING.test(id)) return ['embedding'];
  if (IMAGE.test(id)) return ['image'];
  if (SPEECH.test(id)) return ['speech'];
  if (TRANSCRIBE.test(id)) return ['transcribe'];
  if (MODERATION.test(id)) return ['moderation'];
  if (LEGACY.test(id)) return [];
  return ['orchestrator', 'sub-agent'];
}
