// The screen (src/ui/) and the Notifier link (src/notifier/) on a test kernel
// (issue 25): each mounted with its declared options over what it reads of
// the lower subsystems, real where a test watches it (the device actions and
// the ring engine, mounted by src/device/; the sign-in codes; the owner's
// time zone) and small fakes where it does not (the update engine, idle; the
// network, when a test gives one), instead of booting the whole device from
// src/main.ts. The console is started: a test types commands as on the
// serial port.
import { sha256Fallback } from '../../modules/sha256/sha256.ts';
import { SignInCodes } from '../../src/auth/index.ts';
import type { Kernel } from '../../src/core/kernel.ts';
import { mount, unmountAll } from '../../src/core/subsystem.ts';
import type { DeviceActions } from '../../src/device/index.ts';
import type { RingEngine } from '../../src/device/ring-engine.ts';
import { device } from '../../src/device/index.ts';
import { notifier, type NotifierLink } from '../../src/notifier/index.ts';
import { LEGACY_TIME_NS, LocalTime, TIME_NS } from '../../src/system/local-time.ts';
import { ui, type Ui } from '../../src/ui/index.ts';
import { type UiDeps } from '../../src/ui/ui.ts';
import { type UiUpdates } from '../../src/ui/screen-kit.ts';
import { testKernel } from './kernel.ts';
import { createMemHal, type MemHal } from './memhal.ts';

/** The update engine as the screen sees it with nothing to install. */
export const IDLE_UPDATES: UiUpdates = {
  installing: () => false,
  state: () => ({ ota: 'idle', otaResult: null, otaLatest: null, otaPct: 0 }),
  check: () => ({ ok: false, message: 'no update server in this test' }),
  apply: () => ({ ok: false, message: 'no update server in this test' }),
};

/** Wi-Fi joined, the setup network off (the sign-in QR needs an address). */
export const HOME_NETWORK: NonNullable<UiDeps['network']> = {
  view: () => ({ provisioned: true, station: { state: 'connected', ip: '192.168.1.40' }, setup: { state: 'off' } }),
  addresses: () => [{ label: 'home network', base: 'http://192.168.1.40' }],
};

export interface ScreenRig {
  mem: MemHal;
  kernel: Kernel;
  actions: DeviceActions;
  ring: RingEngine;
  ui: Ui;
  /** Mounted with the notifier option only. */
  link: NotifierLink | null;
  /** Stops what was mounted, the last first (the device's stop()). */
  stop(): void;
}

export interface ScreenRigOptions {
  mem?: MemHal;
  /** The boot mode; default: the one saved in NVS (sys/mode), as the device reads it. */
  mode?: 0 | 1;
  /** Also mount the Notifier link (after the screen, as main.ts does). */
  notifier?: boolean;
  network?: UiDeps['network'];
}

export function screenRig(options: ScreenRigOptions = {}): ScreenRig {
  const mem = options.mem ?? createMemHal();
  const saved = mem.hal.nvs.get('sys', 'mode');
  const mode = options.mode ?? (saved === 0 ? 0 : 1);
  const { kernel } = testKernel({ mem, mode });
  const { hal, log } = kernel;
  const store = (ns: string) => kernel.store(ns);
  const { actions, ring } = mount(kernel, device, {});
  const screen = mount(kernel, ui, {
    actions,
    updates: IDLE_UPDATES,
    signin: new SignInCodes(hal.clock, (b) => hal.system.random(b)),
    time: new LocalTime(hal.clock, store(TIME_NS), log, store(LEGACY_TIME_NS)),
    sha256: hal.natives.sha256 ?? sha256Fallback,
    network: options.network,
  });
  const link = options.notifier ? mount(kernel, notifier, { actions, ring, ui: screen }) : null;
  kernel.console.start();
  // The screen's idle check rides the device's once-a-second watchdog tick (src/main.ts).
  const tick = hal.clock.setInterval(() => screen.poll(), 1000);
  screen.start();
  const stop = (): void => {
    tick.cancel();
    unmountAll(kernel);
  };
  return { mem, kernel, actions, ring, ui: screen, link, stop };
}
