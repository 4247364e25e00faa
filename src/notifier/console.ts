// The Network group's Bluetooth commands (test builds): BLE? (the link's
// state), BLEMAC? (the device's Bluetooth address), BONDS? (the stored
// bonds), FORGETBONDS, and NSNFEED <hex> (a FRAME value applied exactly as
// if a bonded central had written it: for tests without a phone).

import { CommandError, type Command } from '../core/console.ts';
import type { Hal } from '../hal/index.ts';
import { fromHex } from '../util/encoding.ts';
import { NOTIFIER_SERVICE_UUID } from './gatt.ts';
import type { NotifierLink } from './link.ts';
import { resultName } from './protocol.ts';
import { stringify } from '../util/json.ts';

const NOT_RUNNING = 'the Notifier link runs in Notifier mode (MODE 0 switches to it)';

/** The Bluetooth commands, over the HAL's BLE and the link. */
export function notifierCommands(ble: Hal['ble'], link: NotifierLink): Command[] {
  return [
    {
      verb: 'BLE?',
      maxArgs: 0,
      help: 'the Notifier link: advertising or off, its name and service, connected centrals, bonds, frames applied',
      run: (c) => {
        if (!ble.present) return c.out('ble=absent (this board has no Bluetooth LE)');
        const v = link.view();
        if (!v.running) return c.out(`ble=off (${NOT_RUNNING}) bonds=${ble.bonds().length}`);
        c.out(`ble=${v.centrals.length ? 'connected' : 'advertising'} name=${stringify(v.name)} service=${NOTIFIER_SERVICE_UUID} bonds=${ble.bonds().length}`);
        for (const central of v.centrals) c.out(`central=${central.address} bonded=${central.bonded ? 'yes' : 'no'}`);
        c.out(`frames=${v.frames} seq=${v.seq} last=${v.last}`);
      },
    },
    {
      verb: 'BLEMAC?',
      maxArgs: 0,
      help: "the device's Bluetooth LE address",
      run: (c) => {
        if (!ble.present) throw new CommandError('this board has no Bluetooth LE');
        const mac = ble.address();
        if (!mac) throw new CommandError(`the address is known once the radio runs: ${NOT_RUNNING}`);
        c.out(`mac=${mac}`);
      },
    },
    {
      verb: 'BONDS?',
      maxArgs: 0,
      help: 'the centrals bonded with this device (kept across restarts)',
      run: (c) => {
        const bonds = ble.bonds();
        for (const b of bonds) c.out(`bond=${b}`);
        c.out(`bonds=${bonds.length}`);
      },
    },
    {
      verb: 'FORGETBONDS',
      maxArgs: 0,
      help: 'forget every bond: each central must pair again before it may write',
      run: (c) => c.out(`forgot ${link.forgetBonds()} bond(s)`),
    },
    {
      verb: 'NSNFEED',
      usage: '<hex>',
      maxArgs: 1,
      help: 'apply a FRAME value (hex) as if a bonded central wrote it (docs/notifier-protocol.md)',
      run: (c) => {
        if (!link.active) throw new CommandError(NOT_RUNNING);
        const bytes = c.argv.length === 1 ? fromHex(c.argv[0]!.toLowerCase()) : null;
        if (!bytes) throw new CommandError('usage: NSNFEED <hex> (an even number of hex digits)');
        const r = link.applyFrame(bytes);
        if (!r.ok) throw new CommandError(`refused: ${resultName(r.code)} (${r.reason}); nothing changed`);
        c.out(`applied seq=${r.seq}: ${r.summary}`);
      },
    },
  ];
}
