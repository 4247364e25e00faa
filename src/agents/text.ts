// Character caps (the spec counts fresh results, excerpts and context lines
// in characters, not bytes): by code point, with for...of, which is linear on
// XS and never splits a surrogate pair in Node.


import { replaceEvery } from '../util/replace.ts';/** The first max characters (code points) of s, and whether it was cut. */
export function capChars(s: string, max: number): { text: string; cut: boolean } {
  // A string unit is at most one character: a short string needs no walk.
  if (s.length <= max) return { text: s, cut: false };
  let n = 0;
  let units = 0;
  for (const ch of s) {
    if (n === max) return { text: s.slice(0, units), cut: true };
    n++;
    units += ch.length;
  }
  return { text: s, cut: false };
}

/** The characters of s from offset (code points), at most max of them, and where the next page starts. */
export function charPage(s: string, offset: number, max: number): { text: string; next: number | null; total: number; count: number } {
  const out: string[] = [];
  let i = 0;
  let taken = 0;
  let total = 0;
  for (const ch of s) {
    if (i >= offset && taken < max) {
      out.push(ch);
      taken++;
    }
    i++;
    total++;
  }
  const end = offset + taken;
  return { text: out.join(''), next: end < total ? end : null, total, count: taken };
}

const SPACE_RUNS = /\s+/;

/** One line: whitespace runs folded to a space, trimmed. */
export function oneLine(s: string): string {
  return replaceEvery(s, SPACE_RUNS, ' ').trim();
}
