// The LED ring on the test console: LEDSTATE (the led state actions set, the
// layer the ring engine shows now and its frame), LEDTEST (red, green, blue
// and white on every LED, LEDTEST_STEP_MS each, then the ring engine draws
// again) and RINGANIM <0-4> (a built-in animation as an attention cue for
// attnHoldMs; 'off' ends it).

import { CommandError, type Command } from '../core/console.ts';
import type { Hal } from '../hal/index.ts';
import type { DeviceActions } from './actions.ts';
import { toHex } from '../util/encoding.ts';
import { ANIMATIONS, parseAnim } from './ring-anim.ts';
import { DEFAULT_ATTN_HOLD_MS, type RingEngine } from './ring-engine.ts';
import { DEFAULT_LED_BRIGHTNESS } from './ring.ts';

export const LEDTEST_STEP_MS = 250;
const TEST_COLORS: ReadonlyArray<readonly [string, number, number, number]> = [
  ['red', 255, 0, 0],
  ['green', 0, 255, 0],
  ['blue', 0, 0, 255],
  ['white', 255, 255, 255],
];

export function ledCommands(hal: Hal, actions: DeviceActions, ring: RingEngine): Command[] {
  const commands: Command[] = [];
  const setting = (): number | undefined => {
    const v = actions.config('ledBrightness');
    return typeof v === 'number' ? v : undefined;
  };

  commands.push({
    verb: 'LEDSTATE',
    help: 'the LED state actions set, what the ring shows now (layer, animation, time, brightness, frame rate) and its frame',
    run: (c) => {
      const s = actions.ledState();
      const level = s.brightness ?? setting() ?? DEFAULT_LED_BRIGHTNESS;
      const source = s.brightness !== null ? 'action' : setting() !== undefined ? 'ledBrightness' : 'default';
      c.out(`mode=${s.mode} color=${s.color.r},${s.color.g},${s.color.b} brightness=${level} (${source}) ring=${hal.ring.count}`);
      const v = ring.view();
      const extra = v.layer === 'attention' ? ` hold=${v.holdLeftMs === null ? 'until-changed' : Math.round(v.holdLeftMs)}` : v.layer === 'progress' ? ` pct=${v.pct}` : '';
      c.out(`showing=${v.layer} name=${v.name} t=${Math.round(v.t)} level=${v.level} fps=${v.fps}${extra}`);
      if (hal.ring.count > 0) c.out(`frame=${toHex(v.frame)}`);
    },
  });

  commands.push({
    verb: 'LEDTEST',
    help: `light every LED red, green, blue, then white (${LEDTEST_STEP_MS} ms each), then show the LED state again`,
    run: async (c) => {
      if (c.argv.length) throw new CommandError('usage: LEDTEST (no arguments)');
      const count = hal.ring.count;
      if (count === 0) throw new CommandError('no-ring: this board has no LED ring');
      ring.suspend();
      try {
        for (const [name, r, g, b] of TEST_COLORS) {
          const frame = new Uint8Array(count * 3);
          for (let i = 0; i < count; i++) frame.set([r, g, b], i * 3);
          hal.ring.show(frame);
          c.out(`${name}: ${count} LEDs`);
          await new Promise<void>((done) => void hal.clock.setTimeout(done, LEDTEST_STEP_MS));
        }
      } finally {
        ring.resume();
      }
      c.out('back to the LED state');
    },
  });

  const names = ANIMATIONS.map((a) => `${a.id} ${a.name}`).join(', ');
  commands.push({
    verb: 'RINGANIM',
    usage: '<0-4>',
    help: `play a built-in ring animation for attnHoldMs, then return to the LED state (${names}; off ends it)`,
    run: (c) => {
      const word = c.argv.length === 1 ? c.argv[0]! : '';
      if (word.toLowerCase() === 'off') {
        ring.setBase(actions.ledState());
        return c.out('attention ended: back to the LED state');
      }
      const id = parseAnim(word);
      if (id === null) throw new CommandError(`usage: RINGANIM <0-4> (${names}) or RINGANIM off`);
      const cfg = actions.config('attnHoldMs');
      const hold = typeof cfg === 'number' ? cfg : DEFAULT_ATTN_HOLD_MS;
      ring.attention(id);
      const a = ANIMATIONS[id]!;
      c.out(`anim=${a.id} ${a.name}: ${a.looks}`);
      c.out(`hold=${hold === 0 ? 'until the ring changes' : `${hold} ms`} (${typeof cfg === 'number' ? 'attnHoldMs' : 'default'})${hal.ring.count ? '' : '; this board has no ring: the screen\'s indicator shows it'}`);
    },
  });
  return commands;
}
