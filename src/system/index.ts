// The system subsystem's face: identity and health in the status line and
// the state snapshot, the device timeline (its restart row of this boot), the
// owner's time zone (local-time.ts), the danger zone (danger.ts), the
// self-test (selftest.ts), the console's basic, restart and self-test
// commands (console.ts), its routes (routes.ts) and its tools (tools.ts:
// system.health, device.status, device.selftest, device.control, ota.status).
// The timeline and the local time are made at boot (main.ts) and handed in:
// ctx carries them for the hosts and the tests, and the subsystems mounted
// after this one receive them through their own options.

import type { Subsystem } from '../core/subsystem.ts';
import { systemCommands } from './console.ts';
import type { LocalTime } from './local-time.ts';
import type { SystemOptions } from './options.ts';
import { systemRoutes } from './routes.ts';
import { selftestParts } from './selftest.ts';
import type { Timeline } from './timeline.ts';
import { systemTools } from './tools.ts';

export type { AudioProbe, BatteryView, MusicProbe, SystemActions, SystemOptions } from './options.ts';
export { Timeline, TIMELINE_RING, type TimelineKind, type TimelineRow } from './timeline.ts';
export { LEGACY_TIME_NS, LocalTime, sameZone, TIME_NS, type TimeSet, type ZoneChoice } from './local-time.ts';
export { KEEP_NS } from './danger.ts';

/** What the system provides to the subsystems mounted after it. */
export interface SystemFace {
  timeline: Timeline;
  time: LocalTime;
}

/** The status line's keys in order; fields other subsystems add come after these. */
export const STATUS_LINE = ['fw', 'build', 'board', 'mode', 'up', 'psram', 'minheap', 'sd', 'vec', 'ota', 'lastOta'] as const;

export const system: Subsystem<SystemOptions, SystemFace> = {
  name: 'system',
  needs: ['timeline', 'time', 'card', 'actions', 'people', 'music', 'audio', 'power'],
  provides: {},
  start(k, o) {
    const { hal } = k;
    const selftest = selftestParts(k, o);
    o.timeline.row('restart', `${hal.build.version} started (reset reason: ${hal.system.resetReason()})`);
    return {
      provides: { timeline: o.timeline, time: o.time },
      routes: systemRoutes(k, o),
      commands: systemCommands(k, o.timeline, selftest),
      tools: systemTools(k, o, selftest),
      status: {
        // The status line's layout (console STATUS, the Status echo): identity first, then the card, memory and updates.
        layout: STATUS_LINE,
        fields: [
          ['fw', () => hal.build.version],
          ['build', () => hal.build.buildId],
          ['board', () => hal.board.type],
          ['mode', () => k.mode],
          ['up', () => Math.floor(hal.clock.monoMs() / 1000)],
          ['psram', () => Math.floor(hal.system.heap().freePsram / 1024)],
          ['minheap', () => Math.floor(hal.system.heap().minFreeInternal / 1024)],
        ],
        sections: [
          () => {
            const heap = hal.system.heap();
            return {
              version: hal.build.version,
              buildId: hal.build.buildId,
              board: hal.board.type,
              mode: k.mode,
              uptimeS: Math.floor(hal.clock.monoMs() / 1000),
              resetReason: hal.system.resetReason(),
              heap: { freeInternal: heap.freeInternal, largestBlock: heap.largestBlock, minFreeInternal: heap.minFreeInternal, freePsram: heap.freePsram, xsNow: heap.xsNow, xsPeak: heap.xsPeak, xsStatic: heap.xsStatic },
            };
          },
        ],
      },
    };
  },
};
