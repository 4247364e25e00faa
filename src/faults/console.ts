// The fault console (test builds): FAULT <cap> <on|off> (or FAULT all off)
// and FAULT?, the log line of every change, the active faults in the state
// snapshot, and the hardware events a real failure would raise: the card is
// probed again when an SD fault changes, so the storage tier (and everyone
// following it) notices at once, as after a card pull.

import { CommandError, type Command } from '../core/console.ts';
import { FAULTS, findFault, type Faults } from './faults.ts';

export function faultCommands(faults: Faults): Command[] {
  const caps = FAULTS.map((f) => f.cap).join(', ');
  const fault: Command = {
    verb: 'FAULT',
    usage: '<cap> <on or off>',
    help: `switch an injected fault (${caps}; FAULT all off clears them); faults last until the next reboot`,
    run: (c) => {
      const [name, state, extra] = c.argv;
      const value = state?.toLowerCase();
      if (!name || (value !== 'on' && value !== 'off') || extra !== undefined) throw new CommandError(`usage: FAULT <cap> <on or off> (caps: ${caps})`);
      if (name.toLowerCase() === 'all') {
        if (value === 'on') throw new CommandError('FAULT all takes off only; switch faults on one by one');
        for (const cap of faults.active()) faults.set(cap, false);
        c.out('faults: none');
        return;
      }
      const spec = findFault(name);
      if (!spec) throw new CommandError(`unknown fault ${name.length > 24 ? name.slice(0, 24) + '...' : name} (caps: ${caps})`);
      const changed = faults.set(spec.cap, value === 'on');
      c.out(`${spec.cap}=${value}${changed ? '' : ' (unchanged)'}`);
    },
  };
  const list: Command = {
    verb: 'FAULT?',
    maxArgs: 0,
    help: 'every fault cap, on or off, and what it does',
    run: (c) => {
      for (const f of FAULTS) c.out(`${f.cap}=${faults.isOn(f.cap) ? 'on' : 'off'} ${f.what}`);
    },
  };
  return [fault, list];
}
