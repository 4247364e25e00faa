// The system subsystem's routes: the state snapshot (GET /api/state), the
// firmware log (GET /api/log), the owner's time zone (GET and POST
// /api/timezone, src/system/local-time.ts) and the danger zone (POST
// /api/factory-reset, /api/storage/erase, /api/card/format: each needs its
// own exact typed phrase, answers 202 first and does the work after the
// answer, then restarts; src/system/danger.ts).

import { formRoute } from '../core/form-route.ts';
import type { Kernel } from '../core/kernel.ts';
import type { Route } from '../core/router.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { formatFields, formatOffset } from '../util/tz.ts';
import { DATA_ROOT, later, mismatch, PHRASES, scheduleFactoryReset, wipeCard } from './danger.ts';
import type { LocalTime } from './local-time.ts';
import type { SystemOptions } from './options.ts';

function timeRoutes(k: Kernel, time: LocalTime): Route[] {
  const view = (): Record<string, unknown> => {
    const synced = k.hal.clock.synced();
    const t = time.local();
    return {
      tz: time.zone().text,
      now: synced ? formatFields(t) : 'unknown (the clock is not set yet)',
      offset: formatOffset(t.offset),
      abbr: t.abbr,
      label: t.label,
      dst: t.dst,
      synced,
    };
  };
  return [
    { method: 'GET', path: '/api/timezone', handler: () => jsonResponse(view()) },
    formRoute({
      path: '/api/timezone',
      bodyLimit: 1024,
      apply: (f) => {
        const text = f.get('tz');
        if (text === undefined) return errorResponse(400, 'bad-request', 'tz is the time zone, a POSIX TZ string such as CET-1CEST,M3.5.0,M10.5.0/3.');
        const r = time.set(text);
        if (!r.ok) return errorResponse(r.code === 'storage' ? 500 : 400, r.code, r.message);
        const v = view();
        return jsonResponse({ ...v, message: `The time zone is ${r.zone.text}; it is ${String(v['now'])}.` });
      },
    }),
  ];
}

function dangerRoutes(k: Kernel, card: SystemOptions['card']): Route[] {
  // A confirmation the body does not carry (no form, bad JSON) is a mismatch like a wrong one.
  const confirmed = { bodyLimit: 1024, json: true, onUnreadable: 'empty' } as const;
  return [
    formRoute({
      ...confirmed,
      path: '/api/factory-reset',
      apply: (f) => {
        if (f.get('confirm') !== PHRASES.factoryReset) return mismatch(PHRASES.factoryReset);
        const eraseCard = f.get('eraseCard') === '1' || f.get('eraseCard') === 'true';
        scheduleFactoryReset(k, { eraseCard });
        return jsonResponse({ scheduled: 'factory-reset', eraseCard, restarting: true }, 202);
      },
    }),
    formRoute({
      ...confirmed,
      path: '/api/storage/erase',
      apply: (f) => {
        if (f.get('confirm') !== PHRASES.eraseStorage) return mismatch(PHRASES.eraseStorage);
        later(k, 'erase storage', () => void wipeCard(k, DATA_ROOT));
        return jsonResponse({ scheduled: 'erase-storage', restarting: true }, 202);
      },
    }),
    formRoute({
      ...confirmed,
      path: '/api/card/format',
      apply: (f) => {
        if (f.get('confirm') !== PHRASES.formatCard) return mismatch(PHRASES.formatCard);
        if (!card.probe() || card.get().tier === 'none') return errorResponse(409, 'no-card', 'There is no SD card to format.');
        later(k, 'format card', () => void wipeCard(k, '/'));
        return jsonResponse({ scheduled: 'format-card', restarting: true }, 202);
      },
    }),
  ];
}

export function systemRoutes(k: Kernel, o: Pick<SystemOptions, 'time' | 'card'>): Route[] {
  return [
    { method: 'GET', path: '/api/state', handler: () => jsonResponse(k.status.snapshot()) },
    ...timeRoutes(k, o.time),
    {
      method: 'GET',
      path: '/api/log',
      handler: () => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, body: k.log.text() }),
    },
    ...dangerRoutes(k, o.card),
  ];
}
