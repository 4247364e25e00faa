// The LED ring's frames as pure functions of (what is shown, LED count,
// time since it started, brightness): the five led modes (solid, spinner,
// pulse, flash, rainbow), the five built-in animations RINGANIM plays
// (0 boot, 1 thinking, 2 listening, 3 success, 4 error) and the update
// progress arc. Nothing here reads a clock or touches the ring: the engine
// (ring-engine.ts) asks for the frame at a time, and so do tests.
//
// A frame is count x (r, g, b) bytes, each colour component scaled by
// brightness/255 and by the animation's intensity at that moment.

import type { Rgb } from '../contracts/index.ts';
import type { LedMode } from '../contracts/index.ts';

/** One revolution of the spinner's comet. */
export const SPINNER_PERIOD_MS = 1200;
/** One breath of pulse: dim, up to full, back down. */
export const PULSE_PERIOD_MS = 2000;
/** The pulse never goes fully dark, so the ring still reads as on. */
export const PULSE_FLOOR = 0.1;
/** flash: on for the first half of each period, off for the second. */
export const FLASH_PERIOD_MS = 500;
/** rainbow: the colour wheel turns once in this time. */
export const RAINBOW_PERIOD_MS = 4000;

/** The built-in animations, by RINGANIM number. */
export const ANIM_NAMES = ['boot', 'thinking', 'listening', 'success', 'error'] as const;
export type AnimName = (typeof ANIM_NAMES)[number];
export type AnimId = 0 | 1 | 2 | 3 | 4;

export interface AnimInfo {
  id: AnimId;
  name: AnimName;
  /** The animation repeats with this period while it holds. */
  periodMs: number;
  /** What it looks like, for HELP and the docs. */
  looks: string;
}

export const ANIMATIONS: readonly AnimInfo[] = [
  { id: 0, name: 'boot', periodMs: 1600, looks: 'white fills the ring LED by LED (1 s), holds, fades out' },
  { id: 1, name: 'thinking', periodMs: SPINNER_PERIOD_MS, looks: 'a blue comet circles the ring' },
  { id: 2, name: 'listening', periodMs: PULSE_PERIOD_MS, looks: 'the whole ring breathes in cyan' },
  { id: 3, name: 'success', periodMs: 1200, looks: 'green blinks twice, then stays on' },
  { id: 4, name: 'error', periodMs: 1200, looks: 'red blinks three times, then a pause' },
];

const BOOT_COLOR: Rgb = { r: 255, g: 255, b: 255 };
const THINKING_COLOR: Rgb = { r: 0, g: 90, b: 255 };
const LISTENING_COLOR: Rgb = { r: 0, g: 200, b: 180 };
const SUCCESS_COLOR: Rgb = { r: 0, g: 220, b: 60 };
const ERROR_COLOR: Rgb = { r: 255, g: 0, b: 0 };
/** The progress arc's done part, and its not-yet-done track (dim). */
export const PROGRESS_COLOR: Rgb = { r: 0, g: 40, b: 160 };
export const PROGRESS_TRACK = 0.08;

/** Fully saturated hue h in [0, 1) as RGB. */
export function hue(h: number): Rgb {
  const x = (h - Math.floor(h)) * 6;
  const i = Math.floor(x) % 6;
  const f = x - Math.floor(x);
  const up = Math.round(255 * f);
  const down = 255 - up;
  switch (i) {
    case 0:
      return { r: 255, g: up, b: 0 };
    case 1:
      return { r: down, g: 255, b: 0 };
    case 2:
      return { r: 0, g: 255, b: up };
    case 3:
      return { r: 0, g: down, b: 255 };
    case 4:
      return { r: up, g: 0, b: 255 };
    default:
      return { r: 255, g: 0, b: down };
  }
}

function put(frame: Uint8Array, i: number, c: Rgb, level: number, k: number): void {
  const s = (level * k) / 255;
  frame[i * 3] = Math.round(c.r * s);
  frame[i * 3 + 1] = Math.round(c.g * s);
  frame[i * 3 + 2] = Math.round(c.b * s);
}

function fill(frame: Uint8Array, count: number, c: Rgb, level: number, k: number): void {
  for (let i = 0; i < count; i++) put(frame, i, c, level, k);
}

/** Time within a period, for any t (negative times count as 0). */
function phase(t: number, period: number): number {
  return t <= 0 ? 0 : t % period;
}

