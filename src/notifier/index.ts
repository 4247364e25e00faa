// The Notifier subsystem's face (spec, What the service does 1 and
// "Notifier link"): in Notifier mode the Bluetooth LE link drives the ring
// and the screen; its console commands are there in both modes. The GATT
// table is gatt.ts, the wire formats frame.ts, config.ts and status.ts
// (docs/notifier-protocol.md). What it needs (the device actions, the ring's
// attention animations, the screen) it declares in NotifierOptions (link.ts).

import { whole, type Subsystem } from '../core/subsystem.ts';
import { notifierCommands } from './console.ts';
import { NotifierLink, type NotifierOptions } from './link.ts';

export { NotifierLink, type NotifierOptions };

export const notifier: Subsystem<NotifierOptions, NotifierLink> = {
  name: 'notifier',
  needs: ['actions', 'ring', 'ui'],
  provides: { notifier: whole },
  start(k, o) {
    const link = new NotifierLink(k.hal, k.log, o);
    // The mode decides: the link runs in Notifier mode only (Orchestrator mode has Wi-Fi, HTTP and the assistant instead).
    if (k.mode === 0) link.start();
    return {
      provides: link,
      commands: notifierCommands(k.hal.ble, link),
      status: {
        sections: [
          () => {
            const v = link.view();
            return { notifier: { running: v.running, name: v.name, connected: v.centrals.length, frames: v.frames, seq: v.seq, last: v.last } };
          },
        ],
      },
      stop: () => link.stop(),
    };
  },
};
