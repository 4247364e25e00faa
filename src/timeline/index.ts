// The device timeline subsystem's face: the Timeline (timeline.ts), made
// first of all, and the restart row of this boot with its reset reason, so
// every later row (an update's outcome, a storage change, a mode switch)
// follows it. The system's routes and commands read it; memory writes its
// rows into the episodic log once that is open.

import { whole, type Subsystem } from '../core/subsystem.ts';
import { Timeline } from './timeline.ts';

export { Timeline } from './timeline.ts';

export const timeline: Subsystem<Record<never, never>, Timeline> = {
  name: 'timeline',
  needs: [],
  provides: { timeline: whole },
  start(k) {
    const t = new Timeline(k.hal.clock, k.log);
    t.row('restart', `${k.hal.build.version} started (reset reason: ${k.hal.system.resetReason()})`);
    return { provides: t };
  },
};
