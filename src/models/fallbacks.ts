// The provider fallback rule set (spec: GET /api/fallbacks), read from the
// same places the turn engine acts on, so the page shows what the next turn
// will do and not a description of it:
//   - the chain is Assistant.chain(), the very list the engine walks
//     (the orchestrator's provider or the first keyed one, then keyed
//     providers in priority order; at most three; the first on its
//     configured model, alternates on the catalog's orchestrator model:
//     the provider's default unless its list hides it, src/models/
//     catalog.ts modelFor);
//   - the failure rules come from the engine's constants (MAX_SWITCHES,
//     TRANSPORTISH) and the midFail setting.

import { MAX_SWITCHES, TRANSPORTISH } from '../turn/index.ts';
import { PROVIDERS, type ProviderChoice, type ProviderId } from '../contracts/index.ts';
import { type ProviderSettings } from '../providers/index.ts';
import type { ModelCatalog } from './catalog.ts';
import { ROLE_DEFAULTS } from './known.ts';

/** Chain length the engine uses: the first provider and up to two alternates. */
export const CHAIN_MAX = MAX_SWITCHES + 1;

export interface FallbackDeps {
  assistant: { chain(): ProviderChoice[] };
  settings: Pick<ProviderSettings, 'midFail' | 'model' | 'customModel' | 'keyedList'>;
  keyed(p: ProviderId): boolean;
  catalog: ModelCatalog;
}

export function fallbackRules(d: FallbackDeps): Record<string, unknown> {
  const chain = d.assistant.chain();
  const midFail = d.settings.midFail();
  const inChain = new Set(chain.map((c) => c.provider));
  const demo = chain.length === 1 && chain[0]!.endpoint !== undefined;
  const entries = chain.map((c, i) => {
    const known = demo ? null : d.catalog.find(c.provider, c.model);
    let model: string;
    if (demo) model = 'offline demo (test builds, no provider set up)';
    else if (i > 0) model = c.model === ROLE_DEFAULTS[c.provider]?.orchestrator ? 'default' : 'the first orchestrator model the provider lists (its default is not listed for this key)';
    else {
      const requested = c.provider === 'custom' ? d.settings.customModel() : d.settings.model();
      model = !requested ? 'default' : requested === c.model ? 'configured' : `default (the configured ${requested} is not a ${c.provider} model)`;
    }
    return {
      position: i + 1,
      role: i === 0 ? 'primary' : 'alternate',
      provider: c.provider,
      model: c.model,
      why: model,
      label: c.label,
      loops: c.loops,
      readMs: c.readMs,
      size: known?.size ?? null,
    };
  });
  const skipped = PROVIDERS.filter((p) => !inChain.has(p)).map((p) => ({
    provider: p,
    why: !d.keyed(p) ? (p === 'custom' ? 'no endpoint set' : 'no key') : `beyond the ${CHAIN_MAX} the chain holds`,
  }));
  const retry = TRANSPORTISH.join(', ');
  const rules = midFail
    ? [
        { on: retry, then: 'retry once on the same provider, then switch to the next in the chain; the transcript so far carries over (dialect-only items such as reasoning are dropped)' },
        { on: 'auth, rate-limit, config', then: 'switch to the next in the chain at once, the transcript carrying over' },
      ]
    : [
        { on: 'any provider failure', then: 'retry once on the same provider with a fresh conversation, then switch with a fresh conversation; neither once a tool has run' },
      ];
  rules.push(
    { on: 'context-overflow', then: 'retry once from a fresh thread (prompt and message only) on the same provider; the chat is marked for folding' },
    { on: 'parse (an unreadable turn object)', then: 'one repair round on the same provider; never switches' },
    { on: 'cap (rounds, deadline, heap, transcript, stall)', then: 'one forced final round without tools; never switches' },
  );
  return {
    midFail,
    maxSwitches: MAX_SWITCHES,
    notice: 'each switch sends the owner a notice; an answer from an alternate ends with "(served by <provider> <model>)"',
    chain: entries,
    skipped,
    rules,
  };
}
