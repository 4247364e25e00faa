// UTF-8-safe byte caps. Every cap in the spec is in UTF-8 bytes and must never
// cut a character in half: the cut falls on a code point boundary, and a
// surrogate pair is one code point. Iterates with for-of, which is linear on
// XS and sees whole code points in either XS string model (see utf8.ts).

/**
 * The longest prefix of s whose UTF-8 length is at most maxBytes. A lone
 * surrogate counts 3 bytes (it encodes as U+FFFD). maxBytes below zero or not
 * a number reads as 0; a fraction is rounded down.
 */
export function capBytes(s: string, maxBytes: number): string {
  const max = maxBytes > 0 ? Math.floor(maxBytes) : 0;
  // A string unit is at most 4 UTF-8 bytes (3 for a UTF-16 unit, 4 for an XS
  // code point), so a short string needs no scan.
  if (s.length * 4 <= max) return s;
  let n = 0;
  let units = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (n + w > max) return s.slice(0, units);
    n += w;
    units += ch.length;
  }
  return s;
}

/** True when capBytes would shorten s. */
export function exceedsBytes(s: string, maxBytes: number): boolean {
  return capBytes(s, maxBytes).length !== s.length;
}
