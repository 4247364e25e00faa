// Touch input: raw panel events and console-injected ones become pointer
// gestures (press, hold, tap, release, cancel) in display coordinates, with
// the stored calibration and the isolation diagnostics TOUCHISO? reports.
//
// Calibration (TCAL minX,maxX,minY,maxY[,flags]): the raw controller readings
// at the left and right edge of the display (minX, maxX) and at its top and
// bottom edge (minY, maxY); a reversed axis is written min > max. flags bit 0
// swaps the raw axes first (a controller mounted sideways to the display).
// With no calibration stored, the driver's own mapping (the event's x, y)
// is used. Injected touches (TAP) are display coordinates and skip it.
//
// Diagnostics: events by source; orphans (move or up without a down: a lost
// event on the bus), ghosts (panel readings outside the calibrated range or
// the display), short presses (down to up under SHORT_MS: contact bounce),
// stuck contacts (down for STUCK_MS without an up or a move: the gesture is
// cancelled and the contact ignored until it lifts), and touches the screen
// swallowed on purpose (the touch that wakes the screen saver, touches during
// an update). The last raw and calibrated point.

import type { Clock, Timer, TouchEvent } from '../hal/index.ts';

export const HOLD_MS = 700;
export const STUCK_MS = 30_000;
export const SHORT_MS = 30;
/** Movement (display pixels) after which a press is no longer a tap. */
export const SLOP_PX = 16;
export const CAL_FLAG_SWAP = 1;
const RAW_MAX = 65535;
// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DIGITS = /^\d+$/;

export interface Calibration {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  flags: number;
}

export type TouchSource = 'panel' | 'inject';

export type Gesture =
  | { kind: 'press'; x: number; y: number }
  | { kind: 'hold'; x: number; y: number }
  | { kind: 'tap'; x: number; y: number }
  | { kind: 'release'; x: number; y: number }
  | { kind: 'cancel' };

export type IsolationReason = 'wake' | 'busy' | 'stuck';

export interface TouchDiagnostics {
  events: number;
  panel: number;
  injected: number;
  taps: number;
  holds: number;
  orphans: number;
  ghosts: number;
  shorts: number;
  stuck: number;
  stuckNow: boolean;
  isolated: Record<IsolationReason, number>;
  longestDownMs: number;
  down: boolean;
  last: { kind: TouchEvent['kind']; source: TouchSource; x: number; y: number; rawX: number; rawY: number; atMs: number } | null;
}

/** Parses TCAL's argument; returns an error text for bad input. */
export function parseCalibration(text: string): Calibration | string {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 4 && parts.length !== 5) return 'usage: TCAL minX,maxX,minY,maxY[,flags]';
  const nums = parts.map((p) => (DIGITS.test(p) ? Number(p) : NaN));
  if (nums.some((n) => !Number.isInteger(n) || n < 0 || n > RAW_MAX)) return `values must be whole numbers 0-${RAW_MAX}`;
  const [minX, maxX, minY, maxY, flags = 0] = nums as [number, number, number, number, number?];
  if (Math.abs(maxX - minX) < 16 || Math.abs(maxY - minY) < 16) return 'each axis needs a span of at least 16 raw units';
  if ((flags & ~CAL_FLAG_SWAP) !== 0) return 'flags: only bit 0 (swap the raw axes) is defined';
  return { minX, maxX, minY, maxY, flags };
}

export function formatCalibration(c: Calibration): string {
  return `${c.minX},${c.maxX},${c.minY},${c.maxY},${c.flags}`;
}

/** Raw reading to display coordinates under a calibration (clamped to the display). */
export function calibrate(c: Calibration, rawX: number, rawY: number, width: number, height: number): { x: number; y: number; inside: boolean } {
  const a = c.flags & CAL_FLAG_SWAP ? rawY : rawX;
  const b = c.flags & CAL_FLAG_SWAP ? rawX : rawY;
  const fx = (a - c.minX) / (c.maxX - c.minX);
  const fy = (b - c.minY) / (c.maxY - c.minY);
  const inside = fx >= -0.1 && fx <= 1.1 && fy >= -0.1 && fy <= 1.1;
  const x = Math.min(width - 1, Math.max(0, Math.round(fx * (width - 1))));
  const y = Math.min(height - 1, Math.max(0, Math.round(fy * (height - 1))));
  return { x, y, inside };
}

export class TouchInput {
  calibration: Calibration | null = null;
  private downAt: number | null = null;
  private start = { x: 0, y: 0 };
  private moved = false;
  private held = false;
  private stuckNow = false;
  private holdTimer: Timer | null = null;
  private stuckTimer: Timer | null = null;
  private diag: TouchDiagnostics = {
    events: 0,
    panel: 0,
    injected: 0,
    taps: 0,
    holds: 0,
    orphans: 0,
    ghosts: 0,
    shorts: 0,
    stuck: 0,
    stuckNow: false,
    isolated: { wake: 0, busy: 0, stuck: 0 },
    longestDownMs: 0,
    down: false,
    last: null,
  };

