// UTF-8-safe byte caps. Every cap in the spec is in UTF-8 bytes and must never
// cut a character in half: the cut falls on a code point boundary, and a
// surrogate pair is one code point.

/**
 * The longest prefix of s whose UTF-8 length is at most maxBytes. A lone
 * surrogate counts 3 bytes (it encodes as U+FFFD). maxBytes below zero or not
 * a number reads as 0; a fraction is rounded down.
 */
export function capBytes(s: string, maxBytes: number): string {
  const max = maxBytes > 0 ? Math.floor(maxBytes) : 0;
  // Each UTF-16 unit is at most 3 UTF-8 bytes (a pair is 4 for 2 units), so a
  // short string needs no scan.
  if (s.length * 3 <= max) return s;
  let n = 0;
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    let w: number;
    let units = 1;
    if (c < 0x80) w = 1;
    else if (c < 0x800) w = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        w = 4;
        units = 2;
      } else w = 3;
    } else w = 3;
    if (n + w > max) return s.slice(0, i);
    n += w;
    i += units - 1;
  }
  return s;
}

/** True when capBytes would shorten s. */
export function exceedsBytes(s: string, maxBytes: number): boolean {
  return capBytes(s, maxBytes).length !== s.length;
}
