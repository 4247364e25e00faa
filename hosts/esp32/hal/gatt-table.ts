// Device HAL: the GATT table compiled into the image. The SDK's BLEServer
// serves only the services mcconfig compiled from JSON (tools/gatt-json.mjs
// writes them from the firmware's own GattService[] definition), so
// ble.start() must be handed exactly those; anything else would advertise a
// table the firmware does not expect. The build defines __DESK_GATT__.

import type { GattService } from '../../../src/hal/index.ts';

/** A compiled service: its UUID and its characteristics' UUIDs, in order. */
export interface CompiledService {
  uuid: string;
  characteristics: string[];
}

/** Why these services are not the compiled table, or null when they are. */
export function gattMismatch(services: GattService[], compiled: CompiledService[]): string | null {
  const want = compiled.map((s) => `${s.uuid}[${s.characteristics.join(',')}]`).join(' ');
  const got = services.map((s) => `${s.uuid}[${s.characteristics.map((c) => c.uuid).join(',')}]`).join(' ');
  if (want === got) return null;
  return `the image's GATT table is ${want || 'empty'}, not ${got || 'empty'}: build the device from the same definition (tools/gatt-json.mjs, docs/device.md "Bluetooth")`;
}
