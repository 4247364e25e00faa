// The device screen subsystem's face: the Ui (screens, touch, menu) on the
// HAL display and touch panel, its console commands (console.ts) and its
// debug route (routes.ts). main.ts starts it (ui.start()) once the mode's
// services run, in both modes (in Notifier mode the screen shows what the
// Notifier link sends through the Ui's API; see src/ui/ui.ts).
//
// What it needs it declares in UiOptions (src/ui/screen-kit.ts), each by the
// calls it makes: the device actions, the update engine, the sign-in codes,
// the owner's time zone, the namespace a factory reset keeps, sha256; and,
// where there are any, the turn engine, the network, the setup passphrase
// and push to talk.

import { whole, type Subsystem } from '../core/subsystem.ts';
import { KEEP_NS, sameZone } from '../system/index.ts';
import { uiCommands } from './console.ts';
import { uiRoutes } from './routes.ts';
import { Ui, type UiOptions } from './ui.ts';

/** What the screen needs from others, by part name (the Ui's own options take the zone check and the kept namespace from the system). */
export interface UiMountOptions extends Omit<UiOptions, 'turns' | 'voice' | 'keep' | 'sameZone'> {
  /** The turn engine (src/turn/). */
  engine?: UiOptions['turns'];
  /** Voice (src/voice/): push to talk. */
  voice?: { ptt: NonNullable<UiOptions['voice']> };
}

export type { Notice, UiOptions } from './ui.ts';

export { Ui };

export const ui: Subsystem<UiMountOptions, Ui> = {
  name: 'ui',
  needs: ['actions', 'updates', 'signin', 'time', 'sha256', 'engine', 'network', 'passphrase', 'voice'],
  provides: { ui: whole },
  start(k, o) {
    const { engine, voice, ...rest } = o;
    const screen = new Ui(k, {
      round: k.hal.board.display.round,
      ...rest,
      ...(engine ? { turns: engine } : {}),
      ...(voice ? { voice: voice.ptt } : {}),
      sameZone,
      keep: k.store(KEEP_NS),
    });
    return {
      provides: screen,
      commands: uiCommands({ dev: screen.dev, sha256: o.sha256, ui: screen }),
      routes: uiRoutes(screen, k.hal.display, o.sha256),
      stop: () => screen.stop(),
    };
  },
};
