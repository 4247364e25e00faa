// Which provider and model run a spawned job (spec, "Sub-agent brief":
// provider choice): providers past the owner's monthly token budget are left
// out (a job is new work); the requested provider if it is keyed; else the provider
// a connector-matching skill names, if keyed; else the first keyed provider
// by priority. An invalid model id becomes the provider's default; the
// model "deep_research" on provider A upgrades A's default to its deep
// research model. Test builds with no provider at all use the offline demo.

import { resolveModel } from '../providers/index.ts';
import type { CustomEndpoint, SpawnSpec } from '../contracts/index.ts';
import { PROVIDERS, type ProviderId } from '../contracts/index.ts';
import type { AgentSkills } from './ports.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DEEP_RESEARCH = /^deep[_-]?research$/i;

/** Provider A's deep research model (decision: the full one, not the mini). */
export const DEEP_RESEARCH_MODEL = 'o3-deep-research';

export interface ChoiceDeps {
  /** Usable providers in priority order (keyed; the custom endpoint when its base is set). */
  keyed(): ProviderId[];
  customModel(): string;
  skills: AgentSkills;
  /** Test builds: the offline demo endpoint when nothing is keyed. */
  demo: CustomEndpoint | null;
  /** Whether a provider is past the owner's monthly token budget (a job is new work: it goes elsewhere). */
  spent?(provider: ProviderId): boolean;
}

export type Choice =
  | { ok: true; provider: ProviderId; model: string; endpoint: CustomEndpoint | null; note: string | null }
  | { ok: false; reason: string };

export function isDeepResearch(model: string): boolean {
  return DEEP_RESEARCH.test(model.trim());
}

export function modelFor(provider: ProviderId, requested: string, customModel: string): string {
  if (provider === 'openai' && isDeepResearch(requested)) return DEEP_RESEARCH_MODEL;
  if (provider === 'custom') return requested.trim() || customModel || resolveModel('custom', '');
  return resolveModel(provider, isDeepResearch(requested) ? '' : requested);
}

export function chooseProvider(spec: Pick<SpawnSpec, 'provider' | 'model' | 'skill' | 'task'>, deps: ChoiceDeps): Choice {
  const all = deps.keyed();
  const spent = all.filter((p) => deps.spent?.(p) === true);
  const keyed = all.filter((p) => !spent.includes(p));
  const asked = spec.provider.trim().toLowerCase();
  let note: string | null = null;
  let provider: ProviderId | null = null;
  if (asked) {
    if ((PROVIDERS as readonly string[]).includes(asked) && keyed.includes(asked as ProviderId)) provider = asked as ProviderId;
    else if (spent.includes(asked as ProviderId)) note = `${asked}'s monthly token budget is used up`;
    else note = (PROVIDERS as readonly string[]).includes(asked) ? `${asked} has no key` : `${asked} is not a provider`;
  }
  if (!provider && spec.skill) {
    const p = (deps.skills.provider(spec.skill, spec.task) ?? '').toLowerCase();
    if ((PROVIDERS as readonly string[]).includes(p) && keyed.includes(p as ProviderId)) provider = p as ProviderId;
  }
  if (!provider) provider = keyed[0] ?? null;
  if (!provider) {
    if (spent.length) return { ok: false, reason: `the monthly token budget is used up for ${spent.join(', ')}` };
    if (deps.demo) return { ok: true, provider: 'custom', model: deps.demo.model, endpoint: deps.demo, note: 'no provider is keyed: the offline demo runs it' };
    return { ok: false, reason: 'no model provider has a key for sub-agents' };
  }
  return { ok: true, provider, model: modelFor(provider, spec.model, deps.customModel()), endpoint: null, note };
}
