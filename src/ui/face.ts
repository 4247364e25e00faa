// One font face of the image's assets, read in place (tools/font-raster.mjs
// writes the format; its header describes every array): a sorted code point
// table, per-glyph metrics and the glyphs' coverage rows. Nothing is copied:
// the typed arrays are views of the assets (flash on the device, a mapped
// file on the simulator). Kerning is per typeface, shared by its text sizes.

import type { Assets } from '../hal/assets.ts';
import { decode } from '../util/utf8.ts';

export type FaceRole = 'text' | 'digits' | 'cjk';

export interface FaceHeader {
  id: string;
  role: FaceRole;
  px: number;
  ascent: number;
  descent: number;
  count: number;
  unitsPerEm: number;
  typeface: string;
  kern?: string;
}

/** What shaping needs of a face (the image's faces and the built-in bitmap one). */
export interface GlyphFace {
  readonly id: string;
  readonly px: number;
  readonly ascent: number;
  readonly descent: number;
  /** The glyph of a code point, or -1. */
  index(cp: number): number;
  /** Advance in 1/64 pixel. */
  advance64(g: number): number;
  /** Pair adjustment in 1/64 pixel (0 without kerning). */
  kern64(a: number, b: number): number;
}

/** Per-glyph fields of .metrics (Int16 x 6). */
export const M_ADVANCE = 0;
export const M_LEFT = 1;
export const M_TOP = 2;
export const M_WIDTH = 3;
export const M_HEIGHT = 4;
export const M_STRIDE = 6;

function json<T>(assets: Assets, name: string): T | null {
  const bytes = assets.get(name);
  if (!bytes) return null;
  try {
    return JSON.parse(decode(bytes)) as T;
  } catch {
    return null;
  }
}

function typed<T extends { length: number }>(assets: Assets, name: string, size: number, make: (b: ArrayBufferLike, off: number, n: number) => T): T | null {
  const bytes = assets.get(name);
  if (!bytes || bytes.byteLength % size !== 0) return null;
  return make(bytes.buffer, bytes.byteOffset, bytes.byteLength / size);
}

/** A typeface's kerning classes (font/kern-<typeface>.*). */
export class Kerning {
  private constructor(
    readonly left: Uint8Array,
    readonly right: Uint8Array,
    readonly values: Int16Array,
    readonly rights: number,
    readonly unitsPerEm: number,
  ) {}

  static from(assets: Assets, name: string, glyphs: number): Kerning | null {
    const h = json<{ left: number; right: number; unitsPerEm: number }>(assets, `font/kern-${name}.json`);
    const left = typed(assets, `font/kern-${name}.left`, 1, (b, o, n) => new Uint8Array(b, o, n));
    const right = typed(assets, `font/kern-${name}.right`, 1, (b, o, n) => new Uint8Array(b, o, n));
    const values = typed(assets, `font/kern-${name}.values`, 2, (b, o, n) => new Int16Array(b, o, n));
    if (!h || !left || !right || !values || left.length !== glyphs || right.length !== glyphs || values.length !== h.left * h.right) return null;
    return new Kerning(left, right, values, h.right, h.unitsPerEm);
  }

  /** Font units of the pair a, b. */
  units(a: number, b: number): number {
    return this.values[this.left[a]! * this.rights + this.right[b]!]!;
  }
}

export class Face implements GlyphFace {
  readonly id: string;
  readonly px: number;
  readonly ascent: number;
  readonly descent: number;
  private readonly kernScale: number;

  private constructor(
    readonly header: FaceHeader,
    readonly cmap: Uint32Array,
    readonly metrics: Int16Array,
    readonly offsets: Uint32Array,
    readonly bits: Uint8Array,
    private readonly kerning: Kerning | null,
  ) {
    this.id = header.id;
    this.px = header.px;
    this.ascent = header.ascent;
    this.descent = header.descent;
    this.kernScale = kerning ? (64 * header.px) / kerning.unitsPerEm : 0;
  }

  /** The face `id` of the assets, or null when it is missing or damaged. */
  static from(assets: Assets, id: string): Face | null {
    const h = json<FaceHeader>(assets, `font/${id}.json`);
    if (!h || typeof h.count !== 'number' || typeof h.px !== 'number') return null;
    const cmap = typed(assets, `font/${id}.cmap`, 4, (b, o, n) => new Uint32Array(b, o, n));
    const metrics = typed(assets, `font/${id}.metrics`, 2, (b, o, n) => new Int16Array(b, o, n));
    const offsets = typed(assets, `font/${id}.offsets`, 4, (b, o, n) => new Uint32Array(b, o, n));
    const bits = assets.get(`font/${id}.bits`);
    if (!cmap || !metrics || !offsets || !bits || cmap.length !== h.count || metrics.length !== h.count * M_STRIDE || offsets.length !== h.count) return null;
    const kerning = h.kern ? Kerning.from(assets, h.kern, h.count) : null;
    return new Face(h, cmap, metrics, offsets, bits, kerning);
  }

  index(cp: number): number {
    const cmap = this.cmap;
    let lo = 0;
    let hi = cmap.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = cmap[mid]!;
      if (v === cp) return mid;
      if (v < cp) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  advance64(g: number): number {
    return this.metrics[g * M_STRIDE + M_ADVANCE]!;
  }

  kern64(a: number, b: number): number {
    return this.kerning ? Math.round(this.kerning.units(a, b) * this.kernScale) : 0;
  }
}

/** The faces the assets hold, by id (from their font/<id>.json headers). */
export function faceIds(assets: Assets): string[] {
  const out: string[] = [];
  for (const name of assets.names()) {
    if (name.startsWith('font/') && name.endsWith('.json') && !name.startsWith('font/kern-')) out.push(name.slice(5, -5));
  }
  return out;
}
