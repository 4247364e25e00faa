// The models subsystem: the capability-aware catalog (catalog.ts) and the
// fallback rule set (fallbacks.ts), their routes, and the 24-hour refresh.
//
//   GET /api/models[?all=1][&refresh=1]   the catalog per provider; all=1 adds
//                                         probe-hidden models; refresh=1 reads the
//                                         providers' lists first
//   GET /api/fallbacks                    the active fallback rule set
//
// The catalog also picks the model an alternate provider runs on in a
// turn's failover (Assistant.alternateModel), so the catalog, the turn and
// GET /api/fallbacks agree.

import type { Context } from '../core/context.ts';
import { queryParams } from '../net/http/body.ts';
import { jsonResponse } from '../net/http/errors.ts';
import type { ProviderSettings } from '../providers/index.ts';
import type { Assistant } from '../turn/index.ts';
import { FIRST_REFRESH_MS, ModelCatalog, REFRESH_EVERY_MS, type CatalogWire } from './catalog.ts';
import { fallbackRules } from './fallbacks.ts';
import { ROLE_DEFAULTS } from './known.ts';

export function installModels(ctx: Context, deps: { assistant: Assistant; settings: ProviderSettings; wire: CatalogWire }): ModelCatalog {
  const catalog = new ModelCatalog(deps.wire, ctx.hal.clock);
  // Only when the provider's list hides its default does the catalog name another model.
  deps.assistant.alternateModel = (p) => {
    const m = catalog.modelFor(p, 'orchestrator');
    return m === ROLE_DEFAULTS[p]?.orchestrator ? null : m;
  };

  ctx.router.add({
    method: 'GET',
    path: '/api/models',
    handler: async (req) => {
      const q = queryParams(req);
      if (q.get('refresh') === '1') await catalog.refresh();
      return jsonResponse(catalog.view(q.get('all') === '1'));
    },
  });
  ctx.router.add({
    method: 'GET',
    path: '/api/fallbacks',
    handler: () => jsonResponse(fallbackRules({ assistant: deps.assistant, settings: deps.settings, keyed: (p) => deps.wire.keyed(p), catalog })),
  });

  if (ctx.mode === 1) {
    const refresh = (): void => {
      void catalog.refresh().then(() => ctx.log.info('models', 'model catalog refreshed'));
    };
    ctx.hal.clock.setTimeout(() => {
      refresh();
      ctx.hal.clock.setInterval(refresh, REFRESH_EVERY_MS);
    }, FIRST_REFRESH_MS);
  }
  return catalog;
}
