// The LED indicator on the status screen of boards without a ring: the
// LED state the device actions keep (src/device/actions.ts) drawn as one dot
// (steady modes) or eight (the spinner), animated from the clock so a frame
// depends only on the time it is drawn.

import type { LedState } from '../device/index.ts';
import type { Indicator } from './screens.ts';
import { rgb565 } from './theme.ts';

/** Dots that are off: dark grey, so the indicator's place stays visible. */
const UNLIT = rgb565(24, 24, 24);
/** The dimmest a lit dot is drawn: dimmer ones read as unlit. */
const MIN_LEVEL = 48;

function scaleRgb(r: number, g: number, b: number, level: number): number {
  return rgb565(Math.round((r * level) / 255), Math.round((g * level) / 255), Math.round((b * level) / 255));
}

function hueRgb(h: number): [number, number, number] {
  const x = (h - Math.floor(h)) * 6;
  const f = x - Math.floor(x);
  const up = Math.round(255 * f);
  const down = 255 - up;
  const table: Array<[number, number, number]> = [
    [255, up, 0],
    [down, 255, 0],
    [0, 255, up],
    [0, down, 255],
    [up, 0, 255],
    [255, 0, down],
  ];
  return table[Math.floor(x) % 6]!;
}

/** The indicator at `now` (monotonic ms); `setting` is the ledBrightness config (used while the state has none). */
export function ledIndicator(s: LedState, setting: unknown, now: number): Indicator | null {
  if (s.mode === 'off') return null;
  const level = Math.max(MIN_LEVEL, s.brightness ?? (typeof setting === 'number' ? setting : 128));
  const { r, g, b } = s.color;
  switch (s.mode) {
    case 'solid':
      return { dots: [scaleRgb(r, g, b, level)] };
    case 'pulse': {
      const phase = (now % 2000) / 2000;
      const f = 0.25 + 0.75 * (phase < 0.5 ? phase * 2 : 2 - phase * 2);
      return { dots: [scaleRgb(r, g, b, Math.round(level * f))] };
    }
    case 'flash':
      return { dots: [now % 1000 < 500 ? scaleRgb(r, g, b, level) : UNLIT] };
    case 'rainbow': {
      const [hr, hg, hb] = hueRgb((now % 3000) / 3000);
      return { dots: [scaleRgb(hr, hg, hb, level)] };
    }
    case 'spinner': {
      const head = Math.floor(now / 125) % 8;
      const dots: number[] = [];
      for (let i = 0; i < 8; i++) {
        const age = (head - i + 8) % 8;
        dots.push(age < 3 ? scaleRgb(r, g, b, Math.round(level / (1 + age * 2))) : UNLIT);
      }
      return { dots };
    }
  }
}

/** The indicator moves between frames (the screen keeps redrawing while it shows). */
export function ledAnimates(s: LedState): boolean {
  return s.mode === 'pulse' || s.mode === 'flash' || s.mode === 'rainbow' || s.mode === 'spinner';
}
