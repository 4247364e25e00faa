// UTF-8-safe byte caps. Every cap in the spec is in UTF-8 bytes and must never
// cut a character in half: the cut falls on a code point boundary, and a
// surrogate pair is one code point.
//
// Speed on XS: a loop over a string's characters runs in the interpreter at
// about a microsecond a character, so the byte length comes from utf8Length
// (the C hotspot once boot routes it there) and the cut point is found by a
// binary search over prefix lengths, each measured the same way: about
// log2(length) native calls instead of a character loop. Without the hotspot
// (unit tests in Node) the same code runs on the TypeScript fallback.

import { utf8Length } from './utf8.ts';

/** True for a UTF-16 high surrogate (a pair's first unit). */
function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** True for a UTF-16 low surrogate (a pair's second unit). */
function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The longest prefix of s whose UTF-8 length is at most maxBytes. A lone
 * surrogate counts 3 bytes (it encodes as U+FFFD). maxBytes below zero or not
 * a number reads as 0; a fraction is rounded down.
 */
export function capBytes(s: string, maxBytes: number): string {
  const max = maxBytes > 0 ? Math.floor(maxBytes) : 0;
  // A string unit is at most 4 UTF-8 bytes (3 for a UTF-16 unit, 4 for an XS
  // code point), so a short string needs no measuring.
  if (s.length * 4 <= max) return s;
  if (utf8Length(s) <= max) return s;
  // The prefix length in string units: lo always fits, hi never does. A unit
  // takes at least one byte, so no prefix longer than max fits.
  let lo = 0;
  let hi = Math.min(s.length, max + 1);
  if (utf8Length(s.slice(0, hi)) <= max) lo = hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (utf8Length(s.slice(0, mid)) <= max) lo = mid;
    else hi = mid;
  }
  // Never end between the halves of a pair (UTF-16 string models): the pair is one character.
  if (lo > 0 && lo < s.length && isHigh(s.charCodeAt(lo - 1)) && isLow(s.charCodeAt(lo))) lo--;
  return s.slice(0, lo);
}

/** True when capBytes would shorten s. */
export function exceedsBytes(s: string, maxBytes: number): boolean {
  return utf8Length(s) > (maxBytes > 0 ? Math.floor(maxBytes) : 0);
}
