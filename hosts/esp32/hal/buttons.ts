// Device HAL: the board's push buttons (board.json buttons: ring-tft's
// 'main', the panels' 'boot' on GPIO 0), through the SDK's ECMA-419 digital
// input (embedded:io/digital) with a pull-up and both edges; a press is the
// pin going to its active level. A change within DEBOUNCE_MS of the last one
// is contact bounce and is dropped. A pin that will not open (taken by
// another driver) is logged and left out.

import Digital from 'embedded:io/digital';
import type { BoardDescriptor } from '../../../boards/index.ts';
import type { Buttons } from '../../../src/hal/index.ts';

export const DEBOUNCE_MS = 30;

export function createButtons(d: BoardDescriptor, now: () => number, log: (line: string) => void): Buttons {
  const names: string[] = [];
  const buttons: Buttons = { names, onButton: null };
  for (const b of d.buttons) {
    let down = false;
    let at = -DEBOUNCE_MS;
    try {
      new Digital({
        pin: b.pin,
        mode: b.activeLow ? Digital.InputPullUp : Digital.InputPullDown,
        edge: Digital.Rising | Digital.Falling,
        onReadable(this: Digital) {
          const pressed = (this.read() === 0) === b.activeLow;
          const t = now();
          if (pressed === down || t - at < DEBOUNCE_MS) return;
          down = pressed;
          at = t;
          buttons.onButton?.(b.name, pressed);
        },
      });
      names.push(b.name);
    } catch (e) {
      log(`button ${b.name} on GPIO ${b.pin} did not open (${String(e)})`);
    }
  }
  return buttons;
}
