// The models subsystem's face: the capability-aware catalog (catalog.ts) and
// the fallback rule set (fallbacks.ts), their routes (routes.ts), and the
// 24-hour refresh.
//
//   GET /api/models[?all=1][&refresh=1]   the catalog per provider; all=1 adds
//                                         probe-hidden models; refresh=1 reads the
//                                         providers' lists first
//   GET /api/fallbacks                    the active fallback rule set
//
// The catalog also picks the model an alternate provider runs on in a
// turn's failover (Assistant.alternateModel), so the catalog, the turn and
// GET /api/fallbacks agree.

import type { Kernel } from '../core/kernel.ts';
import type { Subsystem } from '../core/subsystem.ts';
import type { ProviderChoice } from '../contracts/index.ts';
import { FIRST_REFRESH_MS, ModelCatalog, REFRESH_EVERY_MS, type CatalogWire } from './catalog.ts';
import type { FallbackDeps } from './fallbacks.ts';
import { modelRoutes } from './routes.ts';

/** What the models need from others. */
export interface ModelsOptions {
  /** The assistant: its provider chain (an alternate provider runs on the catalog's model: the turn reads it). */
  assistant: { chain(): ProviderChoice[] };
  /** The orchestrator settings (src/providers/). */
  providers: FallbackDeps['settings'];
  /** The provider wire: which providers are keyed, and their model lists. */
  wire: CatalogWire;
}

export interface ModelsFace {
  catalog: ModelCatalog;
}

export const models: Subsystem<ModelsOptions, ModelsFace> = {
  name: 'models',
  needs: ['assistant', 'providers', 'wire'],
  provides: { catalog: (f) => f.catalog },
  start(k: Kernel, o: ModelsOptions) {
    const catalog = new ModelCatalog(o.wire, k.hal.clock);
    if (k.mode === 1) {
      const refresh = (): void => {
        void catalog.refresh().then(() => k.log.info('models', 'model catalog refreshed'));
      };
      k.hal.clock.setTimeout(() => {
        refresh();
        k.hal.clock.setInterval(refresh, REFRESH_EVERY_MS);
      }, FIRST_REFRESH_MS);
    }
    return {
      provides: { catalog },
      routes: modelRoutes({ catalog, assistant: o.assistant, settings: o.providers, keyed: (p) => o.wire.keyed(p) }),
    };
  },
};

export { ModelCatalog } from './catalog.ts';

