// Connectors' routes: the owner's GET and POST /api/connectors, and the
// ungated /oauth/go and /oauth/callback of a sign-in.

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import type { Clock } from '../hal/index.ts';
import { queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest, HttpResponse } from '../net/http/types.ts';
import { replaceEachMatch } from '../util/replace.ts';
import { viaTunnel } from '../auth/index.ts';
import type { Connectors } from './connectors.ts';
import { CONSENT_WINDOW_MAX_MS } from './flows.ts';
import { MAX_CONNECTORS } from './record.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const ORIGIN = /^(https?:\/\/[^/?#]+)/i;
const HTML_SPECIAL = /([&<>"'])/;
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

function page(status: number, title: string, body: string, formAction?: string): HttpResponse {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${formAction ? ` ${formAction}` : ''}; frame-ancestors 'none'; base-uri 'none'`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.6rem 1.2rem}</style></head><body>${body}</body></html>`;
  return { status, headers: { ...PAGE_HEADERS, 'Content-Security-Policy': csp }, body: html };
}

function home(): HttpResponse {
  return { status: 303, headers: { Location: '/', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }, body: '' };
}

function originOf(url: string): string {
  const m = ORIGIN.exec(url);
  return m ? m[1]! : '';
}

function escapeHtml(s: string): string {
  return replaceEachMatch(s, HTML_SPECIAL, (ch) => HTML_ENTITIES[ch] ?? ch);
}

export function connectorRoutes(c: Connectors, addresses: () => Array<{ label: string; base: string }>, clock: Clock): Route[] {
  // Ungated: the phone that scanned the verify link holds no device token; the key is the credential.
  const go = (req: HttpRequest, post: boolean): HttpResponse => {
    const k = queryParams(req).get('k');
    const flow = c.flows.byKey(k);
    const url = flow ? c.authorizeUrl(flow) : null;
    if (!flow || !url) return home();
    if (post) return { status: 303, headers: { Location: url, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }, body: '' };
    return page(200, 'Sign in', '<h1>Connect a service</h1><p>Your desk assistant asks to sign in to a service on your behalf. Continue only if you started this from its web page.</p><form method="post"><button type="submit">Continue to sign in</button></form>', originOf(url));
  };
  return [
    {
      method: 'GET',
      path: '/api/connectors',
      handler: () => jsonResponse({ connectors: c.list(), pending: c.flows.pending(), max: MAX_CONNECTORS, consentWindowMaxMs: CONSENT_WINDOW_MAX_MS }),
    },
    formRoute({
      path: '/api/connectors',
      bodyLimit: 4096,
      json: 'scalars',
      unreadable: (error) => `${error}. Nothing was changed.`,
      apply: (f, req) => {
        const action = f.get('action') ?? 'upsert';
        const id = f.get('id') ?? '';
        switch (action) {
          case 'upsert': {
            const r = c.upsert(f);
            return jsonResponse(r.body, r.status);
          }
          case 'delete':
            return c.remove(id) ? jsonResponse({ deleted: id }) : errorResponse(404, 'not-found', `No connector ${id}.`);
          case 'signout':
            return c.signOut(id) ? jsonResponse({ connector: c.view(id) }) : errorResponse(404, 'not-found', `No connector ${id}.`);
          case 'approve':
          case 'deny': {
            const r = c.setApproval(id, action === 'approve');
            return r.ok ? jsonResponse({ connector: r.view, changed: r.changed }) : errorResponse(r.status, r.error, r.message);
          }
          case 'signin': {
            // The launch key is carried only on the owner's verify link, the device's own address: never minted for the tunnel.
            if (viaTunnel(req)) return errorResponse(403, 'forbidden', 'A connector sign-in starts on your home network: its verify link opens this device there. Nothing was changed.');
            const w = f.get('window');
            const windowMs = w === undefined ? CONSENT_WINDOW_MAX_MS : Number(w) * 1000;
            if (w !== undefined && !(Number.isInteger(Number(w)) && Number(w) > 0)) return errorResponse(400, 'bad-request', 'window is a number of seconds (at most 3600).');
            const s = c.startSignIn(id, windowMs);
            if (!s.ok) return errorResponse(s.status, s.error, s.message);
            const links = addresses().map((a) => ({ label: a.label, url: `${a.base}${s.path}` }));
            return jsonResponse({ id, verifyPath: s.path, links, expiresInMs: s.flow.deadline - clock.monoMs() });
          }
          default:
            return errorResponse(400, 'bad-request', 'action is upsert, delete, signin, signout, approve or deny. Nothing was changed.');
        }
      },
    }),
    { method: 'GET', path: '/oauth/go', access: 'open', handler: (req) => go(req, false) },
    { method: 'POST', path: '/oauth/go', access: 'open', bodyLimit: 1024, handler: (req) => go(req, true) },
    {
      method: 'GET',
      path: '/oauth/callback',
      access: 'open',
      handler: async (req) => {
        const p = queryParams(req);
        const r = await c.callback(p.get('state'), p.get('code'), p.get('error'));
        if (!r.ok) return page(r.status, 'Sign-in failed', `<h1>Sign-in failed</h1><p>${escapeHtml(r.message)}</p><p><a href="/">Back to the device</a></p>`);
        return page(200, 'Signed in', '<h1>Signed in</h1><p>The connector is signed in. You can close this page.</p><p><a href="/#assistant">Back to the device</a></p>');
      },
    },
  ];
}
