// The ring animation engine (ctx.ring): what the LED ring shows, in three
// layers, the highest present one winning:
//
//   progress   the update's progress arc while an install downloads (src/ota)
//   attention  a built-in animation (RINGANIM 0-4, or a subsystem's cue such
//              as 'listening' while the microphone records). attention()
//              holds for attnHoldMs (0: until something else changes the
//              ring) and then the ring returns to the led layer as it was;
//              hold() lasts until its release. A led or lights action ends it.
//   led        the state led and lights actions set (ctx.actions.ledState())
//
// Frames are pure functions of (layer, time since the layer started) from
// ring-anim.ts, on a grid of the power profile's frame rate (30, 20 or 10 per
// second): an animated layer ticks on a HAL interval at that rate, a static
// one is drawn once, and a frame equal to the last one is not sent again.
// The time a frame is drawn for is the time since its layer started, rounded
// down to the frame grid, so a test can ask for the frame at any time.
//
// Boards without a ring keep the same state (for the screen's on-screen
// indicator, indicator()) and never touch the ring.

import type { Clock, LedRing, Timer } from '../hal/index.ts';
import type { Rgb } from '../contracts/index.ts';
import { profileOf, type PowerProfile } from '../contracts/index.ts';
import { ANIMATIONS, animated, animFrame, modeFrame, progressFrame, type AnimId } from './ring-anim.ts';
import { DEFAULT_LED_BRIGHTNESS, INITIAL_LED_STATE, type LedState } from './ring.ts';

/** The default attention hold when attnHoldMs is unset. */
export const DEFAULT_ATTN_HOLD_MS = 4000;
/** Guards the frame grid against floating-point division landing a hair under a whole frame. */
const GRID_EPSILON = 1e-6;

export interface RingSettings {
  /** The ledBrightness setting (undefined: unset). */
  ledBrightness(): number | undefined;
  /** The attnHoldMs setting (undefined: unset). */
  attnHoldMs(): number | undefined;
  /** The power profile in force. */
  profile(): PowerProfile;
}

const DEFAULT_SETTINGS: RingSettings = {
  ledBrightness: () => undefined,
  attnHoldMs: () => undefined,
  profile: () => profileOf(undefined),
};

export type RingLayer = 'led' | 'attention' | 'progress';

/** What the ring shows at one moment (LEDSTATE, the screen's indicator, tests). */
export interface RingView {
  layer: RingLayer;
  /** The led mode ('off' included), the animation's name, or 'progress'. */
  name: string;
  /** Milliseconds since the layer started, on the frame grid. */
  t: number;
  /** Brightness 0-255 after the profile's cap. */
  level: number;
  /** Frames per second while animated. */
  fps: number;
  /** Attention only: ms left before the ring returns to the led layer (null: until changed). */
  holdLeftMs: number | null;
  /** Progress only: the percentage. */
  pct: number | null;
  /** count x (r, g, b). */
  frame: Uint8Array;
}

interface Attention {
  anim: AnimId;
  since: number;
  until: number | null;
  id: number;
}

export class RingEngine {
  private base: LedState = INITIAL_LED_STATE;
  private baseSince = 0;
  private attn: Attention | null = null;
  private prog: { pct: number; since: number } | null = null;
  private suspended = false;
  private ticker: Timer | null = null;
  private tickerMs = 0;
  private expiry: Timer | null = null;
  private last: Uint8Array | null = null;
  private nextId = 1;
  private settings: RingSettings = DEFAULT_SETTINGS;
  /** Frames sent to the ring since boot. */
  shows = 0;

  constructor(
    private readonly ring: LedRing,
    private readonly clock: Clock,
  ) {}

  /** Wires the settings (ledBrightness, attnHoldMs, profile) once the device's config is readable. */
  attach(settings: RingSettings): void {
    this.settings = settings;
  }

  get count(): number {
    return this.ring.count;
  }

  /** The led layer: a led or lights action. Ends an attention animation. */
  setBase(state: LedState): void {
    this.base = { ...state, color: { ...state.color } };
    this.baseSince = this.clock.monoMs();
    this.endAttention();
    this.restart();
  }

  /** Plays a built-in animation for holdMs (default attnHoldMs; 0: until the ring changes), then returns. */
  attention(anim: AnimId, holdMs?: number): void {
    const hold = holdMs ?? this.settings.attnHoldMs() ?? DEFAULT_ATTN_HOLD_MS;
    const now = this.clock.monoMs();
    this.endAttention();
    const a: Attention = { anim, since: now, until: hold > 0 ? now + hold : null, id: this.nextId++ };
    this.attn = a;
    if (a.until !== null) {
      this.expiry = this.clock.setTimeout(() => {
        if (this.attn?.id !== a.id) return;
        this.attn = null;
        this.expiry = null;
        this.restart();
      }, hold);
    }
    this.restart();
  }

