// The firmware-update subsystem (spec: Firmware manifest, Update state
// fields, Update check result, Install and rollback, Versioning): its state
// fields, routes and console commands. The boot guard runs earlier, first
// thing in boot() (guard.ts); the engine is ctx.ota (updates.ts).

import type { Context } from '../core/context.ts';
import type { BatteryReading } from '../hal/index.ts';
import { installOtaConsole } from './console.ts';
import { resolveDeviceType, TYPE_NS } from './device-type.ts';
import { installOtaRoutes } from './routes.ts';

export { runBootGuard } from './guard.ts';
export { Updates } from './updates.ts';

/** Test images only: a firmware that crashes on every boot, after its guard ran (tools/build.mjs defines). */
declare const __OTA_TEST_CRASH_ON_BOOT__: boolean | undefined;

/** battery: the battery model the install gate reads (src/power). */
export function installOta(ctx: Context, battery: { reading(): BatteryReading }): void {
  ctx.ota.attach(ctx, battery);
  ctx.status.field('ota', () => ctx.ota.state().ota);
  ctx.status.field('lastOta', () => ctx.ota.state().lastOta);
  ctx.status.section(() => {
    const t = resolveDeviceType(ctx.store(TYPE_NS), ctx.hal.board);
    return { ...ctx.ota.state(), otaType: t.kind === 'typed' ? t.type : null, otaBase: ctx.ota.base() };
  });
  installOtaRoutes(ctx);
  installOtaConsole(ctx);
  if (typeof __OTA_TEST_CRASH_ON_BOOT__ === 'boolean' && __OTA_TEST_CRASH_ON_BOOT__) throw new Error('crash on boot (test image)');
}
