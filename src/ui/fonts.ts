// The screen's fonts: the image's faces (src/ui/face.ts) gathered into
// Fonts a layout asks for by size, and shaping: a text becomes a run of
// glyphs with pixel positions once, when a screen is laid out, so drawing
// never walks a string.
//
// Shaping (a documented subset of what a browser does):
//   - text is composed first (NFC) where the engine can (the simulator's XS
//     has String.prototype.normalize; the device's build leaves it out and
//     its normalize refuses text past Latin-1): otherwise a combining mark
//     is drawn as its own zero-width glyph over the letter before it;
//   - each character takes the first face that has it: the size's Latin,
//     Greek and Cyrillic face, then the CJK face (one size, when the image
//     has it); a character no face has draws as a hollow box the width of a
//     letter and is counted (GlyphStats, RENDER? and FONT?);
//   - advances are in 1/64 pixel with the typeface's pair kerning, each glyph
//     placed at its rounded pen position (as a browser's layout measures);
//   - line breaks, tabs and non-breaking spaces are spaces; zero-width
//     characters and variation selectors take no room.

import type { Assets } from '../hal/assets.ts';
import { Face, faceIds, type GlyphFace } from './face.ts';
import { BitmapFace } from './font.ts';

/** Face numbers in a run. */
export const PRIMARY = 0;
export const FALLBACK = 1;
export const MISSING = 255;

/** Glyphs with pixel positions (x of each glyph's origin from the run's start). */
export interface Run {
  glyphs: Uint16Array;
  faces: Uint8Array;
  xs: Int16Array;
  /** Pixels from the start to the pen after the last glyph. */
  width: number;
  /** Characters no face has (drawn as boxes). */
  missing: number;
}

/** Characters laid out without a glyph, since boot. */
export interface GlyphStats {
  missing: number;
  /** The last such code point (for FONT?). */
  lastMissing: number;
}

function zeroWidth(cp: number): boolean {
  return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0xfeff || cp === 0x2060 || cp === 0xad;
}

function spaceLike(cp: number): boolean {
  return cp === 10 || cp === 13 || cp === 9 || cp === 0x2028 || cp === 0x2029;
}

/** Whether the engine composes (probed once; a property: the device freezes a preloaded module's bindings). */
const engine: { normalizes: boolean | null } = { normalizes: null };

/** The text composed (NFC) where the engine can; as it is otherwise. */
export function composed(text: string): string {
  if (engine.normalizes === null) {
    try {
      engine.normalizes = 'e\u0301'.normalize('NFC') === '\u00e9';
    } catch {
      engine.normalizes = false;
    }
  }
  if (!engine.normalizes) return text;
  try {
    return text.normalize('NFC');
  } catch {
    return text;
  }
}

export class Font {
  readonly px: number;
  readonly ascent: number;
  readonly descent: number;
  /** The missing glyph's box and advance. */
  readonly boxAdvance64: number;
  /** Blends of a text colour into a background (src/ui/glyph-draw.ts), made when first drawn. */
  readonly palettes = new Map<number, Uint16Array>();

  constructor(
    readonly primary: GlyphFace,
    readonly fallback: GlyphFace | null,
    private readonly stats: GlyphStats,
  ) {
    this.px = primary.px;
    this.ascent = primary.ascent;
    this.descent = primary.descent;
    this.boxAdvance64 = Math.round(primary.px * 0.6) * 64;
  }

  /** Pixels from the top of a line to the bottom of its descenders. */
  get height(): number {
    return this.ascent + this.descent;
  }

  /** Code points of a (composed) text with the pen position before each and after the last, in 1/64 px. */
  measure(cps: number[], faces: Uint8Array, glyphs: Uint16Array, pen: Int32Array): number {
    let x = 0;
    let prev = -1;
    let missing = 0;
    for (let i = 0; i < cps.length; i++) {
      let cp = cps[i]!;
      if (spaceLike(cp)) cp = 32;
      pen[i] = x;
      if (zeroWidth(cp)) {
        faces[i] = MISSING;
        glyphs[i] = 0xffff;
        continue;
      }
      let g = this.primary.index(cp);
      if (g >= 0) {
        if (prev >= 0) x += this.primary.kern64(prev, g);
        pen[i] = x;
        faces[i] = PRIMARY;
        glyphs[i] = g;
        x += this.primary.advance64(g);
        prev = g;
        continue;
      }
      prev = -1;
      g = this.fallback ? this.fallback.index(cp) : -1;
      if (g >= 0) {
        faces[i] = FALLBACK;
        glyphs[i] = g;
        x += this.fallback!.advance64(g);
        continue;
      }
      faces[i] = MISSING;
      glyphs[i] = 0;
      x += this.boxAdvance64;
      missing++;
      this.stats.missing++;
      this.stats.lastMissing = cp;
    }
    pen[cps.length] = x;
    return missing;
  }

