// Draws a text item's glyphs into a tile (src/ui/raster.ts): the image's
// anti-aliased faces through a 16-entry palette that blends the text colour
// into the background the text sits on (the theme's background, or the
// panel or row it is drawn on: TextItem.bg), and the built-in bitmap font by
// runs of whole pixels. A glyph's solid runs are one native fill each; only
// its edge pixels cost a store (tools/font-raster.mjs's row format).

import { M_HEIGHT, M_LEFT, M_STRIDE, M_TOP, M_WIDTH, Face } from './face.ts';
import { GLYPHS, GLYPH_ROWS, RUNS, type BitmapFace } from './font.ts';
import { FALLBACK, MISSING, type Font } from './fonts.ts';
import type { TextItem } from './list.ts';

/** 16 RGB565 colours from bg (0) to fg (15), kept with the font. */
export function palette(palettes: Map<number, Uint16Array>, fg: number, bg: number): Uint16Array {
  const key = fg * 65536 + bg;
  let p = palettes.get(key);
  if (p) return p;
  if (palettes.size >= 32) palettes.clear();
  p = new Uint16Array(16);
  const fr = fg >> 11;
  const fgr = (fg >> 5) & 63;
  const fb = fg & 31;
  const br = bg >> 11;
  const bgr = (bg >> 5) & 63;
  const bb = bg & 31;
  for (let i = 0; i < 16; i++) {
    const r = Math.round(br + ((fr - br) * i) / 15);
    const g = Math.round(bgr + ((fgr - bgr) * i) / 15);
    const b = Math.round(bb + ((fb - bb) * i) / 15);
    p[i] = (r << 11) | (g << 5) | b;
  }
  palettes.set(key, p);
  return p;
}

/** Draws the part of item inside the tile (x0, y0, w, h) of buf. */
export function drawText(item: TextItem, x0: number, y0: number, w: number, h: number, buf: Uint16Array): void {
  const font = item.font;
  // the item's box clips its glyphs: only it is redrawn when the text changes
  const cx0 = Math.max(x0, item.x);
  const cx1 = Math.min(x0 + w, item.x + item.w);
  const cy0 = Math.max(y0, item.y);
  const cy1 = Math.min(y0 + h, item.y + item.h);
  if (cx1 <= cx0 || cy1 <= cy0) return;
  const run = item.run;
  const baseline = item.y + font.ascent;
  const pal = palette(font.palettes, item.color, item.bg);
  const primary = font.primary;
  const n = run.glyphs.length;
  for (let i = 0; i < n; i++) {
    const gx = item.x + run.xs[i]!;
    if (gx > cx1) break;
    const which = run.faces[i]!;
    if (which === MISSING) {
      box(font, gx, baseline, cx0, cy0, cx1, cy1, x0, y0, w, buf, item.color);
      continue;
    }
    const face = which === FALLBACK ? font.fallback! : primary;
    if (face instanceof Face) glyph(face, run.glyphs[i]!, gx, baseline, cx0, cy0, cx1, cy1, x0, y0, w, buf, pal, item.color);
    else bitmapGlyph(face as BitmapFace, run.glyphs[i]!, gx, baseline - face.ascent, cx0, cy0, cx1, cy1, x0, y0, w, buf, item.color);
  }
}

