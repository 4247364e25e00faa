// Screen helpers for tests: RGB565 frames to and from PNG (pngjs), a pixel
// comparison with a small tolerance for the golden images, QR reading off a
// frame (jsQR), and a display fake that checks every tile against a budget.

import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Display } from '../../src/hal/index.ts';

export function rgb888(p: number): [number, number, number] {
  const r = p >> 11;
  const g = (p >> 5) & 0x3f;
  const b = p & 0x1f;
  return [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)];
}

export function framePng(width: number, height: number, pixels: Uint16Array): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = rgb888(pixels[i]!);
    png.data[i * 4] = r;
    png.data[i * 4 + 1] = g;
    png.data[i * 4 + 2] = b;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** RGBA pixels of a PNG file. */
export function readPng(bytes: Buffer): { width: number; height: number; data: Uint8Array } {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}

export interface Difference {
  sizeMatches: boolean;
  /** Pixels whose channels differ by more than the threshold. */
  differing: number;
  total: number;
}

/** Compares a frame with a PNG: pixels off by more than `threshold` in any channel. */
export function compareFrame(width: number, height: number, pixels: Uint16Array, png: Buffer, threshold = 24): Difference {
  const g = readPng(png);
  if (g.width !== width || g.height !== height) return { sizeMatches: false, differing: width * height, total: width * height };
  let differing = 0;
  for (let i = 0; i < width * height; i++) {
    const c = rgb888(pixels[i]!);
    if (Math.abs(c[0] - g.data[i * 4]!) > threshold || Math.abs(c[1] - g.data[i * 4 + 1]!) > threshold || Math.abs(c[2] - g.data[i * 4 + 2]!) > threshold) differing++;
  }
  return { sizeMatches: true, differing, total: width * height };
}

/** Reads a QR code off a frame (or null). */
export function readQr(width: number, height: number, pixels: Uint16Array): string | null {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = rgb888(pixels[i]!);
    data[i * 4] = r;
    data[i * 4 + 1] = g;
    data[i * 4 + 2] = b;
    data[i * 4 + 3] = 255;
  }
  return jsQR(data, width, height)?.data ?? null;
}

/**
 * A display that keeps a framebuffer and fails the test on any tile over
 * `maxTilePx` pixels or any send() that does not fit its begin() window.
 */
export class CheckedDisplay implements Display {
  readonly pixels: Uint16Array;
  brightness = 0;
  largestTile = 0;
  tiles = 0;
  sent = 0;
  violations: string[] = [];
  private win = { x: 0, y: 0, w: 0, h: 0, at: 0, open: false };
  constructor(
    readonly width: number,
    readonly height: number,
    readonly maxTilePx: number,
  ) {
    this.pixels = new Uint16Array(width * height);
  }
  begin(x: number, y: number, w: number, h: number): void {
    if (this.win.open) this.violations.push('begin inside a window');
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > this.width || y + h > this.height) this.violations.push(`window ${x},${y} ${w}x${h} off the panel`);
    if (w * h > this.maxTilePx) this.violations.push(`window of ${w * h} px`);
    this.win = { x, y, w, h, at: 0, open: true };
  }
  send(px: Uint16Array): void {
    if (!this.win.open) this.violations.push('send outside a window');
    if (px.length > this.maxTilePx) this.violations.push(`send of ${px.length} px`);
    if (this.win.at + px.length > this.win.w * this.win.h) this.violations.push('send past the window');
    this.largestTile = Math.max(this.largestTile, px.length);
    this.sent += px.length;
    for (let i = 0; i < px.length; i++) {
      const n = this.win.at++;
      const x = this.win.x + (n % this.win.w);
      const y = this.win.y + Math.floor(n / this.win.w);
      if (x < this.width && y < this.height) this.pixels[y * this.width + x] = px[i]!;
    }
  }
  end(): void {
    if (!this.win.open) this.violations.push('end without begin');
    this.win.open = false;
    this.tiles++;
  }
  setBrightness(level: number): void {
    this.brightness = level;
  }
}
