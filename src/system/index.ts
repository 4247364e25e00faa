// The system subsystem's face: identity and health in the status line and
// the state snapshot, the// owner's time zone (local-time.ts), the danger zone (danger.ts), the
// self-test (selftest.ts), the console's basic, restart and self-test
// commands (console.ts), its routes (routes.ts) and its tools (tools.ts:
// system.health, device.status, device.selftest, device.control, ota.status).
// It makes the owner's local time and provides it as the part "time"; the
// device timeline (src/timeline/) it writes rows to is a need.

import type { Later, Subsystem } from '../core/subsystem.ts';
import { systemCommands } from './console.ts';
import { LEGACY_TIME_NS, LocalTime, TIME_NS } from './local-time.ts';
import type { SystemOptions } from './options.ts';
import { systemRoutes } from './routes.ts';
import { selftestParts } from './selftest.ts';
import { systemTools } from './tools.ts';

export type { SystemOptions } from './options.ts';
export { sameZone } from './local-time.ts';
export { KEEP_NS } from './danger.ts';

/** What the system provides to the subsystems mounted after it: the owner's local time. */
export interface SystemFace {
  time: LocalTime;
}

/** The status line's keys in order; fields other subsystems add come after these. */
const STATUS_LINE = ['fw', 'build', 'board', 'mode', 'up', 'psram', 'minheap', 'sd', 'vec', 'ota', 'lastOta'] as const;

/** What the system needs from others: its options but the local time, which it makes. */
export type SystemNeeds = Omit<SystemOptions, 'time' | 'people'> & { people: Later<SystemOptions['people']> };

export const system: Subsystem<SystemNeeds, SystemFace> = {
  name: 'system',
  needs: ['timeline', 'card', 'actions', 'music', 'audio', 'power'],
  later: ['people'],
  provides: { time: (f) => f.time },
  start(k, needs) {
    const { hal } = k;
    const time = new LocalTime(hal.clock, k.store(TIME_NS), k.log, k.store(LEGACY_TIME_NS));
    // The chat's people (mounted later) are read when device.control runs.
    const o: SystemOptions = { ...needs, people: { roleOf: (p) => needs.people.get().roleOf(p) }, time };
    const selftest = selftestParts(k, o);
    return {
      provides: { time },
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