  /** Plays a built-in animation until the returned release is called (or the ring changes). */
  hold(anim: AnimId): () => void {
    this.attention(anim, 0);
    const id = this.attn!.id;
    return () => {
      if (this.attn?.id !== id) return;
      this.attn = null;
      this.restart();
    };
  }

  /** The update's progress arc (pct 0-100), or null when the install is over. */
  progress(pct: number | null): void {
    if (pct === null) {
      if (!this.prog) return;
      this.prog = null;
    } else if (!this.prog) this.prog = { pct, since: this.clock.monoMs() };
    else this.prog.pct = pct;
    this.restart();
  }

  /** LEDTEST: stops drawing so test frames stay up; resume() draws the current layer again. */
  suspend(): void {
    this.suspended = true;
    this.stopTicker();
  }

  resume(): void {
    this.suspended = false;
    this.last = null;
    this.restart();
  }

  /** Draws again after a setting changed (ledBrightness, profile); force sends the frame even if unchanged. */
  refresh(force = false): void {
    if (force) this.last = null;
    this.restart();
  }

  private endAttention(): void {
    this.expiry?.cancel();
    this.expiry = null;
    this.attn = null;
  }

  private level(own: number | null): number {
    const wanted = own ?? this.settings.ledBrightness() ?? DEFAULT_LED_BRIGHTNESS;
    return Math.min(wanted, this.settings.profile().ringMax);
  }

  /** What the ring shows at monotonic time now (default: the clock's now) on count LEDs. */
  view(now = this.clock.monoMs(), count = this.ring.count): RingView {
    const fps = this.settings.profile().ringFps;
    const grid = 1000 / fps;
    const on = (since: number): number => Math.max(0, Math.floor((now - since) / grid + GRID_EPSILON) * grid);
    if (this.prog) {
      const level = this.level(null);
      return { layer: 'progress', name: 'progress', t: on(this.prog.since), level, fps, holdLeftMs: null, pct: this.prog.pct, frame: progressFrame(this.prog.pct, count, level) };
    }
    const a = this.attn;
    if (a) {
      const level = this.level(null);
      const t = on(a.since);
      return { layer: 'attention', name: ANIMATIONS[a.anim]!.name, t, level, fps, holdLeftMs: a.until === null ? null : Math.max(0, a.until - now), pct: null, frame: animFrame(a.anim, count, t, level) };
    }
    const b = this.base;
    const level = b.mode === 'off' ? 0 : this.level(b.brightness);
    const t = on(this.baseSince);
    return { layer: 'led', name: b.mode, t, level, fps, holdLeftMs: null, pct: null, frame: modeFrame(b.mode, b.color, count, t, level) };
  }

  /** The frame the ring shows at monotonic time now. */
  frameAt(now: number): Uint8Array {
    return this.view(now).frame;
  }

  /** The colour of a one-LED "ring": what a screen's indicator dot shows on boards without a ring. */
  indicator(now = this.clock.monoMs()): Rgb {
    const f = this.view(now, 1).frame;
    return { r: f[0]!, g: f[1]!, b: f[2]! };
  }

  private isAnimated(): boolean {
    if (this.prog) return false;
    if (this.attn) return true;
    return animated(this.base.mode);
  }

  private stopTicker(): void {
    this.ticker?.cancel();
    this.ticker = null;
    this.tickerMs = 0;
  }

  /** Draws now and (re)starts the ticker on the new layer's frame grid. */
  private restart(): void {
    this.stopTicker();
    this.draw();
    this.schedule();
  }

  private schedule(): void {
    if (this.suspended || this.ring.count === 0 || !this.isAnimated()) return this.stopTicker();
    const ms = 1000 / this.settings.profile().ringFps;
    if (this.ticker && this.tickerMs === ms) return;
    this.stopTicker();
    this.tickerMs = ms;
    this.ticker = this.clock.setInterval(() => {
      this.draw();
      // A profile change alters the rate; a static layer needs no ticks.
      this.schedule();
    }, ms);
  }

  private draw(): void {
    if (this.suspended || this.ring.count === 0) return;
    const frame = this.view().frame;
    const last = this.last;
    if (last && last.length === frame.length) {
      let same = true;
      for (let i = 0; i < frame.length && same; i++) same = frame[i] === last[i];
      if (same) return;
    }
    this.last = frame;
    this.ring.show(frame);
    this.shows++;
  }
}
