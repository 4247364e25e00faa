// The LED ring's state as led and lights actions set it (the led layer of
// the ring engine, ctx.actions.ledState()), and the frame that shows it at a
// time since it was set. The animations themselves are in ring-anim.ts; the
// engine that draws them on HAL timers is ring-engine.ts.

import type { LedMode, LightValue } from '../contracts/index.ts';
import type { Rgb } from '../contracts/index.ts';
import { modeFrame } from './ring-anim.ts';

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

/**
 * The frame (count x r, g, b, scaled by brightness) that shows state tMs
 * after it was set (default: the first frame). The engine also caps the
 * brightness by the power profile; this function does not.
 */
export function ringFrame(state: LedState, count: number, settingBrightness: number | undefined, tMs = 0): Uint8Array {
  if (state.mode === 'off' || count === 0) return new Uint8Array(count * 3);
  return modeFrame(state.mode, state.color, count, tMs, state.brightness ?? settingBrightness ?? DEFAULT_LED_BRIGHTNESS);
}
