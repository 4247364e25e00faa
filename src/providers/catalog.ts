// The providers' constants in one table: default base URLs, default models,
// which model ids each provider accepts, and the per-provider exchange caps
// (spec, Limits: synchronous provider read 60 s, custom endpoint 30 s).
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
  /** Longest exchange, whatever the turn's budget (spec, Limits). */
  capMs: number;
}

const OPENAI_MODEL = /^(gpt-|chatgpt-|codex-|o\d)/;
const ANTHROPIC_MODEL = /^claude-/;
const MISTRAL_MODEL = /^(mistral-|magistral-|ministral-|codestral-|devstral-|pixtral-|voxtral-|open-mistral-|open-mixtral-)/;
const ZAI_MODEL = /^glm-/;

/** Synchronous provider read deadline (spec, Limits). */
export const SYNC_READ_MS = 60_000;
/** Custom endpoint deadline (spec, Limits). */
export const CUSTOM_MS = 30_000;

// Default models: current general-purpose ids of each provider (checked
// against their public model lists when written, late 2026); an owner picks
// another on the web page, and the orch_model action switches among the
// hosted three.
export const CATALOG: Readonly<Record<ProviderId, ProviderInfo>> = {
  openai: { base: 'https://api.openai.com', defaultModel: 'gpt-5-mini', accepts: (m) => OPENAI_MODEL.test(m), capMs: SYNC_READ_MS },
  anthropic: { base: 'https://api.anthropic.com', defaultModel: 'claude-sonnet-4-5', accepts: (m) => ANTHROPIC_MODEL.test(m), capMs: SYNC_READ_MS },
  mistral: { base: 'https://api.mistral.ai', defaultModel: 'mistral-medium-latest', accepts: (m) => MISTRAL_MODEL.test(m), capMs: SYNC_READ_MS },
  zai: { base: ZAI_HOSTS[0]!, defaultModel: 'glm-4.6', accepts: (m) => ZAI_MODEL.test(m), capMs: SYNC_READ_MS },
  router: { base: ROUTER_HOST, defaultModel: 'openai/gpt-5-mini', accepts: (m) => ROUTER_MODEL.test(m), capMs: SYNC_READ_MS },
  custom: { base: '', defaultModel: 'default', accepts: () => true, capMs: CUSTOM_MS },
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
