// The system subsystem: identity and health in the status line and state
// snapshot, the console's basic status commands, and the owner's time zone
// routes (src/system/local-time.ts).

import type { Context } from '../core/context.ts';
import { jsonResponse } from '../net/http/errors.ts';
import { installLocalTime } from './local-time.ts';

export function installSystem(ctx: Context): void {
  const { hal } = ctx;
  ctx.status.field('fw', () => hal.build.version);
  ctx.status.field('build', () => hal.build.buildId);
  ctx.status.field('board', () => hal.board.type);
  ctx.status.field('mode', () => ctx.mode);
  ctx.status.field('up', () => Math.floor(hal.clock.monoMs() / 1000));
  ctx.status.field('psram', () => Math.floor(hal.system.heap().freePsram / 1024));
  ctx.status.field('minheap', () => Math.floor(hal.system.heap().minFreeInternal / 1024));
  ctx.status.section(() => {
    const heap = hal.system.heap();
    return {
      version: hal.build.version,
      buildId: hal.build.buildId,
      board: hal.board.type,
      mode: ctx.mode,
      uptimeS: Math.floor(hal.clock.monoMs() / 1000),
      resetReason: hal.system.resetReason(),
      heap: { freeInternal: heap.freeInternal, largestBlock: heap.largestBlock, minFreeInternal: heap.minFreeInternal, freePsram: heap.freePsram, xsNow: heap.xsNow, xsPeak: heap.xsPeak, xsStatic: heap.xsStatic },
    };
  });

  ctx.router.add({ method: 'GET', path: '/api/state', handler: () => jsonResponse(ctx.status.snapshot()) });
  installLocalTime(ctx);
  ctx.router.add({
    method: 'GET',
    path: '/api/log',
    handler: () => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, body: ctx.log.text() }),
  });

  ctx.console.register({ verb: 'PING', help: 'answer PONG', testOnly: false, maxArgs: 0, run: (c) => c.out('PONG') });
  ctx.console.register({ verb: 'STATUS', help: 'print the status line', maxArgs: 0, run: (c) => c.out(ctx.status.line()) });
  ctx.console.register({
    verb: 'HEAP?',
    maxArgs: 0,
    help: 'collect garbage, then print heap figures in bytes (xs = live XS heap)',
    run: (c) => {
      hal.system.gc();
      const h = hal.system.heap();
      c.out(`xs=${h.xsNow} xsStatic=${h.xsStatic} xsRam=${h.xsNow - h.xsStatic} xsPeak=${h.xsPeak} xsReserved=${h.xsReserved} free=${h.freeInternal} largest=${h.largestBlock} minFree=${h.minFreeInternal} psram=${h.freePsram}${h.xsKeys === undefined ? '' : ` keys=${h.xsKeys}`}${h.xsStackPeak === undefined ? '' : ` stackPeak=${h.xsStackPeak}`}`);
    },
  });
  ctx.console.register({
    verb: 'HEAPRESET',
    maxArgs: 0,
    help: 'reset the XS heap high-water (xsPeak), so a later HEAP? shows the peak of what ran in between',
    run: (c) => {
      hal.system.resetHeapPeak();
      c.out(`xsPeak=${hal.system.heap().xsPeak}`);
    },
  });
}
