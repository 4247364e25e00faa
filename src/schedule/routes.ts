// The scheduler's routes for the owner's web page (token-gated: the token
// holder is the owner, an admin, so "admin only" holds for every caller the
// gate lets through):
//   GET  /api/routines   {tz, now, synced, routines: [...]}
//   POST /api/routines   action=approve|deny|off|on&id=<id>
//   GET  /api/wakeups    {mode, armed, armedMax, wakeups: [...]} (reminders too, kind reminder)
//   POST /api/wakeups    action=mode&value=ask|auto; action=approve&id; action=cancel&id
// (The owner's time zone, GET/POST /api/timezone, is the device's: src/system/local-time.ts.)
// Errors: 400 bad input, 404 no such id, 409 a limit or a state that refuses,
// 500 storage; {error, message} as every route.

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import type { Clock } from '../hal/index.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { WAKEUPS_ARMED_MAX } from './limits.ts';
import type { FailCode, Outcome, Scheduler } from './scheduler.ts';
import { routineView, wakeView } from './views.ts';

const STATUS: Record<FailCode, number> = { 'bad-input': 400, 'not-found': 404, limit: 409, state: 409, storage: 500 };

function answer<T>(o: Outcome<T>, view: (v: T) => Record<string, unknown>): HttpResponse {
  if (!o.ok) return errorResponse(STATUS[o.code], o.code, o.message);
  return jsonResponse({ ...view(o.value), message: o.message });
}

export function scheduleRoutes(s: Scheduler, clock: Pick<Clock, 'synced'>): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/routines',
      handler: () => jsonResponse({ tz: s.tz().text, now: s.now(), synced: clock.synced(), routines: s.routines().map((r) => routineView(s, r)) }),
    },
    formRoute({
      path: '/api/routines',
      bodyLimit: 1024,
      apply: (f) => {
        const action = f.get('action') ?? '';
        const id = (f.get('id') ?? '').trim();
        if (!['approve', 'deny', 'off', 'on'].includes(action)) return errorResponse(400, 'bad-action', 'action must be approve, deny, off or on.');
        if (!id) return errorResponse(400, 'bad-request', 'id names the routine.');
        if (action === 'deny') {
          const r = s.removeRoutine(id);
          return r.ok ? jsonResponse({ id, deleted: true, message: r.message }) : errorResponse(STATUS[r.code], r.code, r.message);
        }
        const r = action === 'approve' ? s.approveRoutine(id) : s.setRoutineEnabled(id, action === 'on');
        return answer(r, (v) => routineView(s, v));
      },
    }),

    {
      method: 'GET',
      path: '/api/wakeups',
      handler: () =>
        jsonResponse({
          mode: s.mode(),
          armed: s.wakes('wakeup').filter((w) => w.state === 'armed').length,
          armedMax: WAKEUPS_ARMED_MAX,
          wakeups: s.wakes().map((w) => wakeView(s, w)),
        }),
    },
    formRoute({
      path: '/api/wakeups',
      bodyLimit: 1024,
      apply: (f) => {
        const action = f.get('action') ?? '';
        if (action === 'mode') {
          const r = s.setMode((f.get('value') ?? '').trim());
          return answer(r, (mode) => ({ mode }));
        }
        if (action !== 'approve' && action !== 'cancel') return errorResponse(400, 'bad-action', 'action must be mode, approve or cancel.');
        const id = (f.get('id') ?? '').trim();
        if (!id) return errorResponse(400, 'bad-request', 'id names the wakeup.');
        if (action === 'cancel') {
          const r = s.cancelWake(id);
          return r.ok ? jsonResponse({ id, cancelled: true, message: r.message }) : errorResponse(STATUS[r.code], r.code, r.message);
        }
        return answer(s.approveWake(id), (w) => wakeView(s, w));
      },
    }),
  ];
}
