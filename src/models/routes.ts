// The models' routes: GET /api/models[?all=1][&refresh=1] (the catalog per
// provider) and GET /api/fallbacks (the active fallback rule set).

import type { Route } from '../core/router.ts';
import { queryParams } from '../net/http/body.ts';
import { jsonResponse } from '../net/http/errors.ts';
import { fallbackRules, type FallbackDeps } from './fallbacks.ts';

export function modelRoutes(d: FallbackDeps): Route[] {
  const { catalog } = d;
  return [
    {
      method: 'GET',
      path: '/api/models',
      handler: async (req) => {
        const q = queryParams(req);
        if (q.get('refresh') === '1') await catalog.refresh();
        return jsonResponse(catalog.view(q.get('all') === '1'));
      },
    },
    {
      method: 'GET',
      path: '/api/fallbacks',
      handler: () => jsonResponse(fallbackRules(d)),
    },
  ];
}
