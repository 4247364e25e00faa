// The web subsystem's face: the ungated page at GET / (built from src/web/page/ at
// build time; it carries no device data: everything comes from the API with
// the token the browser keeps) and the logo.

import type { Subsystem } from '../core/subsystem.ts';
import { builtInPage, type WebPage } from './built.ts';
import { webRoutes } from './routes.ts';

/** What the web page needs: the page (the one built into this image unless a test gives another). */
export interface WebOptions {
  page?: WebPage;
}

export const web: Subsystem<WebOptions, null> = {
  name: 'web',
  needs: [],
  provides: {},
  start: (_k, o) => ({ provides: null, routes: webRoutes(o.page ?? builtInPage()) }),
};
