// The power subsystem's face: the battery model (./power.ts) every reader
// uses, its state in the snapshot (battery, power), the console's Battery
// group (./console.ts) and the low-battery monitor, started when mounted.
// Power itself is made at boot before the subsystems that read it (the
// update gate, device.status); mounting attaches its settings and timeline.

import type { Subsystem } from '../core/subsystem.ts';
import { powerCommands } from './console.ts';
import { POWER_NS } from './limits.ts';
import type { Power, PowerSettings, PowerTimeline } from './power.ts';

export { Power, type CalibrateResult, type PowerSettings, type PowerTimeline } from './power.ts';
export { profileOf, type PowerProfile } from '../contracts/index.ts';

export interface PowerOptions {
  /** The battery model, made at boot before the subsystems that read it (the update gate, device.status). */
  power: Power;
  actions: PowerSettings;
  timeline: PowerTimeline;
  /** SLEEP waits while an update installs (src/ota). */
  updates: { installing(): boolean };
}

export const power: Subsystem<PowerOptions, Power> = {
  name: 'power',
  needs: ['power', 'actions', 'timeline', 'updates'],
  provides: {},
  start(k, o) {
    const p = o.power;
    p.attach(k.store(POWER_NS), o);
    p.start();
    return {
      provides: p,
      status: { sections: [() => p.summary()] },
      commands: powerCommands(p, o.actions, o.updates),
      stop: () => p.stop(),
    };
  },
};
