// The orchestrator settings' routes: GET /api/orch (the settings as the web
// page shows them, keys only as set or not) and POST /api/orch (a form of
// changes, applied all or none).

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import { jsonResponse } from '../net/http/errors.ts';
import type { ProviderSettings } from './settings.ts';

export function providerRoutes(settings: ProviderSettings): Route[] {
  return [
    formRoute({ path: '/api/orch', bodyLimit: 4096, apply: (f) => settings.apply(f), view: () => settings.view() }),
    { method: 'GET', path: '/api/orch', handler: () => jsonResponse(settings.view()) },
  ];
}
