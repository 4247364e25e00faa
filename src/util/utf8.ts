// UTF-8 encoding and decoding without TextEncoder/TextDecoder (XS has neither
// in every build), and byte lengths without allocating. Every byte cap in the
// firmware is measured with utf8Length, so it must agree exactly with encode.
//
// Two facts about XS shape this code (measured on the simulator's XS):
// - Strings are UTF-8 inside, so s.charCodeAt(i) walks from the start: a loop
//   over indexes is quadratic. for-of walks once, so every loop here is for-of.
// - Unless XS is built with mxCESU8, a string is a sequence of code points, not
//   UTF-16 units: '😀'.length is 1, charCodeAt gives the code point, and two
//   surrogate halves concatenated stay two lone surrogates. So characters are
//   read with codePointAt(0) and built with String.fromCodePoint, which mean
//   the same in both models.
//
// encode, decode and utf8Length run what boot chose once with useNativeUtf8:
// the C hotspot (modules/utf8) or the *Fallback functions, the TypeScript
// implementation, with the same results bit for bit. The choice is a property
// of one module-level object, not a rebinding of the exports: the device
// preloads this module, which freezes its bindings (a rebinding threw
// "set encode: const" at boot there), while an object stays writable.

import type { Utf8Api } from '../../modules/utf8/utf8.ts';

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

/** The implementation in use: the fallbacks until boot calls useNativeUtf8. */
const active: { encode: (s: string) => Uint8Array; decode: (bytes: Uint8Array, start?: number, end?: number) => string; length: (s: string) => number; native: boolean } = {
  encode: encodeFallback,
  decode: decodeFallback,
  length: utf8LengthFallback,
  native: false,
};

/** Bytes the string takes in UTF-8 (lone surrogates count 3, as U+FFFD). */
export function utf8Length(s: string): number {
  return active.length(s);
}

/** Encodes to UTF-8; lone surrogates become U+FFFD (as TextEncoder does). */
export function encode(s: string): Uint8Array {
  return active.encode(s);
}

/**
 * Decodes UTF-8 the way the WHATWG decoder does (TextDecoder with fatal off
 * and ignoreBOM on): each maximal subpart of an ill-formed sequence becomes
 * one U+FFFD. A leading BOM is kept, not stripped: callers decide. start and
 * end are truncated and clamped to [0, bytes.length]; end below start gives ''.
 */
export function decode(bytes: Uint8Array, start?: number, end?: number): string {
  return active.decode(bytes, start, end);
}

/**
 * Points encode, decode and utf8Length at api's functions (the C hotspot,
 * from hal.natives.utf8), or back at the fallbacks with null. Called once at
 * boot. encodeInto stays in TypeScript (it writes into the caller's buffer).
 */
export function useNativeUtf8(api: Utf8Api | null): void {
  active.encode = api ? api.encode : encodeFallback;
  active.decode = api ? api.decode : decodeFallback;
  active.length = api ? api.length : utf8LengthFallback;
  active.native = !!api && api.native;
}

/** True when encode, decode and utf8Length run the native implementation. */
export function nativeUtf8InUse(): boolean {
  return active.native;
}

/**
 * True when bytes[start, end) is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF, no cut sequence): what a parser of
 * outside bytes checks before it decodes, where decode() would quietly put
 * U+FFFD in place of the bad bytes.
 */
export function isWellFormedUtf8(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  let i = start;
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
    } else return false;
    if (i + n >= end) return false;
    const c1 = bytes[i + 1]!;
    if (c1 < lower || c1 > upper) return false;
    for (let k = 2; k <= n; k++) {
      const c = bytes[i + k]!;
      if (c < 0x80 || c > 0xbf) return false;
    }
    i += n + 1;
  }
  return true;
}
