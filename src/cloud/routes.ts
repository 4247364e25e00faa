// The cloud relay's owner routes: GET /api/cloud (the relay's state) and
// POST /api/cloud action=pair|off, for the web page and release builds, whose
// console has no Cloud group.

import type { Mode } from '../core/kernel.ts';
import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { errorMessage } from '../util/json.ts';
import type { CloudRelay } from './relay.ts';

export function cloudRoutes(relay: CloudRelay, view: () => Record<string, unknown>, mode: Mode): Route[] {
  return [
    { method: 'GET', path: '/api/cloud', handler: () => jsonResponse(view()) },
    formRoute({
      path: '/api/cloud',
      bodyLimit: 1024,
      onUnreadable: 'empty',
      apply: async (fields) => {
        const action = fields.get('action') ?? '';
        if (action === 'pair') {
          if (mode !== 1) return errorResponse(409, 'notifier-mode', 'The cloud relay runs in Orchestrator mode only.');
          try {
            const code = await relay.pair();
            return jsonResponse({ ...view(), pairing: code });
          } catch (e) {
            return errorResponse(409, 'not-paired', `Pairing did not start: ${errorMessage(e)}.`);
          }
        }
        if (action === 'off') {
          relay.off();
          return jsonResponse(view());
        }
        return errorResponse(400, 'bad-request', 'action is pair or off. Nothing was changed.');
      },
    }),
  ];
}
