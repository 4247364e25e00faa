// The firmware-update subsystem (spec: Firmware manifest, Update state
// fields, Update check result, Install and rollback, Versioning): its state
// fields, routes and console commands. The boot guard runs earlier, first
// thing in boot() (guard.ts), whose verdict this takes; the engine
// (updates.ts) is made and attached when this mounts.

import { whole, type Mounted, type Subsystem } from '../core/subsystem.ts';
import { otaCommands } from './console.ts';
import { resolveDeviceType, TYPE_NS } from './device-type.ts';
import { otaRoutes } from './routes.ts';
import { Updates, type UpdatesDeps } from './updates.ts';
import type { BootVerdict } from './guard.ts';

export { runBootGuard, type BootVerdict } from './guard.ts';
export { Updates } from './updates.ts';

/** Test images only: a firmware that crashes on every boot, after its guard ran (tools/build.mjs defines). */
declare const __OTA_TEST_CRASH_ON_BOOT__: boolean | undefined;

export interface OtaOptions extends UpdatesDeps {
  /** What the update guard made of this boot (the boot runs it first thing: it counts the boot and may roll back). */
  otaVerdict: BootVerdict;
}

export const ota: Subsystem<OtaOptions, Updates> = {
  name: 'ota',
  needs: ['otaVerdict', 'power', 'client', 'sha256', 'p256', 'outbox', 'timeline', 'ring'],
  provides: { updates: whole },
  start(k, o) {
    const u = new Updates(o.otaVerdict);
    u.attach(k, o);
    const mounted: Mounted<Updates> = {
      provides: u,
      status: {
        fields: [
          ['ota', () => u.state().ota],
          ['lastOta', () => u.state().lastOta],
        ],
        sections: [
          () => {
            const t = resolveDeviceType(k.store(TYPE_NS), k.hal.board);
            return { ...u.state(), otaType: t.kind === 'typed' ? t.type : null, otaBase: u.base() };
          },
        ],
      },
      routes: otaRoutes(u),
      commands: otaCommands(k, u),
      stop: () => u.stop(),
    };
    if (typeof __OTA_TEST_CRASH_ON_BOOT__ === 'boolean' && __OTA_TEST_CRASH_ON_BOOT__) throw new Error('crash on boot (test image)');
    return mounted;
  },
};
