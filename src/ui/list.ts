// The render model: a screen is a display list, a background colour and a
// few kinds of items (filled rectangles, filled discs, one-line texts in the
// bitmap font, QR symbols) in canvas coordinates (the screen as the owner
// sees it, after the mount orientation). Lists know nothing about the display
// driver: src/ui/raster.ts draws any rectangle of one into a small tile
// buffer, and src/ui/renderer.ts decides which rectangles to draw.
//
// Items marked secret (the setup passphrase and the Wi-Fi join QR that
// carries it) are drawn on the panel only: every export of a frame off the
// device (the debug route's PNG and description, RENDER?'s description,
// RAWFRAME?'s checksum) draws them as a plain grey box.

import { CELL_W, ELLIPSIS, GLYPH_ROWS, LINE_H, toGlyphs } from './font.ts';
import type { QrCode } from './qr.ts';
import { stringify } from '../util/json.ts';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface RectItem extends Box {
  kind: 'rect';
  color: number;
}

export interface DiscItem extends Box {
  kind: 'disc';
  color: number;
}

export interface TextItem extends Box {
  kind: 'text';
  color: number;
  scale: number;
  text: string;
  glyphs: Uint8Array;
  secret: boolean;
}

export interface QrItem extends Box {
  kind: 'qr';
  /** Dark modules; the quiet zone and light modules are `light`. */
  color: number;
  light: number;
  scale: number;
  /** Light modules around the symbol. */
  quiet: number;
  qr: QrCode;
  /** What the symbol says, for descriptions (never the secret itself). */
  label: string;
  secret: boolean;
}

export type Item = RectItem | DiscItem | TextItem | QrItem;

export interface DisplayList {
  /** Canvas size (the display's, or swapped for a sideways mount). */
  width: number;
  height: number;
  bg: number;
  items: Item[];
  /** Which screen this is (status, menu, ...). */
  screen: string;
}

/** The grey of a secret item in an exported frame. */
export const REDACTED = 0x8410;

export function textWidth(chars: number, scale: number): number {
  return chars > 0 ? chars * CELL_W * scale - scale : 0;
}

export function textHeight(scale: number): number {
  return GLYPH_ROWS * scale;
}

export function lineHeight(scale: number): number {
  return LINE_H * scale;
}

/** Characters of one cell width that fit in `width` pixels. */
export function charsIn(width: number, scale: number): number {
  return Math.max(0, Math.floor((width + scale) / (CELL_W * scale)));
}

/** Builds a display list, clipping nothing: the rasterizer clips to each tile. */
export class ListBuilder {
  readonly items: Item[] = [];
  constructor(
    readonly width: number,
    readonly height: number,
    readonly bg: number,
    readonly screen: string,
  ) {}

  rect(x: number, y: number, w: number, h: number, color: number): void {
    if (w > 0 && h > 0) this.items.push({ kind: 'rect', x: Math.round(x), y: Math.round(y), w: Math.round(w), h: Math.round(h), color });
  }

  disc(cx: number, cy: number, r: number, color: number): void {
    const d = Math.round(2 * r);
    if (d > 0) this.items.push({ kind: 'disc', x: Math.round(cx - r), y: Math.round(cy - r), w: d, h: d, color });
  }

  /** One line of text, top-left at x, y; cut with an ellipsis to maxChars. Returns its width. */
  text(x: number, y: number, text: string, color: number, scale: number, options: { maxChars?: number; secret?: boolean } = {}): number {
    let glyphs = toGlyphs(text);
    const max = options.maxChars;
    if (max !== undefined && glyphs.length > max) {
      const cut = new Uint8Array(Math.max(0, max));
      cut.set(glyphs.subarray(0, Math.max(0, max - 1)));
      if (max > 0) cut[max - 1] = ELLIPSIS;
      glyphs = cut;
    }
    if (!glyphs.length) return 0;
    const w = textWidth(glyphs.length, scale);
    this.items.push({ kind: 'text', x: Math.round(x), y: Math.round(y), w, h: textHeight(scale), color, scale, text, glyphs, secret: options.secret === true });
    return w;
  }

