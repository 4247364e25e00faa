// The render model: a screen is a display list, a background colour and a
// few kinds of items (filled rectangles, filled discs, one-line texts shaped
// in one of the screen's fonts, QR symbols) in canvas coordinates (the screen as the owner
// sees it, after the mount orientation). Lists know nothing about the display
// driver: src/ui/raster.ts draws any rectangle of one into a small tile
// buffer, and src/ui/renderer.ts decides which rectangles to draw.
//
// Items marked secret (the setup passphrase and the Wi-Fi join QR that
// carries it) are drawn on the panel only: every export of a frame off the
// device (the debug route's PNG and description, RENDER?'s description,
// RAWFRAME?'s checksum) draws them as a plain grey box.

import type { Font, Run } from './fonts.ts';
import type { QrCode } from './qr.ts';
import { fitLine } from './wrap.ts';
import { stringify } from '../util/json.ts';

export { wrapText } from './wrap.ts';

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
  /** What the text sits on: its edges are blended into this colour. */
  bg: number;
  font: Font;
  text: string;
  run: Run;
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

/** Pixels a one-line text takes in font. */
export function textWidth(font: Font, text: string): number {
  return font.width(text);
}

/** Pixels from the top of a line of font to the bottom of its descenders. */
export function textHeight(font: Font): number {
  return font.height;
}

/** The pitch of lines of font. */
export function lineHeight(font: Font): number {
  return font.height + Math.max(2, Math.round(font.px / 8));
}

export interface TextOptions {
  /** Cut with an ellipsis to this many pixels. */
  maxWidth?: number;
  secret?: boolean;
  /** The colour under the text (default: the list's background). */
  bg?: number;
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

  /** One line of text, top-left at x, y (the line's top); cut with an ellipsis to maxWidth. Returns its width. */
  text(x: number, y: number, text: string, color: number, font: Font, options: TextOptions = {}): number {
    const shown = options.maxWidth !== undefined ? fitLine(font, text, Math.max(0, options.maxWidth)) : text;
    const run = font.shape(shown);
    if (!run.glyphs.length) return 0;
    const w = run.width;
    this.items.push({ kind: 'text', x: Math.round(x), y: Math.round(y), w: w + 1, h: font.height, color, bg: options.bg ?? this.bg, font, text: shown, run, secret: options.secret === true });
    return w;
  }

  /** Text centred on cx. */
  textCentered(cx: number, y: number, text: string, color: number, font: Font, options: TextOptions = {}): void {
    const shown = options.maxWidth !== undefined ? fitLine(font, text, Math.max(0, options.maxWidth)) : text;
    this.text(Math.round(cx - font.width(shown) / 2), y, shown, color, font, { secret: options.secret === true, ...(options.bg !== undefined ? { bg: options.bg } : {}) });
  }

  qr(x: number, y: number, qr: QrCode, scale: number, quiet: number, dark: number, light: number, label: string, secret = false): void {
    const side = (qr.size + 2 * quiet) * scale;
    this.items.push({ kind: 'qr', x: Math.round(x), y: Math.round(y), w: side, h: side, color: dark, light, scale, quiet, qr, label, secret });
  }

  build(): DisplayList {
    return { width: this.width, height: this.height, bg: this.bg, items: this.items, screen: this.screen };
  }
}

export function sameItem(a: Item, b: Item): boolean {
  if (a.kind !== b.kind || a.x !== b.x || a.y !== b.y || a.w !== b.w || a.h !== b.h || a.color !== b.color) return false;
  if (a.kind === 'text') return a.text === (b as TextItem).text && a.font === (b as TextItem).font && a.bg === (b as TextItem).bg;
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
      return `text ${at} ${item.font.primary.id}${item.run.missing ? ` missing=${item.run.missing}` : ''} ${item.secret ? '[hidden]' : stringify(item.text)}`;
    case 'qr':
      return `qr ${at} v${item.qr.version}-${item.qr.ecl} ${item.qr.size}x${item.qr.size} s${item.scale} ${item.secret ? '[hidden]' : stringify(item.label)}`;
  }
}
