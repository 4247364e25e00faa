// Where a touch goes: a press picks the frame's topmost target under the
// finger, and a tap that ends on the same target, or a hold on it, goes to
// the screen showing. The touch that wakes the saver, and any touch while an
// update installs, does nothing else (counted as isolated, in TOUCHISO?).

import { displayPointToCanvas, type Rotation } from './raster.ts';
import type { Press, Screen, ScreenName } from './screen-kit.ts';
import type { Frame, Target } from './screens.ts';
import type { Gesture, TouchInput } from './touch.ts';

export interface GestureNeeds {
  display: { width: number; height: number };
  rotation(): Rotation;
  screen(): ScreenName;
  frame(): Frame | null;
  wake(): void;
  /** After a screen acted: the answer is drawn at once. */
  acted(): void;
  /** After a hold: the redraw timer follows (a hold can open a screen that animates). */
  held(): void;
}

export class Gestures {
  /** The target a finger went down on (a tap must end on the same one). */
  private pressed: Target | null = null;
  private swallow = false;

  constructor(
    private readonly touch: Pick<TouchInput, 'noteIsolated'>,
    private readonly screenOf: (name: ScreenName) => Screen,
    private readonly needs: GestureNeeds,
  ) {}

  /** The target under a finger now (the menu highlights it). */
  pressedId(): string | null {
    return this.pressed?.id ?? null;
  }

  /** The frame changed under the finger (another screen, or turned): the press no longer points anywhere. */
  forget(): void {
    this.pressed = null;
  }

  handle(g: Gesture): void {
    switch (g.kind) {
      case 'press':
        return this.press(g.x, g.y);
      case 'cancel':
        this.pressed = null;
        return;
      case 'release':
        this.pressed = null;
        this.swallow = false;
        this.needs.wake();
        return;
      case 'hold':
        if (this.swallow || !this.pressed) return;
        this.act(this.pressed, 'hold');
        this.needs.held();
        return;
      case 'tap': {
        if (this.swallow || !this.pressed) return;
        const at = this.hit(g.x, g.y);
        if (at && at.id === this.pressed.id) this.act(at, 'tap');
      }
    }
  }

  private press(x: number, y: number): void {
    const screen = this.needs.screen();
    this.needs.wake();
    if (screen === 'saver' || screen === 'update') {
      this.touch.noteIsolated(screen === 'saver' ? 'wake' : 'busy');
      this.swallow = true;
      return;
    }
    this.pressed = this.hit(x, y);
    this.screenOf(screen).press?.(this.canvasPoint(x, y));
  }

  private act(target: Target, how: Press): void {
    this.screenOf(this.needs.screen()).act?.(target, how);
    this.needs.acted();
  }

  /** The frame's topmost target under a display point. */
  private hit(x: number, y: number): Target | null {
    const p = this.canvasPoint(x, y);
    const targets = this.needs.frame()?.targets ?? [];
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i]!;
      if (p.x >= t.x && p.x < t.x + t.w && p.y >= t.y && p.y < t.y + t.h) return t;
    }
    return null;
  }

  private canvasPoint(x: number, y: number): { x: number; y: number } {
    const { width, height } = this.needs.display;
    return displayPointToCanvas(x, y, width, height, this.needs.rotation());
  }
}
