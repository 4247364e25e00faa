// The built-in bitmap font: 5 x 9 glyphs (font-data.ts, drawn in
// tools/font/glyphs-5x9.txt) in a 6-pixel cell, drawn at whole-number scales.
// The screens draw with the image's fonts (src/ui/fonts.ts); this one stands
// in when an image carries none (a damaged assets region), so the screen
// still says something, and it is the bench's reference for drawing speed.
//
// Characters outside printable ASCII (decision, docs/decisions.md "Device UI"):
//   - Latin letters with diacritics show as their base letter (é -> e, Ø -> O,
//     ß -> s), typographic quotes, dashes, bullets and spaces as their ASCII
//     look-alikes, the ellipsis and the degree sign as glyphs of their own;
//   - combining marks, zero-width characters and variation selectors take no
//     room (a decomposed é is one e; an emoji with its selector is one box);
//   - everything else (other scripts, emoji, symbols, control characters) is
//     one hollow box per code point, so the reader sees that something was
//     there and how long it was.

import { EXTRA_CODES, GLYPHS, GLYPH_COLS, GLYPH_ROWS } from './font-data.ts';
import type { GlyphFace } from './face.ts';

export { GLYPHS, GLYPH_COLS, GLYPH_ROWS };

/** Pixels per character cell at scale 1 (glyph plus one column of spacing). */
export const CELL_W = GLYPH_COLS + 1;
/** Line pitch at scale 1 (glyph plus two rows of leading). */
export const LINE_H = GLYPH_ROWS + 2;

export const REPLACEMENT = 95 + EXTRA_CODES.indexOf(0xfffd);
export const ELLIPSIS = 95 + EXTRA_CODES.indexOf(0x2026);
const DEGREE = 95 + EXTRA_CODES.indexOf(0xb0);
/** Returned by glyphIndex for characters that take no room. */
export const NO_GLYPH = -1;

const FOLD = new Map<number, number>();
{
  const runs: Array<[string, string]> = [
    ['ÀÁÂÃÄÅÆ', 'A'], ['Ç', 'C'], ['ÈÉÊË', 'E'], ['ÌÍÎÏ', 'I'], ['Ð', 'D'], ['Ñ', 'N'], ['ÒÓÔÕÖØŒ', 'O'],
    ['ÙÚÛÜ', 'U'], ['ÝŸ', 'Y'], ['Þ', 'P'], ['ß', 's'], ['àáâãäåæ', 'a'], ['ç', 'c'], ['èéêë', 'e'], ['ìíîï', 'i'],
    ['ð', 'd'], ['ñ', 'n'], ['òóôõöøœ', 'o'], ['ùúûü', 'u'], ['ýÿ', 'y'], ['þ', 'p'], ['Šš', 'S'], ['Žž', 'Z'],
    ['Łł', 'L'], ['‘’‚′', "'"], ['“”„″', '"'], ['‐‑‒–—−', '-'], ['•·', '.'], ['«‹', '<'], ['»›', '>'], ['×', 'x'],
    ['÷', '/'], ['\u00a0\u2002\u2003\u2009\u202f\t', ' '], ['¡', '!'], ['¿', '?'],
  ];
  for (const [from, to] of runs) {
    for (const ch of from) {
      // Lowercase š, ž, ł keep their case.
      const target = ch === 'š' || ch === 'ž' || ch === 'ł' ? to.toLowerCase() : to;
      FOLD.set(ch.codePointAt(0)!, target.codePointAt(0)! - 32);
    }
  }
  FOLD.set(0xb0, DEGREE);
  FOLD.set(0x2026, ELLIPSIS);
  FOLD.set(0xfffd, REPLACEMENT);
}

function zeroWidth(cp: number): boolean {
  return (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0xfeff || cp === 0x2060;
}

/** The glyph for a code point, or NO_GLYPH for characters that take no room. */
export function glyphIndex(cp: number): number {
  if (cp >= 32 && cp <= 126) return cp - 32;
  if (zeroWidth(cp)) return NO_GLYPH;
  return FOLD.get(cp) ?? REPLACEMENT;
}

/** Glyph indices of a one-line text (line breaks show as spaces). */
export function toGlyphs(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const g = cp === 10 || cp === 13 ? 0 : glyphIndex(cp);
    if (g !== NO_GLYPH) out.push(g);
  }
  return Uint8Array.from(out);
}

/**
 * Runs of ink in a 5-bit glyph row: RUNS[mask] = [start, end, start, end...]
 * in columns, so a row is drawn as a few fills rather than pixel by pixel.
 */
export const RUNS: ReadonlyArray<readonly number[]> = (() => {
  const out: number[][] = [];
  for (let mask = 0; mask < 32; mask++) {
    const runs: number[] = [];
    let start = -1;
    for (let col = 0; col <= GLYPH_COLS; col++) {
      const on = col < GLYPH_COLS && (mask >> (GLYPH_COLS - 1 - col)) & 1;
      if (on && start < 0) start = col;
      if (!on && start >= 0) {
        runs.push(start, col);
        start = -1;
      }
    }
    out.push(runs);
  }
  return out;
})();

/** The bitmap font at a whole-number scale, as a face shaping can use. */
export class BitmapFace implements GlyphFace {
  readonly id: string;
  readonly px: number;
  readonly ascent: number;
  readonly descent: number;
  constructor(readonly scale: number) {
    this.id = `bitmap-${scale}`;
    this.px = GLYPH_ROWS * scale;
    this.ascent = (GLYPH_ROWS - 2) * scale;
    this.descent = 2 * scale;
  }

  index(cp: number): number {
    return glyphIndex(cp === 10 || cp === 13 ? 32 : cp);
  }

  advance64(): number {
    return CELL_W * this.scale * 64;
  }

  kern64(): number {
    return 0;
  }
}
