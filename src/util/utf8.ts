// UTF-8 encoding and decoding without TextEncoder/TextDecoder (XS has neither
// in every build), and byte lengths without allocating. Every byte cap in the
// firmware is measured with utf8Length, so it must agree exactly with encode.
//
// The TypeScript codec itself (and the XS facts that shape it) is the
// hotspot's fallback, modules/utf8/fallback.ts, re-exported here.
//
// encode, decode and utf8Length run what boot chose once with useNativeUtf8:
// the C hotspot (modules/utf8) or the *Fallback functions, the TypeScript
// implementation, with the same results bit for bit. The choice is a property
// of one module-level object, not a rebinding of the exports: the device
// preloads this module, which freezes its bindings (a rebinding threw
// "set encode: const" at boot there), while an object stays writable.

import { decodeFallback, encodeFallback, utf8LengthFallback } from '../../modules/utf8/fallback.ts';
import type { Utf8Api } from '../../modules/utf8/utf8.ts';

export { decodeFallback, encodeFallback, encodeInto, utf8LengthFallback } from '../../modules/utf8/fallback.ts';

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

/**
 * isWellFormedUtf8 over bytes that arrive in pieces (an upload): a sequence
 * cut between two pieces is held back and judged whole with the next one;
 * one still cut at the end is not well-formed.
 */
export class Utf8Check {
  private held: Uint8Array = new Uint8Array(0);
  private good = true;

  push(bytes: Uint8Array): void {
    if (!this.good || !bytes.length) return;
    let buf = bytes;
    if (this.held.length) {
      buf = new Uint8Array(this.held.length + bytes.length);
      buf.set(this.held);
      buf.set(bytes, this.held.length);
    }
    // A lead byte in the last three whose sequence is not all here yet waits for the next piece.
    let end = buf.length;
    let i = end - 1;
    while (i > 0 && end - i < 4 && (buf[i]! & 0xc0) === 0x80) i--;
    const lead = buf[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - i < need) end = i;
    if (!isWellFormedUtf8(buf, 0, end)) this.good = false;
    this.held = buf.slice(end);
  }

  /** Whether everything pushed, taken whole, is well-formed UTF-8. */
  wellFormed(): boolean {
    return this.good && this.held.length === 0;
  }
}
