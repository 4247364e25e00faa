// Line breaking for the screen, measured in pixels with the font that draws
// the text (src/ui/fonts.ts). A documented subset of Unicode's line breaking
// (UAX #14), the part a reply needs, and the part the owner's web page gets
// from its browser with the same typeface (src/web/page/style.css .reply):
//   - a line may break after a run of spaces (the spaces hang: they are not
//     measured and not drawn at the end of a line), and after a hyphen or an
//     en/em dash that follows a letter;
//   - between two CJK characters (ideographs, kana, Hangul syllables, their
//     punctuation), except before closing punctuation and small kana
//     (、。，．！？）」』… may not start a line) or after opening punctuation
//     (「『（ may not end one);
//   - a word wider than the line is broken at the last character that fits;
//   - a line break in the text starts a new line.
// Text past the last line is cut and the last line ends with an ellipsis.

import { codePoints, composed, type Font } from './fonts.ts';

const ELLIPSIS = '\u2026';

function isSpace(cp: number): boolean {
  return cp === 32 || cp === 9 || cp === 0x3000 || cp === 0x2002 || cp === 0x2003 || cp === 0x2009;
}

/** Characters a CJK line breaks between. */
export function isCjk(cp: number): boolean {
  return (
    (cp >= 0x2e80 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xff00 && cp <= 0xffef) ||
    (cp >= 0x20000 && cp <= 0x2fa1f)
  );
}

/** May not start a line (closing punctuation, small kana, the prolonged sound mark). */
const NO_START = new Set(codePoints('、。，．：；！？）」』】〕〉》〗〙〛’”ー々ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ・…‥,.:;!?)]}%'));
/** May not end a line (opening punctuation). */
const NO_END = new Set(codePoints('（「『【〔〈《〖〘〚‘“([{'));
const DASH = new Set([0x2d, 0x2010, 0x2013, 0x2014]);

function isLetter(cp: number): boolean {
  return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0xc0 && cp <= 0x24f && cp !== 0xd7 && cp !== 0xf7) || (cp >= 0x370 && cp <= 0x4ff);
}

/** Whether a line may break between cps[i-1] and cps[i]. */
export function breakBefore(cps: number[], i: number): boolean {
  const a = cps[i - 1]!;
  const b = cps[i]!;
  if (isSpace(b)) return false;
  if (isSpace(a)) return true;
  if (NO_START.has(b) || NO_END.has(a)) return false;
  if (DASH.has(a) && i >= 2 && isLetter(cps[i - 2]!) && !DASH.has(b)) return true;
  return isCjk(a) || isCjk(b);
}

function fromCodePoints(cps: number[], a: number, b: number): string {
  let s = '';
  for (let i = a; i < b; i++) s += String.fromCodePoint(cps[i]!);
  return s;
}

/** Lines of one paragraph, in code point ranges [start, end) (end before the hanging spaces). */
function paragraphLines(font: Font, cps: number[], width64: number): Array<[number, number]> {
  const n = cps.length;
  const faces = new Uint8Array(n);
  const glyphs = new Uint16Array(n);
  const pen = new Int32Array(n + 1);
  font.measure(cps, faces, glyphs, pen);
  const lines: Array<[number, number]> = [];
  let start = 0;
  while (start < n) {
    let best = -1;
    let bestEnd = -1;
    for (let b = start + 1; b <= n; b++) {
      if (b < n && !breakBefore(cps, b)) continue;
      let e = b;
      while (e > start && isSpace(cps[e - 1]!)) e--;
      if (pen[e]! - pen[start]! > width64) break;
      best = b;
      bestEnd = e;
    }
    if (best < 0) {
      // nothing fits: the word is broken at the last character that does (at least one)
      let e = start + 1;
      while (e < n && pen[e + 1]! - pen[start]! <= width64) e++;
      best = e;
      bestEnd = e;
    }
    lines.push([start, bestEnd]);
    start = best;
    while (start < n && isSpace(cps[start]!)) start++;
  }
  return lines;
}

/** The text cut to fit width pixels on one line, with an ellipsis when cut. */
export function fitLine(font: Font, text: string, width: number): string {
  if (font.width(text) <= width) return text;
  const cps = codePoints(composed(text));
  let lo = 0;
  let hi = cps.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (font.width(fromCodePoints(cps, 0, mid).trimEnd() + ELLIPSIS) <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo ? fromCodePoints(cps, 0, lo).trimEnd() + ELLIPSIS : '';
}

/**
 * Word-wraps text into at most maxLines lines of at most width pixels in
 * font; a cut last line ends with an ellipsis.
 */
export function wrapText(text: string, font: Font, width: number, maxLines: number): string[] {
  if (width <= 0 || maxLines <= 0) return [];
  const out: string[] = [];
  let cut = false;
  const paras = composed(text).split('\n');
  for (let p = 0; p < paras.length && !cut; p++) {
    const cps = codePoints(paras[p]!.replace('\r', ''));
    const lines = cps.length ? paragraphLines(font, cps, width * 64) : [[0, 0] as [number, number]];
    for (const [a, b] of lines) {
      if (out.length === maxLines) {
        cut = true;
        break;
      }
      out.push(fromCodePoints(cps, a, b));
    }
  }
  while (out.length && !out[out.length - 1]!.trim()) out.pop();
  if (cut && out.length) out[out.length - 1] = fitLine(font, out[out.length - 1]! + ELLIPSIS, width);
  return out;
}
