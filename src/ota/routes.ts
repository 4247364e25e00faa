// The update routes (token-gated): POST /api/ota/check and POST
// /api/ota/apply (dry=1, force=1 as form fields or in the query). 202 when
// accepted (the verdict lands in the state snapshot), 409 when busy or gated,
// always 409 in Notifier mode. A battery refusal carries the force
// re-submit offer: {"offer": {"label": "Install anyway (I am charging)", "field": "force", "value": "1"}}.
// POST /api/ota/auto (on=0 or 1) is the auto-install switch of the web page.

import type { Route } from '../core/router.ts';
import { formRoute } from '../core/form-route.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { Updates } from './updates.ts';

function flag(fields: Map<string, string>, name: string): boolean {
  const v = fields.get(name);
  return v === '1' || v === 'true';
}

export function otaRoutes(ota: Updates): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/ota/check',
      handler: () => {
        const t = ota.check();
        if (!t.ok) return errorResponse(409, t.reason, t.message);
        return jsonResponse({ accepted: true }, 202);
      },
    },
    formRoute({
      path: '/api/ota/apply',
      query: true,
      onUnreadable: 'empty',
      apply: (f) => {
        const dry = flag(f, 'dry');
        const force = flag(f, 'force');
        const t = ota.apply({ source: 'web', dry, force });
        if (!t.ok) {
          return jsonResponse({ error: t.reason, message: t.message, ...(t.offer ? { offer: { label: t.offer, field: 'force', value: '1' } } : {}) }, 409);
        }
        return jsonResponse({ accepted: true, dry, force }, 202);
      },
    }),
    formRoute({
      path: '/api/ota/auto',
      bodyLimit: 1024,
      query: true,
      onUnreadable: 'empty',
      apply: (f) => {
        const v = f.get('on');
        if (v !== '0' && v !== '1') return errorResponse(400, 'bad-setting', 'on must be 0 or 1. Nothing was changed.');
        ota.setAuto(v === '1');
        return null;
      },
      view: () => ({ autoUpd: ota.autoEnabled() }),
    }),
  ];
}