function glyph(face: Face, g: number, penX: number, baseline: number, cx0: number, cy0: number, cx1: number, cy1: number, x0: number, y0: number, w: number, buf: Uint16Array, pal: Uint16Array, fg: number): void {
  const m = face.metrics;
  const at = g * M_STRIDE;
  const gw = m[at + M_WIDTH]!;
  const gh = m[at + M_HEIGHT]!;
  if (!gw || !gh) return;
  const left = penX + m[at + M_LEFT]!;
  const top = baseline - m[at + M_TOP]!;
  if (left >= cx1 || left + gw <= cx0 || top >= cy1 || top + gh <= cy0) return;
  const bits = face.bits;
  const base = face.offsets[g]!;
  const r0 = Math.max(0, cy0 - top);
  const r1 = Math.min(gh, cy1 - top);
  let p = base + gh;
  for (let r = 0; r < r0; r++) p += bits[base + r]!;
  const inside = left >= cx0 && left + gw <= cx1;
  for (let r = r0; r < r1; r++) {
    const end = p + bits[base + r]!;
    const row = (top + r - y0) * w - x0;
    let x = left;
    while (p < end) {
      x += bits[p]!;
      const hd = bits[p + 1]!;
      p += 2;
      const len = hd & 127;
      if (hd & 128) {
        let a = x;
        let b = x + len;
        if (a < cx0) a = cx0;
        if (b > cx1) b = cx1;
        if (b > a) buf.fill(fg, row + a, row + b);
      } else if (inside) {
        // two pixels a byte; a byte's second pixel past an odd run is 0 (tools/font-raster.mjs)
        let at2 = row + x;
        const last = p + ((len + 1) >> 1);
        for (let q = p; q < last; q++) {
          const v = bits[q]!;
          if (v >= 16) buf[at2] = pal[v >> 4]!;
          if (v & 15) buf[at2 + 1] = pal[v & 15]!;
          at2 += 2;
        }
      } else {
        for (let k = 0; k < len; k++) {
          const px = x + k;
          if (px < cx0 || px >= cx1) continue;
          const v = (bits[p + (k >> 1)]! >> (k & 1 ? 0 : 4)) & 15;
          if (v) buf[row + px] = pal[v]!;
        }
      }
      if (!(hd & 128)) p += (len + 1) >> 1;
      x += len;
    }
    p = end;
  }
}

function bitmapGlyph(face: BitmapFace, g: number, gx: number, top: number, cx0: number, cy0: number, cx1: number, cy1: number, x0: number, y0: number, w: number, buf: Uint16Array, fg: number): void {
  const s = face.scale;
  const a0 = Math.max(cy0, top);
  const a1 = Math.min(cy1, top + GLYPH_ROWS * s);
  for (let y = a0; y < a1; y++) {
    const mask = GLYPHS[g * GLYPH_ROWS + Math.floor((y - top) / s)]!;
    if (!mask) continue;
    const runs = RUNS[mask]!;
    const row = (y - y0) * w - x0;
    for (let k = 0; k < runs.length; k += 2) {
      let a = gx + runs[k]! * s;
      let b = gx + runs[k + 1]! * s;
      if (a < cx0) a = cx0;
      if (b > cx1) b = cx1;
      if (b > a) buf.fill(fg, row + a, row + b);
    }
  }
}

/** The missing glyph: a hollow box of a capital's height. */
function box(font: Font, penX: number, baseline: number, cx0: number, cy0: number, cx1: number, cy1: number, x0: number, y0: number, w: number, buf: Uint16Array, fg: number): void {
  const bw = Math.max(3, Math.round(font.px * 0.6) - Math.max(2, Math.round(font.px / 8)));
  const bh = Math.max(4, Math.round(font.px * 0.72));
  const left = penX + Math.max(1, Math.round(font.px / 16));
  const top = baseline - bh;
  const t = Math.max(1, Math.round(font.px / 16));
  const fillRect = (x: number, y: number, rw: number, rh: number): void => {
    const a = Math.max(x, cx0);
    const b = Math.min(x + rw, cx1);
    if (b <= a) return;
    for (let yy = Math.max(y, cy0); yy < Math.min(y + rh, cy1); yy++) buf.fill(fg, (yy - y0) * w + a - x0, (yy - y0) * w + b - x0);
  };
  fillRect(left, top, bw, t);
  fillRect(left, top + bh - t, bw, t);
  fillRect(left, top, t, bh);
  fillRect(left + bw - t, top, t, bh);
}