  constructor(
    private readonly clock: Clock,
    private readonly width: number,
    private readonly height: number,
    private readonly onGesture: (g: Gesture) => void,
  ) {}

  diagnostics(): TouchDiagnostics {
    const d = this.diag;
    return { ...d, isolated: { ...d.isolated }, last: d.last ? { ...d.last } : null, stuckNow: this.stuckNow, down: this.downAt !== null };
  }

  isDown(): boolean {
    return this.downAt !== null;
  }

  /** The screen swallowed a touch on purpose (counted for TOUCHISO?). */
  noteIsolated(reason: IsolationReason): void {
    this.diag.isolated[reason]++;
  }

  /** A panel event (from hal.touch) or an injected one (TAP, TAPUP). */
  handle(event: TouchEvent, source: TouchSource): void {
    const d = this.diag;
    d.events++;
    if (source === 'panel') d.panel++;
    else d.injected++;
    let { x, y } = event;
    if (source === 'panel') {
      if (this.calibration) {
        const c = calibrate(this.calibration, event.rawX, event.rawY, this.width, this.height);
        if (!c.inside) d.ghosts++;
        x = c.x;
        y = c.y;
      } else if (x < 0 || y < 0 || x >= this.width || y >= this.height) {
        d.ghosts++;
        x = Math.min(this.width - 1, Math.max(0, x));
        y = Math.min(this.height - 1, Math.max(0, y));
      }
    }
    const now = this.clock.monoMs();
    d.last = { kind: event.kind, source, x, y, rawX: event.rawX, rawY: event.rawY, atMs: Math.round(now) };
    if (this.stuckNow) {
      // A contact reported stuck is ignored until it lifts (or moves: it was real after all).
      if (event.kind === 'up') {
        this.stuckNow = false;
        this.downAt = null;
      } else if (event.kind === 'move' && (Math.abs(x - this.start.x) > SLOP_PX || Math.abs(y - this.start.y) > SLOP_PX)) {
        this.stuckNow = false;
        this.downAt = null;
        this.down(x, y, now);
      } else d.isolated.stuck++;
      return;
    }
    switch (event.kind) {
      case 'down':
        if (this.downAt !== null) {
          // A second down without an up: the up was lost. Treat it as a move.
          d.orphans++;
          this.move(x, y);
          return;
        }
        this.down(x, y, now);
        return;
      case 'move':
        if (this.downAt === null) {
          d.orphans++;
          return;
        }
        this.move(x, y);
        return;
      case 'up':
        if (this.downAt === null) {
          d.orphans++;
          return;
        }
        this.up(x, y, now, source);
    }
  }

  private down(x: number, y: number, now: number): void {
    this.downAt = now;
    this.start = { x, y };
    this.moved = false;
    this.held = false;
    this.holdTimer = this.clock.setTimeout(() => {
      this.holdTimer = null;
      if (this.downAt === null || this.moved) return;
      this.held = true;
      this.diag.holds++;
      this.onGesture({ kind: 'hold', x: this.start.x, y: this.start.y });
    }, HOLD_MS);
    this.armStuck();
    this.onGesture({ kind: 'press', x, y });
  }

  private armStuck(): void {
    this.stuckTimer?.cancel();
    this.stuckTimer = this.clock.setTimeout(() => {
      this.stuckTimer = null;
      if (this.downAt === null) return;
      this.stuckNow = true;
      this.diag.stuck++;
      this.holdTimer?.cancel();
      this.holdTimer = null;
      this.onGesture({ kind: 'cancel' });
    }, STUCK_MS);
  }

  private move(x: number, y: number): void {
    if (!this.moved && (Math.abs(x - this.start.x) > SLOP_PX || Math.abs(y - this.start.y) > SLOP_PX)) {
      this.moved = true;
      this.holdTimer?.cancel();
      this.holdTimer = null;
      this.onGesture({ kind: 'cancel' });
    }
    // A finger that moves is not stuck.
    this.armStuck();
  }

  private up(x: number, y: number, now: number, source: TouchSource): void {
    const downFor = now - (this.downAt ?? now);
    if (downFor > this.diag.longestDownMs) this.diag.longestDownMs = Math.round(downFor);
    if (source === 'panel' && downFor < SHORT_MS) this.diag.shorts++;
    this.downAt = null;
    this.holdTimer?.cancel();
    this.holdTimer = null;
    this.stuckTimer?.cancel();
    this.stuckTimer = null;
    if (!this.moved && !this.held) {
      this.diag.taps++;
      this.onGesture({ kind: 'tap', x: this.start.x, y: this.start.y });
    }
    this.onGesture({ kind: 'release', x, y });
  }
}
