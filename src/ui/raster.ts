// The rasterizer: draws one rectangle of a display list into a small RGB565
// buffer (row-major, canvas orientation), clipping every item to it. Every
// horizontal span is one native fill(), so the work in JavaScript grows with
// the number of spans (glyph runs, QR module runs) and anti-aliased glyph
// edges (src/ui/glyph-draw.ts), not with the pixels.
// The orientation helpers map a canvas rectangle to the display's own
// coordinates (mount orientation 0, 90, 180 or 270 degrees clockwise) and
// turn a tile around on the way out.

import { drawText } from './glyph-draw.ts';
import { REDACTED, type DisplayList, type Item, type QrItem } from './list.ts';

export type Rotation = 0 | 90 | 180 | 270;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Draws the canvas rectangle (x0, y0, w, h) of list into buf[0 .. w*h).
 * redact: secret items become plain grey boxes (frames that leave the device).
 */
export function drawTile(list: DisplayList, x0: number, y0: number, w: number, h: number, buf: Uint16Array, redact: boolean): void {
  buf.fill(list.bg, 0, w * h);
  const x1 = x0 + w;
  const y1 = y0 + h;
  // An index loop: on XS a for...of allocates an iterator and a result object per step.
  const items = list.items;
  for (let n = 0; n < items.length; n++) {
    const item = items[n]!;
    if (item.x >= x1 || item.y >= y1 || item.x + item.w <= x0 || item.y + item.h <= y0) continue;
    if (redact && (item.kind === 'text' || item.kind === 'qr') && item.secret) {
      fillBox(item, REDACTED, x0, y0, w, h, buf);
      continue;
    }
    switch (item.kind) {
      case 'rect':
        fillBox(item, item.color, x0, y0, w, h, buf);
        break;
      case 'disc':
        drawDisc(item, x0, y0, w, h, buf);
        break;
      case 'text':
        drawText(item, x0, y0, w, h, buf);
        break;
      case 'qr':
        drawQr(item, x0, y0, w, h, buf);
        break;
    }
  }
}

function fillBox(item: Item, color: number, x0: number, y0: number, w: number, h: number, buf: Uint16Array): void {
  const ax = Math.max(item.x, x0) - x0;
  const bx = Math.min(item.x + item.w, x0 + w) - x0;
  const ay = Math.max(item.y, y0);
  const by = Math.min(item.y + item.h, y0 + h);
  for (let y = ay; y < by; y++) {
    const row = (y - y0) * w;
    buf.fill(color, row + ax, row + bx);
  }
}

function drawDisc(item: Item, x0: number, y0: number, w: number, h: number, buf: Uint16Array): void {
  const r = item.w / 2;
  const cx = item.x + r;
  const cy = item.y + r;
  const ay = Math.max(item.y, y0);
  const by = Math.min(item.y + item.h, y0 + h);
  for (let y = ay; y < by; y++) {
    const dy = y + 0.5 - cy;
    const half = Math.sqrt(Math.max(0, r * r - dy * dy));
    const a = Math.max(Math.round(cx - half), x0);
    const b = Math.min(Math.round(cx + half), x0 + w);
    if (b > a) buf.fill(item.color, (y - y0) * w + a - x0, (y - y0) * w + b - x0);
  }
}

function drawQr(item: QrItem, x0: number, y0: number, w: number, h: number, buf: Uint16Array): void {
  fillBox(item, item.light, x0, y0, w, h, buf);
  const { qr, scale: s, quiet } = item;
  const size = qr.size;
  const mods = qr.modules;
  const left = item.x + quiet * s;
  const top = item.y + quiet * s;
  const ay = Math.max(top, y0);
  const by = Math.min(top + size * s, y0 + h);
  const x1 = x0 + w;
  const firstCol = Math.max(0, Math.floor((x0 - left) / s));
  const lastCol = Math.min(size, Math.ceil((x1 - left) / s));
  for (let y = ay; y < by; y++) {
    const base = Math.floor((y - top) / s) * size;
    const row = (y - y0) * w - x0;
    let c = firstCol;
    while (c < lastCol) {
      if (!mods[base + c]) {
        c++;
        continue;
      }
      const start = c;
      while (c < lastCol && mods[base + c]) c++;
      const a = Math.max(left + start * s, x0);
      const b = Math.min(left + c * s, x1);
      if (b > a) buf.fill(item.color, row + a, row + b);
    }
  }
}

// --- orientation ------------------------------------------------------------

/** The canvas size for a display of dw x dh mounted at rotation. */
export function canvasSize(dw: number, dh: number, rotation: Rotation): { width: number; height: number } {
  return rotation === 90 || rotation === 270 ? { width: dh, height: dw } : { width: dw, height: dh };
}

/** The display rectangle a canvas rectangle lands on. */
export function canvasToDisplay(r: Rect, dw: number, dh: number, rotation: Rotation): Rect {
  switch (rotation) {
    case 0:
      return { x: r.x, y: r.y, w: r.w, h: r.h };
    case 180:
      return { x: dw - r.x - r.w, y: dh - r.y - r.h, w: r.w, h: r.h };
    case 90:
      return { x: dw - r.y - r.h, y: r.x, w: r.h, h: r.w };
    case 270:
      return { x: r.y, y: dh - r.x - r.w, w: r.h, h: r.w };
  }
}

/** The canvas rectangle a display rectangle shows. */
export function displayToCanvas(r: Rect, dw: number, dh: number, rotation: Rotation): Rect {
  switch (rotation) {
    case 0:
      return { x: r.x, y: r.y, w: r.w, h: r.h };
    case 180:
      return { x: dw - r.x - r.w, y: dh - r.y - r.h, w: r.w, h: r.h };
    case 90:
      return { x: r.y, y: dw - r.x - r.w, w: r.h, h: r.w };
    case 270:
      return { x: dh - r.y - r.h, y: r.x, w: r.h, h: r.w };
  }
}

/** A display point (a touch) on the canvas. */
export function displayPointToCanvas(x: number, y: number, dw: number, dh: number, rotation: Rotation): { x: number; y: number } {
  switch (rotation) {
    case 0:
      return { x, y };
    case 180:
      return { x: dw - 1 - x, y: dh - 1 - y };
    case 90:
      return { x: y, y: dw - 1 - x };
    case 270:
      return { x: dh - 1 - y, y: x };
  }
}

/**
 * Turns a canvas tile (w x h, row-major in src) into display orientation.
 * 0: src itself; 180: reversed in place; 90 and 270: written to out
 * (h x w becomes the display tile's width x height).
 */
export function orientTile(src: Uint16Array, w: number, h: number, rotation: Rotation, out: Uint16Array): Uint16Array {
  const n = w * h;
  if (rotation === 0) return src.subarray(0, n);
  if (rotation === 180) return src.subarray(0, n).reverse();
  // The display tile is h wide: canvas (u, v) goes to (h-1-v, u) at 90, (v, w-1-u) at 270.
  if (rotation === 90) {
    for (let v = 0; v < h; v++) {
      const from = v * w;
      const col = h - 1 - v;
      for (let u = 0; u < w; u++) out[u * h + col] = src[from + u]!;
    }
  } else {
    for (let v = 0; v < h; v++) {
      const from = v * w;
      for (let u = 0; u < w; u++) out[(w - 1 - u) * h + v] = src[from + u]!;
    }
  }
  return out.subarray(0, n);
}
