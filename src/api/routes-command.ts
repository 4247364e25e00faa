// ROUTES? (test builds): every registered route with who may call it, so
// scripts and tests can check the gate over the whole route table.

import type { Context } from '../core/context.ts';

export function installRoutesCommand(ctx: Context): void {
  ctx.console.register({
    verb: 'ROUTES?',
    maxArgs: 0,
    help: 'list the HTTP routes: METHOD PATH ACCESS (open, token, or bootstrap)',
    run: (c) => {
      for (const r of ctx.router.list()) {
        const access = r.access === undefined || r.access === 'token' ? 'token' : r.access === 'open' ? 'open' : 'bootstrap';
        c.out(`${r.method} ${r.path}${r.prefix ? '*' : ''} ${access}`);
      }
    },
  });
}
