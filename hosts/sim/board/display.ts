// The display: an RGB565 framebuffer of the board's logical size, drawn in
// tiles (begin a rectangle, send pixels row-major, end), the backlight level,
// and PNG snapshots of it.

import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic.ts';
import { encodePng } from './png.ts';
import type { Json, Service } from './service.ts';
import { int } from './service.ts';

export class DisplayPanel implements Service {
  readonly fb: Uint16Array;
  private window: { x: number; y: number; w: number; h: number; at: number } | null = null;
  brightness = 0;
  frames = 0;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.fb = new Uint16Array(width * height);
  }

  status(): Json {
    return { width: this.width, height: this.height, brightness: this.brightness, frames: this.frames };
  }

  start(): void {
    // a reset blanks the panel and turns the backlight off until the firmware sets it
    this.fb.fill(0);
    this.window = null;
    this.brightness = 0;
    this.frames = 0;
  }

  /** The framebuffer as 8-bit RGB. */
  rgb(): Uint8Array {
    const out = new Uint8Array(this.width * this.height * 3);
    for (let i = 0; i < this.fb.length; i++) {
      const p = this.fb[i]!;
      const r = p >> 11;
      const g = (p >> 5) & 0x3f;
      const b = p & 0x1f;
      out[i * 3] = (r << 3) | (r >> 2);
      out[i * 3 + 1] = (g << 2) | (g >> 4);
      out[i * 3 + 2] = (b << 3) | (b >> 2);
    }
    return out;
  }

  /** sha256 of the framebuffer's RGB565 pixels, little-endian, rows top to bottom (as RAWFRAME? hashes a frame). */
  sha256(): string {
    const bytes = Buffer.alloc(this.fb.length * 2);
    for (let i = 0; i < this.fb.length; i++) bytes.writeUInt16LE(this.fb[i]!, i * 2);
    return createHash('sha256').update(bytes).digest('hex');
  }

  snapshot(path: string): string {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, encodePng(this.width, this.height, this.rgb()));
    return path;
  }

  readonly ops = {
    'display.begin': (args: Json) => {
      const x = int(args, 'x', 0, this.width);
      const y = int(args, 'y', 0, this.height);
      const w = int(args, 'width', 0, this.width - x);
      const h = int(args, 'height', 0, this.height - y);
      this.window = { x, y, w, h, at: 0 };
    },
    'display.send': (_args: Json, bin: Buffer) => {
      const win = this.window;
      if (!win || !win.w || !win.h) return;
      const count = bin.length >> 1;
      const total = win.w * win.h;
      for (let i = 0; i < count && win.at < total; i++, win.at++) {
        const px = win.x + (win.at % win.w);
        const py = win.y + Math.floor(win.at / win.w);
        this.fb[py * this.width + px] = bin[i * 2]! | (bin[i * 2 + 1]! << 8);
      }
    },
    'display.end': () => {
      if (this.window) this.frames++;
      this.window = null;
    },
    'display.brightness': (args: Json) => {
      this.brightness = int(args, 'level', 0, 255);
    },
  };
}