  /** Text centred on cx. */
  textCentered(cx: number, y: number, text: string, color: number, scale: number, options: { maxChars?: number; secret?: boolean } = {}): void {
    const n = Math.min(toGlyphs(text).length, options.maxChars ?? Infinity);
    this.text(Math.round(cx - textWidth(n, scale) / 2), y, text, color, scale, options);
  }

  qr(x: number, y: number, qr: QrCode, scale: number, quiet: number, dark: number, light: number, label: string, secret = false): void {
    const side = (qr.size + 2 * quiet) * scale;
    this.items.push({ kind: 'qr', x: Math.round(x), y: Math.round(y), w: side, h: side, color: dark, light, scale, quiet, qr, label, secret });
  }

  build(): DisplayList {
    return { width: this.width, height: this.height, bg: this.bg, items: this.items, screen: this.screen };
  }
}

/**
 * Word-wraps text into at most maxLines lines of at most width characters
 * (counted in glyphs, as drawn); a cut last line ends with an ellipsis.
 * Line breaks in the text start new lines; long words are broken.
 */
export function wrapText(text: string, width: number, maxLines: number): string[] {
  if (width <= 0 || maxLines <= 0) return [];
  const lines: string[] = [];
  let cut = false;
  for (const para of text.split('\n')) {
    const words = para.split(' ');
    let line: string[] = [];
    let len = 0;
    const flush = (): void => {
      lines.push(line.join(' '));
      line = [];
      len = 0;
    };
    for (let word of words) {
      let wlen = toGlyphs(word).length;
      if (wlen === 0) continue;
      while (wlen > width) {
        if (len) flush();
        const chars = [...word];
        lines.push(chars.slice(0, width).join(''));
        word = chars.slice(width).join('');
        wlen = toGlyphs(word).length;
      }
      if (len && len + 1 + wlen > width) flush();
      line.push(word);
      len += (len ? 1 : 0) + wlen;
    }
    if (line.length) flush();
    if (lines.length > maxLines) {
      cut = true;
      break;
    }
  }
  while (lines.length && !lines[lines.length - 1]!.trim()) lines.pop();
  if (lines.length > maxLines) cut = true;
  const out = lines.slice(0, maxLines);
  if (cut && out.length) {
    const last = [...out[out.length - 1]!];
    out[out.length - 1] = (last.length >= width ? last.slice(0, width - 1) : last).join('') + '\u2026';
  }
  return out;
}

export function sameItem(a: Item, b: Item): boolean {
  if (a.kind !== b.kind || a.x !== b.x || a.y !== b.y || a.w !== b.w || a.h !== b.h || a.color !== b.color) return false;
  if (a.kind === 'text') return a.text === (b as TextItem).text && a.scale === (b as TextItem).scale && a.glyphs.length === (b as TextItem).glyphs.length;
  if (a.kind === 'qr') {
    const q = b as QrItem;
    return a.qr === q.qr && a.light === q.light && a.scale === q.scale && a.quiet === q.quiet;
  }
  return true;
}

const hex4 = (c: number): string => c.toString(16).padStart(4, '0');

/** One line per item, for RENDER? and the debug route; secret items say hidden. */
export function describeItem(item: Item): string {
  const at = `${item.x},${item.y} ${item.w}x${item.h} #${hex4(item.color)}`;
  switch (item.kind) {
    case 'rect':
      return `rect ${at}`;
    case 'disc':
      return `disc ${at}`;
    case 'text':
      return `text ${at} s${item.scale} ${item.secret ? '[hidden]' : stringify(item.text)}`;
    case 'qr':
      return `qr ${at} v${item.qr.version}-${item.qr.ecl} ${item.qr.size}x${item.qr.size} s${item.scale} ${item.secret ? '[hidden]' : stringify(item.label)}`;
  }
}
