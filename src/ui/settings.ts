// The screen's persisted settings. In NVS namespace 'keep' (survive a factory
// reset, spec Authentication 10): the panel model (SCREEN), the mount
// orientation (posture, TFTFLIP, the menu) and the touch calibration (TCAL).
// In namespace 'ui' (erased by a factory reset): brightness, screen-saver
// delay and redraw rate, set from the menu or the console. (The clock's time
// zone is the device's: src/system/local-time.ts.) The config keys brightOvr and sleepOvr (device actions) override
// brightness and saver delay while set; posture set by a device action is
// copied to 'keep' so the mount survives a factory reset either way.

import type { Store } from '../core/store.ts';
import type { Rotation } from './raster.ts';
import { formatCalibration, parseCalibration, type Calibration } from './touch.ts';

export const UI_NS = 'ui';
export const DEFAULT_BRIGHTNESS = 200;
export const DEFAULT_SAVER_MIN = 5;
export const MAX_SAVER_MIN = 1440;
export const DEFAULT_HZ = 10;
export const MAX_HZ = 30;
/** The panel models SCREEN accepts: the board's own TFT (by that name or its controller). */
export const DEFAULT_SCREEN = 'tft';

/** Mount orientations by name; the canvas turns clockwise by the angle. */
export const POSTURES: ReadonlyArray<readonly [string, Rotation]> = [
  ['normal', 0],
  ['right', 90],
  ['flipped', 180],
  ['left', 270],
];
const POSTURE_ALIASES: Record<string, Rotation> = { up: 0, '0': 0, '90': 90, cw: 90, down: 180, flip: 180, '180': 180, '270': 270, ccw: 270 };

/** A posture name (or degrees, or an alias) as a rotation; null when unknown. */
export function parsePosture(v: unknown): Rotation | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const key = String(v).toLowerCase();
  const named = POSTURES.find(([name]) => name === key);
  if (named) return named[1];
  return POSTURE_ALIASES[key] ?? null;
}

export function postureName(r: Rotation): string {
  return POSTURES.find(([, rot]) => rot === r)![0];
}

export class UiSettings {
  // The 'ui' values are read on every screen check: kept in RAM (this class is their only writer).
  private bright: number;
  private saver: number;
  private rate: number;

  constructor(
    private readonly ui: Store,
    private readonly keep: Store,
  ) {
    this.bright = ui.int('bright', DEFAULT_BRIGHTNESS);
    this.saver = ui.int('saver', DEFAULT_SAVER_MIN);
    this.rate = ui.int('hz', DEFAULT_HZ);
  }

  brightness(): number {
    return this.bright;
  }
  setBrightness(level: number): void {
    const v = Math.max(1, Math.min(255, Math.round(level)));
    this.ui.set('bright', v);
    this.bright = v;
  }

  saverMin(): number {
    return this.saver;
  }
  setSaverMin(min: number): void {
    this.ui.set('saver', min);
    this.saver = min;
  }

  hz(): number {
    return this.rate;
  }
  setHz(hz: number): void {
    this.ui.set('hz', hz);
    this.rate = hz;
  }

  posture(): Rotation {
    return parsePosture(this.keep.strOrNull('posture')) ?? 0;
  }
  setPosture(r: Rotation): void {
    this.keep.set('posture', postureName(r));
  }

  screen(): string {
    return this.keep.str('screen', DEFAULT_SCREEN);
  }
  setScreen(model: string): void {
    this.keep.set('screen', model);
  }

  calibration(): Calibration | null {
    const saved = this.keep.strOrNull('tcal');
    if (saved === null) return null;
    const c = parseCalibration(saved);
    return typeof c === 'string' ? null : c;
  }
  setCalibration(c: Calibration | null): void {
    if (c) this.keep.set('tcal', formatCalibration(c));
    else this.keep.delete('tcal');
  }
}
