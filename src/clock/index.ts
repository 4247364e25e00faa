// The clock subsystem's face: network time in Orchestrator mode
// (src/clock/sync.ts) kicked again when the station gets an address, its
// state in the snapshot (clock: {...}), and the console's CLOCK? and
// TIMESYNC. Notifier mode has no network, so the clock is whatever the RTC
// kept (synced after a restart from a set clock, unset after a power cut).
// ClockSync is made before the kernel (src/main.ts): the TLS gate over the
// network HAL (gateTlsOnClock) holds certificate-checking connections until
// the clock is set, for every subsystem.

import type { Subsystem } from '../core/subsystem.ts';
import type { StationStatus } from '../hal/index.ts';
import { clockCommands } from './console.ts';
import type { ClockSync } from './sync.ts';

export { ClockSync } from './sync.ts';
export { gateTlsOnClock } from './tls-gate.ts';

export interface ClockOptions {
  /** Network time, made with the TLS gate before the kernel. */
  clockSync: ClockSync;
  /** Station changes (src/wifi's provisioning): an address means the servers may answer now. */
  network: { onStation(listener: (s: StationStatus) => void): void };
}

export const clock: Subsystem<ClockOptions, ClockSync> = {
  name: 'clock',
  needs: ['clockSync', 'network'],
  provides: {},
  start(k, { clockSync: sync, network }) {
    if (k.mode === 1) {
      network.onStation((s) => {
        if (s.state === 'connected') sync.networkUp();
      });
      sync.start();
    }
    return {
      provides: sync,
      commands: clockCommands(sync, k.mode),
      status: { sections: [() => ({ clock: sync.state() })] },
    };
  },
};
