// The web subsystem: the ungated shell page and logo.

import type { Context } from '../core/context.ts';
import { LOGO_SVG, SHELL_HTML } from './shell.ts';

export function installWeb(ctx: Context): void {
  ctx.router.add({
    method: 'GET',
    path: '/',
    access: 'open',
    handler: () => ({
      status: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Referrer-Policy': 'no-referrer' },
      body: SHELL_HTML,
    }),
  });
  ctx.router.add({
    method: 'GET',
    path: '/logo.svg',
    access: 'open',
    handler: () => ({ status: 200, headers: { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=86400' }, body: LOGO_SVG }),
  });
}
