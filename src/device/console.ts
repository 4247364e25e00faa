// The LED ring on the test console: LEDSTATE (the state device actions set,
// and the frame the ring shows for it) and LEDTEST (red, green, blue and
// white on every LED, LEDTEST_STEP_MS each, then the LED state again).
// Ring animations (RINGANIM) come with the device UI.

import { CommandError } from '../console/console.ts';
import type { Context } from '../core/context.ts';
import { toHex } from '../util/encoding.ts';
import { DEFAULT_LED_BRIGHTNESS, ringFrame } from './ring.ts';

export const LEDTEST_STEP_MS = 250;
const TEST_COLORS: ReadonlyArray<readonly [string, number, number, number]> = [
  ['red', 255, 0, 0],
  ['green', 0, 255, 0],
  ['blue', 0, 0, 255],
  ['white', 255, 255, 255],
];

export function installLedConsole(ctx: Context): void {
  const { hal } = ctx;
  const setting = (): number | undefined => {
    const v = ctx.actions.config('ledBrightness');
    return typeof v === 'number' ? v : undefined;
  };

  ctx.console.register({
    verb: 'LEDSTATE',
    help: 'the LED state (mode, colour, brightness) and the frame the ring shows for it',
    run: (c) => {
      const s = ctx.actions.ledState();
      const level = s.brightness ?? setting() ?? DEFAULT_LED_BRIGHTNESS;
      const source = s.brightness !== null ? 'action' : setting() !== undefined ? 'ledBrightness' : 'default';
      c.out(`mode=${s.mode} color=${s.color.r},${s.color.g},${s.color.b} brightness=${level} (${source}) ring=${hal.ring.count}`);
      if (hal.ring.count > 0) c.out(`frame=${toHex(ringFrame(s, hal.ring.count, setting()))}`);
    },
  });

  ctx.console.register({
    verb: 'LEDTEST',
    help: `light every LED red, green, blue, then white (${LEDTEST_STEP_MS} ms each), then show the LED state again`,
    run: async (c) => {
      if (c.argv.length) throw new CommandError('usage: LEDTEST (no arguments)');
      const count = hal.ring.count;
      if (count === 0) throw new CommandError('no-ring: this board has no LED ring');
      for (const [name, r, g, b] of TEST_COLORS) {
        const frame = new Uint8Array(count * 3);
        for (let i = 0; i < count; i++) frame.set([r, g, b], i * 3);
        hal.ring.show(frame);
        c.out(`${name}: ${count} LEDs`);
        await new Promise<void>((done) => void hal.clock.setTimeout(done, LEDTEST_STEP_MS));
      }
      ctx.actions.showLed();
      c.out('back to the LED state');
    },
  });
}