/** Brightness of the pulse at t (PULSE_FLOOR at t = 0, full at half a period). */
export function pulseLevel(t: number, period = PULSE_PERIOD_MS): number {
  return PULSE_FLOOR + (1 - PULSE_FLOOR) * (0.5 - 0.5 * Math.cos((2 * Math.PI * phase(t, period)) / period));
}

function spinner(frame: Uint8Array, count: number, c: Rgb, level: number, t: number): void {
  const a = phase(t, SPINNER_PERIOD_MS) / SPINNER_PERIOD_MS;
  if (count < 3) {
    // One or two LEDs (an on-screen dot) cannot show a comet: a saw-tooth fade does.
    fill(frame, count, c, level, 1 - a);
    return;
  }
  // The head moves clockwise from LED 0; the tail (a third of the ring) fades behind it.
  const head = a * count;
  const tail = Math.max(1, Math.round(count / 3));
  for (let i = 0; i < count; i++) {
    const behind = (head - i + count) % count;
    put(frame, i, c, level, behind < tail ? 1 - behind / tail : 0);
  }
}

/** The frame of a led mode at t ms after it was set. */
export function modeFrame(mode: LedMode | 'off', color: Rgb, count: number, t: number, level: number): Uint8Array {
  const frame = new Uint8Array(count * 3);
  switch (mode) {
    case 'off':
      break;
    case 'solid':
      fill(frame, count, color, level, 1);
      break;
    case 'spinner':
      spinner(frame, count, color, level, t);
      break;
    case 'pulse':
      fill(frame, count, color, level, pulseLevel(t));
      break;
    case 'flash':
      fill(frame, count, color, level, phase(t, FLASH_PERIOD_MS) < FLASH_PERIOD_MS / 2 ? 1 : 0);
      break;
    case 'rainbow': {
      const turn = phase(t, RAINBOW_PERIOD_MS) / RAINBOW_PERIOD_MS;
      for (let i = 0; i < count; i++) put(frame, i, hue(i / count + turn), level, 1);
      break;
    }
  }
  return frame;
}

/** The frame of built-in animation id at t ms after it started. */
export function animFrame(id: AnimId, count: number, t: number, level: number): Uint8Array {
  const info = ANIMATIONS[id]!;
  const a = phase(t, info.periodMs);
  switch (info.name) {
    case 'boot': {
      const frame = new Uint8Array(count * 3);
      if (a < 1000) {
        const lit = (a / 1000) * count;
        for (let i = 0; i < count; i++) put(frame, i, BOOT_COLOR, level, i < Math.floor(lit) ? 1 : i === Math.floor(lit) ? lit - i : 0);
      } else fill(frame, count, BOOT_COLOR, level, a < 1300 ? 1 : 1 - (a - 1300) / 300);
      return frame;
    }
    case 'thinking':
      return modeFrame('spinner', THINKING_COLOR, count, t, level);
    case 'listening':
      return modeFrame('pulse', LISTENING_COLOR, count, t, level);
    case 'success': {
      const frame = new Uint8Array(count * 3);
      fill(frame, count, SUCCESS_COLOR, level, (a >= 150 && a < 300) ? 0 : 1);
      return frame;
    }
    case 'error': {
      const frame = new Uint8Array(count * 3);
      fill(frame, count, ERROR_COLOR, level, a < 720 && a % 240 < 120 ? 1 : 0);
      return frame;
    }
  }
}

/**
 * The update progress arc: LEDs from LED 0 clockwise light as the download
 * goes, the LED at the edge partly (so every percent shows on a 24-LED
 * ring), the rest of the ring a dim track.
 */
export function progressFrame(pct: number, count: number, level: number): Uint8Array {
  const frame = new Uint8Array(count * 3);
  const done = (Math.max(0, Math.min(100, pct)) / 100) * count;
  for (let i = 0; i < count; i++) {
    const k = i < Math.floor(done) ? 1 : i === Math.floor(done) ? Math.max(PROGRESS_TRACK, done - i) : PROGRESS_TRACK;
    put(frame, i, PROGRESS_COLOR, level, k);
  }
  return frame;
}

/** Whether a led mode changes over time (a static one is drawn once). */
export function animated(mode: LedMode | 'off'): boolean {
  return mode === 'spinner' || mode === 'pulse' || mode === 'flash' || mode === 'rainbow';
}

/** RINGANIM's argument: 0-4 or an animation's name. */
export function parseAnim(word: string): AnimId | null {
  const w = word.trim().toLowerCase();
  if (w.length === 1 && w >= '0' && w <= '4') return Number(w) as AnimId;
  const i = (ANIM_NAMES as readonly string[]).indexOf(w);
  return i >= 0 ? (i as AnimId) : null;
}
