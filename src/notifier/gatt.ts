// The Notifier link's GATT service (docs/notifier-protocol.md): one service
// with three characteristics.
//
//   STATUS  read, notify; readable unbonded: protocol version, firmware
//           version, the sequence counter (status.ts)
//   FRAME   write, bonded only: ring and screen updates (frame.ts)
//   CONFIG  read and write, bonded only: the link's settings (config.ts)
//
// This is the one definition: the firmware passes NOTIFIER_GATT to
// hal.ble.start(), and the device build turns the same array into the SDK's
// GATT JSON (tools/gatt-json.mjs reads this module and this export; UUIDs
// lowercase, as bles2gatt reads them and the HAL matches them).

import type { GattService } from '../hal/index.ts';

export const NOTIFIER_SERVICE_UUID = 'e9190001-2961-4115-8391-50d6c5a4ba50';
export const STATUS_UUID = 'e9190002-2961-4115-8391-50d6c5a4ba50';
export const FRAME_UUID = 'e9190003-2961-4115-8391-50d6c5a4ba50';
export const CONFIG_UUID = 'e9190004-2961-4115-8391-50d6c5a4ba50';

export const NOTIFIER_GATT: GattService[] = [
  {
    uuid: NOTIFIER_SERVICE_UUID,
    characteristics: [
      { uuid: STATUS_UUID, read: true, write: false, notify: true, bondedOnly: false },
      { uuid: FRAME_UUID, read: false, write: true, notify: false, bondedOnly: true },
      { uuid: CONFIG_UUID, read: true, write: true, notify: false, bondedOnly: true },
    ],
  },
];
