// The LED ring's current state as device actions set it, and the one frame
// that shows it. The ring has no animation engine yet: every mode shows as a
// steady frame (rainbow as a colour wheel), which the applier says in its note.

import type { LedMode, LightValue } from '../turn/device-contract.ts';
import type { Rgb } from '../turn/actions.ts';

export interface LedState {
  /** 'off' after lights off (or before any action). */
  mode: LedMode | 'off';
  color: Rgb;
  /** 0-255; null follows the ledBrightness setting. */
  brightness: number | null;
}

export const WHITE: Rgb = { r: 255, g: 255, b: 255 };
/** Ring brightness when neither an action nor the ledBrightness setting gives one. */
export const DEFAULT_LED_BRIGHTNESS = 128;

export const INITIAL_LED_STATE: LedState = { mode: 'off', color: WHITE, brightness: null };

/** The state after a lights action: off is dark, full is white at full brightness. */
export function lightsState(value: LightValue): LedState {
  return value === 'off' ? { mode: 'off', color: WHITE, brightness: null } : { mode: 'solid', color: WHITE, brightness: 255 };
}

/** Fully saturated hue h in [0, 1) as RGB. */
function hue(h: number): Rgb {
  const x = h * 6;
  const i = Math.floor(x) % 6;
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
  const [r, g, b] = table[i]!;
  return { r, g, b };
}

/** The frame (count x r, g, b, scaled by brightness) that shows state. */
export function ringFrame(state: LedState, count: number, settingBrightness: number | undefined): Uint8Array {
  const frame = new Uint8Array(count * 3);
  if (state.mode === 'off' || count === 0) return frame;
  const level = state.brightness ?? settingBrightness ?? DEFAULT_LED_BRIGHTNESS;
  for (let i = 0; i < count; i++) {
    const c = state.mode === 'rainbow' ? hue(i / count) : state.color;
    frame[i * 3] = Math.round((c.r * level) / 255);
    frame[i * 3 + 1] = Math.round((c.g * level) / 255);
    frame[i * 3 + 2] = Math.round((c.b * level) / 255);
  }
  return frame;
}
