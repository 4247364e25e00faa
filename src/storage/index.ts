// The storage subsystem's face: the sd= status field, the files summary and
// sd status in the state snapshot, and GET /api/sdprobe (re-probe the card;
// a card inserted later upgrades the tier without a reboot).

import type { Context } from '../core/context.ts';
import { jsonResponse } from '../net/http/errors.ts';

export function installStorage(ctx: Context): void {
  const { card } = ctx;
  ctx.status.field('sd', () => card.statusWord());
  ctx.status.section(() => {
    const c = card.get();
    return {
      sd: card.statusWord(),
      // The artifact store fills count and bytes in when it lands; until then it holds nothing.
      files: {
        present: c.tier === 'present',
        unsupported: c.tier === 'unsupported',
        count: 0,
        bytes: 0,
        quota: c.quota,
        cardFree: c.freeBytes,
      },
    };
  });
  ctx.router.add({
    method: 'GET',
    path: '/api/sdprobe',
    handler: () => {
      const c = card.probe();
      return jsonResponse({ sd: card.statusWord(), tier: c.tier, quota: c.quota, cardTotal: c.totalBytes, cardFree: c.freeBytes });
    },
  });
}
