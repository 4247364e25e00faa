// The page's routes: GET / streams the built page in its chunks (304 when the
// browser's copy is current) with headers that keep it same-origin and
// unframed, and GET /logo.svg.

import type { Route } from '../core/router.ts';
import type { HttpRequest, HttpResponse } from '../net/http/types.ts';
import type { WebPage } from './built.ts';
import { LOGO_SVG } from './shell.ts';

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  // Revalidated on every load (a firmware update changes the page), answered 304 when unchanged.
  'Cache-Control': 'no-cache',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  // Everything is inline and same-origin: no other site may add script, frame the page or receive form posts.
  'Content-Security-Policy': "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function servePage(page: WebPage, req: HttpRequest): HttpResponse {
  const headers = { ...PAGE_HEADERS, ETag: page.etag };
  if ((req.headers.get('if-none-match') ?? '').split(',').some((t) => t.trim() === page.etag)) return { status: 304, headers };
  return {
    status: 200,
    headers,
    stream: {
      length: page.bytes,
      start(w) {
        let i = 0;
        const pump = (): void => {
          while (i < page.chunks.length) {
            if (!w.write(page.chunks[i++]!)) {
              w.onDrain = pump;
              return;
            }
          }
          w.onDrain = null;
          w.end();
        };
        pump();
      },
    },
  };
}

export function webRoutes(page: WebPage): Route[] {
  return [
    { method: 'GET', path: '/', access: 'open', handler: (req) => servePage(page, req) },
    {
      method: 'GET',
      path: '/logo.svg',
      access: 'open',
      handler: () => ({ status: 200, headers: { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=86400' }, body: LOGO_SVG }),
    },
  ];
}
