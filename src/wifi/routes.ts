// The owner's Wi-Fi routes (token-gated; the web page's "Wi-Fi networks"
// card, since release builds have no serial console): GET /api/wifi lists
// the known networks (never a passphrase) with the station and the setup
// network; POST /api/wifi action=save (ssid, pass), action=forget (ssid),
// action=rename (from, to). Saving does not move the device off the network
// the page is talking through: a new network is joined when none is (now)
// or when the current one is out of reach. The last network cannot be
// forgotten here: with none saved the device would reopen its setup network
// and the token handout (a factory reset is the way to start over).

import type { Route } from '../core/router.ts';
import type { Log } from '../log/log.ts';
import { formRoute } from '../core/form-route.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { errorMessage } from '../util/json.ts';
import { KNOWN_MAX, passProblem, ssidProblem } from './known.ts';
import type { Provisioning } from './provisioning.ts';
import { unchanged } from '../util/sentence.ts';

export function wifiView(p: Provisioning) {
  const v = p.view();
  const current = v.station.state === 'connected' ? v.station.ssid : null;
  return {
    station: v.station,
    setup: { state: v.setup.state, ssid: v.setup.ssid },
    known: p.known.list().map((n) => ({ ssid: n.ssid, security: n.pass ? 'wpa2' : 'open', current: n.ssid === current })),
    max: KNOWN_MAX,
  };
}

export function wifiRoutes(log: Log, p: Provisioning): Route[] {
  return [
    { method: 'GET', path: '/api/wifi', handler: () => jsonResponse(wifiView(p)) },
    formRoute({
      path: '/api/wifi',
      bodyLimit: 1024,
      unreadable: 'Send the action as form fields. Nothing was changed.',
      apply: (f): HttpResponse => {
        const action = f.get('action') ?? '';
        try {
          if (action === 'save') {
            const ssid = f.get('ssid') ?? '';
            const pass = f.get('pass') ?? '';
            const bad = ssidProblem(ssid) ?? passProblem(pass);
            if (bad) return errorResponse(400, 'bad-network', unchanged(bad));
            const r = p.known.save(ssid, pass);
            log.info('wifi', `network ${ssid} ${r.added ? 'saved' : 'updated'} from the web`);
            p.kick();
            return jsonResponse({ saved: ssid, added: r.added, dropped: r.dropped, ...wifiView(p) });
          }
          if (action === 'forget') {
            const ssid = f.get('ssid') ?? '';
            if (!p.known.get(ssid)) return errorResponse(404, 'unknown-network', 'That network is not saved. Nothing was changed.');
            if (p.known.list().length === 1) {
              return errorResponse(409, 'last-network', 'The last network cannot be forgotten: the device would open its setup network again. Save another first, or use Factory reset to start over.');
            }
            p.known.forget(ssid);
            log.info('wifi', `network ${ssid} forgotten from the web`);
            return jsonResponse({ forgot: ssid, ...wifiView(p) });
          }
          if (action === 'rename') {
            const from = f.get('from') ?? '';
            const to = f.get('to') ?? '';
            const bad = ssidProblem(to);
            if (bad) return errorResponse(400, 'bad-network', unchanged(bad));
            const r = p.known.rename(from, to);
            if (r === 'unknown') return errorResponse(404, 'unknown-network', 'That network is not saved. Nothing was changed.');
            if (r === 'taken') return errorResponse(409, 'network-exists', 'A network of that name is saved already. Nothing was changed.');
            return jsonResponse({ renamed: to, ...wifiView(p) });
          }
        } catch (e) {
          return errorResponse(500, 'storage', `The networks were not saved (${errorMessage(e)}). Nothing was changed.`);
        }
        return errorResponse(400, 'bad-action', 'action is save, forget or rename. Nothing was changed.');
      },
    }),
  ];
}
