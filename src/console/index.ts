// The console's last word: mounted after every subsystem, it answers the
// spec's console commands no subsystem has registered with "ERR unavailable"
// (src/console/unavailable.ts). Provides how many it filled in.

import type { Subsystem } from '../core/subsystem.ts';
import { NOT_BUILT, unavailableCommands, type Missing } from './unavailable.ts';

export interface UnavailableOptions {
  /** The spec's rows whose subsystem may be missing (the built-in table unless a test gives one). */
  table?: readonly Missing[];
}

export const unavailable: Subsystem<UnavailableOptions, number> = {
  name: 'console',
  needs: [],
  provides: {},
  start(k, o) {
    const commands = unavailableCommands(k.console, o.table ?? NOT_BUILT);
    return { provides: commands.length, commands };
  },
};
