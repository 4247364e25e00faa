// The providers' constants in one table: default base URLs, default models,
// which model ids each provider accepts, and the per-provider exchange caps
// (spec, Limits: synchronous provider read 60 s, custom endpoint 30 s; a turn
// round's cap grows with the output it asks for, roundReadMs).
// Everything here is data; the backends and the wire read it.

import type { ProviderId } from './settings.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
/** A model id as settings accept it: at most 39 bytes, no whitespace. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@\/-]{0,38}$/;
const ROUTER_MODEL = /^([a-z0-9][a-z0-9-]{0,23})\/([A-Za-z0-9][A-Za-z0-9._:@-]*)$/;

/**
 * The model router's host ({router_host} of the spec). A neutral placeholder
 * in the reserved .invalid domain, like the update base: a device never
 * told its router fails to connect rather than talking to a stranger. The
 * NVS key wire/routerHost overrides it.
 */
export const ROUTER_HOST = 'https://router.desk-assistant.invalid';

/** The Z.ai-style backend's two regional hosts, probed in this order by the key check. */
export const ZAI_HOSTS: readonly string[] = ['https://api.z.ai', 'https://open.bigmodel.cn'];
/** The Z.ai-style base path (spec: base path /api/paas/v4). */
export const ZAI_PATH = '/api/paas/v4';

export interface ProviderInfo {
  /** Base URL (scheme, host, optional port; paths are the backend's). '' = from settings. */
  base: string;
  /** The model used when none is configured or the configured one does not fit. */
  defaultModel: string;
  /** Whether a model id belongs to this provider (a Claude id is not sent to Mistral). */
  accepts: (model: string) => boolean;
  /** Longest synchronous exchange of a sub-agent job (spec, Limits: synchronous provider read). */
  capMs: number;
  /**
   * Longest exchange of one turn round: sized to the output the round asks
   * for (roundReadMs), since a non-streamed answer arrives whole at the end
   * and a long tool argument (a 24 KB artifact.save) takes minutes to
   * generate. The engine still clamps it to what is left of the turn (8 s floor).
   */
  roundMs: number;
}

const OPENAI_MODEL = /^(gpt-|chatgpt-|codex-|o\d)/;
const ANTHROPIC_MODEL = /^claude-/;
const MISTRAL_MODEL = /^(mistral-|magistral-|ministral-|codestral-|devstral-|pixtral-|voxtral-|open-mistral-|open-mixtral-)/;
const ZAI_MODEL = /^glm-/;

/** Synchronous provider read deadline (spec, Limits). */
export const SYNC_READ_MS = 60_000;
/** Custom endpoint deadline (spec, Limits). */
export const CUSTOM_MS = 30_000;

/** Output tokens a tool-loop round asks for (B's and C's max_tokens; Z.ai, router and custom servers are sized alike). */
export const ROUND_OUTPUT_TOKENS = 8192;
/** Provider A's max_output_tokens: its reasoning tokens count against the same limit. */
export const RESPONSES_OUTPUT_TOKENS = 16384;
/** Time allowed before the first token (queueing, prompt processing, reasoning). */
export const FIRST_TOKEN_MS = 30_000;
/** The slowest generation rate a round is sized for (tokens a second; hosted models run 50-150). */
export const MIN_TOKENS_PER_S = 40;

/** A round's exchange deadline for an answer of up to maxTokens: never below the synchronous read. */
export function roundReadMs(maxTokens: number): number {
  return Math.max(SYNC_READ_MS, FIRST_TOKEN_MS + Math.ceil((maxTokens * 1000) / MIN_TOKENS_PER_S));
}
const ROUND_MS = roundReadMs(ROUND_OUTPUT_TOKENS);

// Default models: current general-purpose ids of each provider (checked
// against their public model lists when written, late 2026); an owner picks
// another on the web page, and the orch_model action switches among the
// hosted three.
export const CATALOG: Readonly<Record<ProviderId, ProviderInfo>> = {
  openai: { base: 'https://api.openai.com', defaultModel: 'gpt-5-mini', accepts: (m) => OPENAI_MODEL.test(m), capMs: SYNC_READ_MS, roundMs: roundReadMs(RESPONSES_OUTPUT_TOKENS) },
  anthropic: { base: 'https://api.anthropic.com', defaultModel: 'claude-sonnet-4-5', accepts: (m) => ANTHROPIC_MODEL.test(m), capMs: SYNC_READ_MS, roundMs: ROUND_MS },
  mistral: { base: 'https://api.mistral.ai', defaultModel: 'mistral-medium-latest', accepts: (m) => MISTRAL_MODEL.test(m), capMs: SYNC_READ_MS, roundMs: ROUND_MS },
  zai: { base: ZAI_HOSTS[0]!, defaultModel: 'glm-4.6', accepts: (m) => ZAI_MODEL.test(m), capMs: SYNC_READ_MS, roundMs: ROUND_MS },
  router: { base: ROUTER_HOST, defaultModel: 'openai/gpt-5-mini', accepts: (m) => ROUTER_MODEL.test(m), capMs: SYNC_READ_MS, roundMs: ROUND_MS },
  // The custom endpoint keeps its 30 s (spec): it runs single-shot turns only, no long tool arguments.
  custom: { base: '', defaultModel: 'default', accepts: () => true, capMs: CUSTOM_MS, roundMs: CUSTOM_MS },
};

/** The model a round uses: the requested one when it is a valid id of this provider, else the default. */
export function resolveModel(provider: ProviderId, requested: string | null | undefined): string {
  const info = CATALOG[provider];
  const m = (requested ?? '').trim();
  return m !== '' && MODEL_ID.test(m) && info.accepts(m) ? m : info.defaultModel;
}

/** A router model id split into its upstream and the bare model id (null when it is not upstream/model). */
export function splitRouterModel(model: string): { upstream: string; model: string } | null {
  const m = ROUTER_MODEL.exec(model);
  return m ? { upstream: m[1]!, model: m[2]! } : null;
}