  /** The run of a one-line text. */
  shape(text: string): Run {
    const cps = codePoints(composed(text));
    const n = cps.length;
    const faces = new Uint8Array(n);
    const glyphs = new Uint16Array(n);
    const pen = new Int32Array(n + 1);
    const missing = this.measure(cps, faces, glyphs, pen);
    // zero-width characters leave the run
    let kept = 0;
    for (let i = 0; i < n; i++) if (!(faces[i] === MISSING && glyphs[i] === 0xffff)) kept++;
    const out: Run = { glyphs: new Uint16Array(kept), faces: new Uint8Array(kept), xs: new Int16Array(kept), width: Math.ceil(pen[n]! / 64), missing };
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (faces[i] === MISSING && glyphs[i] === 0xffff) continue;
      out.glyphs[k] = glyphs[i]!;
      out.faces[k] = faces[i]!;
      out.xs[k] = Math.round(pen[i]! / 64);
      k++;
    }
    return out;
  }

  /** Pixels a one-line text takes. */
  width(text: string): number {
    return this.shape(text).width;
  }
}

/** Code points of a string (an index loop: no iterator objects on XS). */
export function codePoints(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    out.push(cp);
    if (cp > 0xffff) i++;
  }
  return out;
}

/**
 * The fonts of an image: text faces by size (Latin, Greek, Cyrillic; with the
 * CJK face behind each when the image has it), digit faces for the clock.
 * Without any face in the assets, the built-in bitmap font at the nearest
 * whole scale stands in.
 */
export class Fonts {
  readonly stats: GlyphStats = { missing: 0, lastMissing: 0 };
  private readonly text: Face[] = [];
  private readonly digits: Face[] = [];
  readonly cjk: Face | null = null;
  private readonly made = new Map<string, Font>();

  constructor(assets: Assets) {
    let cjk: Face | null = null;
    for (const id of faceIds(assets)) {
      const f = Face.from(assets, id);
      if (!f) continue;
      if (f.header.role === 'text') this.text.push(f);
      else if (f.header.role === 'digits') this.digits.push(f);
      else if (f.header.role === 'cjk' && (!cjk || f.px > cjk.px)) cjk = f;
    }
    this.cjk = cjk;
    this.text.sort((a, b) => a.px - b.px);
    this.digits.sort((a, b) => a.px - b.px);
  }

  /** The image has its own fonts (not the built-in bitmap). */
  get real(): boolean {
    return this.text.length > 0;
  }

  /** The text sizes and digit sizes there are (FONT?). */
  sizes(): { text: number[]; digits: number[]; cjk: number | null } {
    return { text: this.text.map((f) => f.px), digits: this.digits.map((f) => f.px), cjk: this.cjk ? this.cjk.px : null };
  }

  /** Body text: the largest text face of at most px (else the smallest). */
  textFont(px: number): Font {
    const face = pick(this.text, px);
    if (!face) return this.bitmap(px);
    return this.font(face, this.cjk);
  }

  /** Digits for the clock and figures: the largest digit face of at most px (text faces count too). */
  digitFont(px: number): Font {
    const face = pick(this.digits.length ? [...this.digits, ...this.text].sort((a, b) => a.px - b.px) : this.text, px);
    if (!face) return this.bitmap(px);
    return this.font(face, null);
  }

  /** Digit faces from the largest down (the layout picks the largest that fits). */
  digitSizes(): number[] {
    return (this.digits.length ? this.digits : this.text).map((f) => f.px).reverse();
  }

  private font(face: Face, fallback: Face | null): Font {
    let f = this.made.get(face.id);
    if (!f) this.made.set(face.id, (f = new Font(face, fallback, this.stats)));
    return f;
  }

  private bitmap(px: number): Font {
    const scale = Math.max(1, Math.round(px / 10));
    const id = `bitmap-${scale}`;
    let f = this.made.get(id);
    if (!f) this.made.set(id, (f = new Font(new BitmapFace(scale), null, this.stats)));
    return f;
  }
}

function pick(faces: Face[], px: number): Face | null {
  let best: Face | null = faces[0] ?? null;
  for (const f of faces) if (f.px <= px) best = f;
  return best;
}
