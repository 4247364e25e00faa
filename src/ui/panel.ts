// The panel's settings as the screen applies them: the mount orientation
// and the layout that follows from it, the backlight, the saver delay and
// the theme. A device action's config (posture, brightOvr, sleepOvr, theme)
// wins over the menu's setting while it is set; a posture set by an action
// is the mount, so it is also kept across a factory reset.

import type { Fonts } from './fonts.ts';
import { layoutFor, type Layout } from './layout.ts';
import type { Rotation } from './raster.ts';
import type { Renderer } from './renderer.ts';
import type { ScreenDevice } from './screen-kit.ts';
import { parsePosture, postureName, type UiSettings } from './settings.ts';
import { themeFor, type Theme } from './theme.ts';

export class Panel {
  private layoutNow: Layout;
  /** The posture config as last seen (a change is a device action to follow). */
  private cfgPosture: string | undefined;
  private brightnessNow = -1;

  constructor(
    private readonly dev: Pick<ScreenDevice, 'hal' | 'actions'>,
    private readonly settings: UiSettings,
    private readonly renderer: Renderer,
    private readonly round: boolean,
    private readonly fonts: Fonts,
  ) {
    this.cfgPosture = this.postureConfig();
    renderer.setRotation(settings.posture());
    this.layoutNow = this.measure();
  }

  layout(): Layout {
    return this.layoutNow;
  }

  /** Follows a posture a device action set; true when the orientation changed (frames rebuild). */
  follow(): boolean {
    const name = this.postureConfig();
    if (name === this.cfgPosture) return false;
    this.cfgPosture = name;
    const r = parsePosture(name);
    if (r === null) return false;
    this.settings.setPosture(r);
    return this.turn(r);
  }

  /** A new mount orientation from the owner (menu, TFTFLIP): kept, and told as the posture config; true when it changed. */
  setPosture(r: Rotation): boolean {
    this.settings.setPosture(r);
    const name = postureName(r);
    this.dev.actions.apply({ kind: 'config', values: { posture: name } });
    this.cfgPosture = name;
    return this.turn(r);
  }

  /** The backlight level: brightOvr, else the menu's setting; the saver dims it. */
  brightness(saver: boolean): number {
    const over = this.dev.actions.config('brightOvr');
    const base = typeof over === 'number' && over >= 0 ? over : this.settings.brightness();
    return saver ? Math.min(base, Math.max(4, Math.round(base / 6))) : base;
  }

  brightnessSource(): string {
    const over = this.dev.actions.config('brightOvr');
    return typeof over === 'number' && over >= 0 ? 'brightOvr' : 'setting';
  }

  /** Sets the backlight when its level changed (a bus write on the device). */
  applyBrightness(saver: boolean): void {
    const level = this.brightness(saver);
    if (level === this.brightnessNow) return;
    this.brightnessNow = level;
    this.dev.hal.display.setBrightness(level);
  }

  /** Minutes of idle before the saver (0 = never): sleepOvr while set, else SAVER. */
  saverMinutes(): { min: number; source: 'sleepOvr' | 'setting' } {
    const over = this.dev.actions.config('sleepOvr');
    if (typeof over === 'number' && over >= 0) return { min: over, source: 'sleepOvr' };
    return { min: this.settings.saverMin(), source: 'setting' };
  }

  theme(): Theme {
    return themeFor(this.dev.actions.config('theme')).theme;
  }

  private postureConfig(): string | undefined {
    const cfg = this.dev.actions.config('posture');
    return typeof cfg === 'string' ? cfg : undefined;
  }

  private turn(r: Rotation): boolean {
    if (r === this.renderer.rotation) return false;
    this.renderer.setRotation(r);
    this.layoutNow = this.measure();
    return true;
  }

  private measure(): Layout {
    const c = this.renderer.canvas();
    return layoutFor(c.width, c.height, this.round, this.fonts);
  }
}
