// The UTF-8 hotspot's TypeScript fallback: the codec the C in utf8.c must
// match bit for bit, and what runs where no native is linked. It lives with
// the hotspot (modules/ imports nothing of src/); src/util/utf8.ts re-exports
// it and routes encode/decode/length to it or to the C, chosen once at boot.
//
// Two facts about XS shape this code (measured on the simulator's XS):
// - Strings are UTF-8 inside, so s.charCodeAt(i) walks from the start: a loop
//   over indexes is quadratic. for-of walks once, so every loop here is for-of.
// - Unless XS is built with mxCESU8, a string is a sequence of code points, not
//   UTF-16 units: '😀'.length is 1, charCodeAt gives the code point, and two
//   surrogate halves concatenated stay two lone surrogates. So characters are
//   read with codePointAt(0) and built with String.fromCodePoint, which mean
//   the same in both models.

const REPLACEMENT = 0xfffd;

/** Bytes one code point takes; a lone surrogate counts 3 (it encodes as U+FFFD). */
function width(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

// A character XS cannot encode (a value above U+10FFFF, which only
// String.fromArrayBuffer lets into a string) iterates as '': it counts and
// encodes as U+FFFD too.

/** Bytes the string takes in UTF-8 (lone surrogates count 3, as U+FFFD). */
export function utf8LengthFallback(s: string): number {
  let n = 0;
  for (const ch of s) n += width(ch.codePointAt(0) ?? REPLACEMENT);
  return n;
}

/** Encodes to UTF-8; lone surrogates become U+FFFD (as TextEncoder does). */
export function encodeFallback(s: string): Uint8Array {
  const out = new Uint8Array(utf8LengthFallback(s));
  encodeInto(s, out, 0);
  return out;
}

/**
 * Writes s as UTF-8 into out at offset and returns the offset after it.
 * The caller sizes out with utf8Length: request bodies are assembled in one
 * buffer, so this must not allocate.
 */
export function encodeInto(s: string, out: Uint8Array, offset: number): number {
  let p = offset;
  for (const ch of s) {
    let c = ch.codePointAt(0) ?? REPLACEMENT;
    if (c < 0x80) {
      out[p++] = c;
    } else if (c < 0x800) {
      out[p++] = 0xc0 | (c >> 6);
      out[p++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      if (c >= 0xd800 && c <= 0xdfff) c = REPLACEMENT;
      out[p++] = 0xe0 | (c >> 12);
      out[p++] = 0x80 | ((c >> 6) & 0x3f);
      out[p++] = 0x80 | (c & 0x3f);
    } else {
      out[p++] = 0xf0 | (c >> 18);
      out[p++] = 0x80 | ((c >> 12) & 0x3f);
      out[p++] = 0x80 | ((c >> 6) & 0x3f);
      out[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p;
}

// Code points are turned into a string in chunks: one call per character is
// slow on an interpreter, and one call with every character overflows the XS
// stack (4096 arguments did on the simulator; a device's stack is smaller).
const CHUNK = 128;

/**
 * Decodes UTF-8 the way the WHATWG decoder does (TextDecoder with fatal off
 * and ignoreBOM on): each maximal subpart of an ill-formed sequence becomes
 * one U+FFFD. A leading BOM is kept, not stripped: callers decide. start and
 * end are truncated and clamped to [0, bytes.length]; end below start gives ''.
 */
export function decodeFallback(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const len = bytes.length;
  // (| 0 truncates: both are below len here, and a typed array is under 2^31)
  start = start >= len ? len : start > 0 ? start | 0 : 0;
  end = end >= len ? len : end > start ? end | 0 : start;
  const parts: string[] = [];
  const cps: number[] = [];
  let needed = 0;
  let seen = 0;
  let cp = 0;
  let lower = 0x80;
  let upper = 0xbf;
  const push = (c: number): void => {
    cps.push(c);
    if (cps.length >= CHUNK) {
      parts.push(String.fromCodePoint.apply(null, cps));
      cps.length = 0;
    }
  };
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (needed === 0) {
      if (b < 0x80) push(b);
      else if (b >= 0xc2 && b <= 0xdf) {
        needed = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (b === 0xe0) lower = 0xa0; // overlong
        if (b === 0xed) upper = 0x9f; // surrogates
        needed = 2;
        cp = b & 0x0f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b === 0xf0) lower = 0x90; // overlong
        if (b === 0xf4) upper = 0x8f; // above U+10FFFF
        needed = 3;
        cp = b & 0x07;
      } else push(REPLACEMENT);
      continue;
    }
    if (b < lower || b > upper) {
      // The subpart so far is maximal: replace it and read this byte afresh.
      needed = seen = cp = 0;
      lower = 0x80;
      upper = 0xbf;
      push(REPLACEMENT);
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen === needed) {
      push(cp);
      needed = seen = cp = 0;
    }
  }
  if (needed !== 0) push(REPLACEMENT);
  if (cps.length > 0) parts.push(String.fromCodePoint.apply(null, cps));
  return parts.length === 1 ? parts[0]! : parts.join('');
}
