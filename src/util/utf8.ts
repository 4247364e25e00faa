// UTF-8 encoding and decoding without TextEncoder/TextDecoder (XS has neither
// in every build), and byte lengths without allocating. Every byte cap in the
// firmware is measured with utf8Length, so it must agree exactly with encode.

const REPLACEMENT = 0xfffd;

/**
 * Bytes the string takes in UTF-8. A lone surrogate counts 3 bytes because
 * encode() writes it as U+FFFD.
 */
export function utf8Length(s: string): number {
  let n = 0;
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Encodes to UTF-8; lone surrogates become U+FFFD (as TextEncoder does). */
export function encode(s: string): Uint8Array {
  const out = new Uint8Array(utf8Length(s));
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
  const len = s.length;
  for (let i = 0; i < len; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out[p++] = c;
      continue;
    }
    if (c < 0x800) {
      out[p++] = 0xc0 | (c >> 6);
      out[p++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < len ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        out[p++] = 0xf0 | (cp >> 18);
        out[p++] = 0x80 | ((cp >> 12) & 0x3f);
        out[p++] = 0x80 | ((cp >> 6) & 0x3f);
        out[p++] = 0x80 | (cp & 0x3f);
        i++;
        continue;
      }
      c = REPLACEMENT;
    }
    out[p++] = 0xe0 | (c >> 12);
    out[p++] = 0x80 | ((c >> 6) & 0x3f);
    out[p++] = 0x80 | (c & 0x3f);
  }
  return p;
}

// Code units are collected and turned into a string in chunks: one
// String.fromCharCode per byte would be quadratic-ish on an interpreter, and
// one call with every unit could exceed the engine's argument limit.
const CHUNK = 4096;

/**
 * Decodes UTF-8 the way the WHATWG decoder does (TextDecoder with fatal off
 * and ignoreBOM on): each maximal subpart of an ill-formed sequence becomes
 * one U+FFFD. A leading BOM is kept, not stripped: callers decide.
 */
export function decode(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = '';
  const units: number[] = [];
  let needed = 0;
  let seen = 0;
  let cp = 0;
  let lower = 0x80;
  let upper = 0xbf;
  const push = (u: number): void => {
    units.push(u);
    if (units.length >= CHUNK) {
      out += String.fromCharCode.apply(null, units);
      units.length = 0;
    }
  };
  const pushCodePoint = (c: number): void => {
    if (c < 0x10000) push(c);
    else {
      c -= 0x10000;
      push(0xd800 + (c >> 10));
      push(0xdc00 + (c & 0x3ff));
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
      pushCodePoint(cp);
      needed = seen = cp = 0;
    }
  }
  if (needed !== 0) push(REPLACEMENT);
  if (units.length > 0) out += String.fromCharCode.apply(null, units);
  return out;
}
