// The UTF-8 hotspot's API: encode, decode and byte length. The C in utf8.c
// (through __native on XS) and the TypeScript codec of fallback.ts (the
// fallback) give the same bytes and the same strings. src/util/utf8.ts routes its exported functions to the native
// implementation once at boot (useNativeUtf8).
//
// Runs on XS: ES2022 only, no host globals. The host passes the __native
// object to utf8Native(); nothing here reads globals.

import { decodeFallback, encodeFallback, utf8LengthFallback } from './fallback.ts';

export interface Utf8Api {
  readonly native: boolean;
  /** Well-formed UTF-8 of s; lone surrogates become U+FFFD. */
  encode(s: string): Uint8Array;
  /**
   * WHATWG decoding of bytes[start, end) (U+FFFD per maximal ill-formed
   * subpart, a BOM kept). start and end are truncated and clamped to
   * [0, bytes.length]; end below start gives ''.
   */
  decode(bytes: Uint8Array, start?: number, end?: number): string;
  /** Bytes encode(s) takes. */
  length(s: string): number;
}

/** The functions the runtime puts on `__native` (docs/sim-protocol.md). */
export interface NativeUtf8 {
  utf8Encode(s: string): ArrayBuffer;
  utf8Decode(bytes: ArrayBuffer | ArrayBufferView, start?: number, end?: number): string;
  utf8Length(s: string): number;
}

/** True when obj carries the UTF-8 functions (e.g. the runtime's __native). */
export function hasNativeUtf8(obj: unknown): obj is NativeUtf8 {
  const n = obj as Partial<NativeUtf8> | null | undefined;
  return (
    !!n &&
    typeof n.utf8Encode === 'function' &&
    typeof n.utf8Decode === 'function' &&
    typeof n.utf8Length === 'function'
  );
}

/**
 * The C implementation through the runtime's __native functions. decode and
 * length are the host functions themselves (they ignore `this`), so a call
 * costs nothing beyond the C; encode wraps the ArrayBuffer in its view.
 */
export function utf8Native(n: NativeUtf8): Utf8Api {
  const encode = n.utf8Encode;
  return {
    native: true,
    encode: (s: string): Uint8Array => new Uint8Array(encode(s)),
    decode: n.utf8Decode,
    length: n.utf8Length,
  };
}

/** The pure TypeScript implementation (fallback.ts). */
export const utf8Fallback: Utf8Api = {
  native: false,
  encode: encodeFallback,
  decode: decodeFallback,
  length: utf8LengthFallback,
};
