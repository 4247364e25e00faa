// The faults subsystem's face: injected faults for test builds. The HAL every
// subsystem holds is wrapped by withFaults() before the kernel is made
// (src/main.ts), so Faults exists before any subsystem; mounting it adds the
// console (FAULT, FAULT?), the log line of every change, the active faults
// in the state snapshot, and the card probe a real SD failure would cause.
// A release build mounts nothing of it.

import type { Subsystem } from '../core/subsystem.ts';
import { faultCommands } from './console.ts';
import type { Faults } from './faults.ts';

export { Faults } from './faults.ts';
export { withFaults } from './hal.ts';

export interface FaultsOptions {
  /** The faults the HAL was wrapped with. */
  faults: Faults;
  /** Probes the SD card again (the storage tier follows an SD fault at once, as after a card pull). */
  card: { probe(): unknown };
}

export const faults: Subsystem<FaultsOptions, Faults> = {
  name: 'faults',
  needs: ['faults', 'card'],
  provides: {},
  start(k, o) {
    const f = o.faults;
    if (!f.enabled) return { provides: f };
    f.onChange((cap, on) => {
      k.log.warn('fault', `${cap} ${on ? 'on' : 'off'}`);
      if (cap === 'sd-write' || cap === 'sd-absent') o.card.probe();
    });
    return {
      provides: f,
      commands: faultCommands(f),
      status: {
        sections: [
          () => {
            const active = f.active();
            return active.length ? { faults: active } : {};
          },
        ],
      },
    };
  },
};
