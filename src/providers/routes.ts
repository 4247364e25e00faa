// The orchestrator settings' routes: GET /api/orch (the settings as the web
// page shows them, keys only as set or not) and POST /api/orch (a form of
// changes, applied all or none).

import type { Route } from '../core/router.ts';
import { parseForm } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { unchanged } from '../util/sentence.ts';
import type { ProviderSettings } from './settings.ts';

export function providerRoutes(settings: ProviderSettings): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/orch',
      bodyLimit: 4096,
      handler: (req) => {
        const form = parseForm(req);
        if (!form.ok) return errorResponse(400, 'bad-request', form.error);
        const problem = settings.apply(form.form.fields);
        if (problem) return errorResponse(400, 'bad-setting', unchanged(problem));
        return jsonResponse(settings.view());
      },
    },
    { method: 'GET', path: '/api/orch', handler: () => jsonResponse(settings.view()) },
  ];
}
