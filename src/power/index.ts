// The power subsystem's face: the battery model (./power.ts) every reader
// uses, its state in the snapshot (battery, power), the console's Battery
// group (./console.ts) and the low-battery monitor, started when mounted.
// Power is made when it mounts, below the subsystems that read it (the
// update gate, device.status), and attached to its settings and timeline.

import { whole, type Later, type Subsystem } from '../core/subsystem.ts';
import { powerCommands } from './console.ts';
import { POWER_NS } from './limits.ts';
import { Power, type PowerSettings, type PowerTimeline } from './power.ts';

export { Power } from './power.ts';

export interface PowerOptions {
  /** The device actions (src/device/): the power profile. */
  actions: PowerSettings;
  timeline: PowerTimeline;
  /** SLEEP waits while an update installs (src/ota/, mounted later: read when SLEEP runs). */
  updates: Later<{ installing(): boolean }>;
}

export const power: Subsystem<PowerOptions, Power> = {
  name: 'power',
  needs: ['actions', 'timeline'],
  later: ['updates'],
  provides: { power: whole },
  start(k, o) {
    // The battery model: the update gate and device.status read it.
    const p = new Power(k.hal, k.log);
    p.attach(k.store(POWER_NS), o);
    p.start();
    return {
      provides: p,
      status: { sections: [() => p.summary()] },
      commands: powerCommands(p, o.actions, { installing: () => o.updates.get().installing() }),
      stop: () => p.stop(),
    };
  },
};
