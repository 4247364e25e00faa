// The HTTP API's face: ROUTES? (test builds), every registered route with
// who may call it, so scripts and tests can check the gate over the whole
// route table. Mounted after every subsystem that adds routes.

import type { Command } from '../core/console.ts';
import type { Router } from '../core/router.ts';
import type { Subsystem } from '../core/subsystem.ts';

function routesCommands(router: Pick<Router, 'list'>): Command[] {
  return [
    {
      verb: 'ROUTES?',
      maxArgs: 0,
      help: 'list the HTTP routes: METHOD PATH ACCESS (open, token, or bootstrap)',
      run: (c) => {
        for (const r of router.list()) {
          const access = r.access === undefined || r.access === 'token' ? 'token' : r.access === 'open' ? 'open' : 'bootstrap';
          c.out(`${r.method} ${r.path}${r.prefix ? '*' : ''} ${access}`);
        }
      },
    },
  ];
}

/** Needs nothing but the kernel's router; provides nothing. */
export const api: Subsystem<Record<never, never>, null> = {
  name: 'api',
  needs: [],
  provides: {},
  start: (k) => ({ provides: null, commands: routesCommands(k.router) }),
};
