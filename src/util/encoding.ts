// Hex, base64 and base64url for bytes, without host helpers. Decoders never
// throw: they return null for anything malformed, so a bad header or form
// field is refused by the caller instead of crashing the request.
//
// Rules chosen here:
// - hex: encode is lowercase; decode accepts either case, rejects odd length
//   and non-hex characters.
// - base64 (RFC 4648 section 4): encode pads with '='. Decode accepts the
//   input with its padding or without it, but padding that is present must be
//   complete and at the end.
// - base64url (section 5): encode omits padding. Decode accepts it with or
//   without padding.
// - Both base64 decoders reject whitespace, characters of the other alphabet,
//   a length that leaves one lone character (n % 4 == 1), and non-zero unused
//   bits in the last character, so every byte string has exactly one accepted
//   text form (no malleable signatures or keys).

// Loops read strings with for-of and build them with join: on XS, indexing a
// string is not constant-time and += copies (both quadratic on long input).

const HEX_BYTE: string[] = [];
for (let i = 0; i < 256; i++) HEX_BYTE.push((i < 16 ? '0' : '') + i.toString(16));

export function toHex(bytes: Uint8Array): string {
  const parts = new Array<string>(bytes.length);
  for (let i = 0; i < bytes.length; i++) parts[i] = HEX_BYTE[bytes[i]!]!;
  return parts.join('');
}

function hexNibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/** Bytes of a hex string, or null for odd length or a non-hex character. */
export function fromHex(s: string): Uint8Array | null {
  if (typeof s !== 'string' || (s.length & 1) !== 0) return null;
  const out = new Uint8Array(s.length >> 1);
  let p = 0;
  let hi = -1;
  for (const ch of s) {
    const v = hexNibble(ch.codePointAt(0)!);
    if (v < 0) return null;
    if (hi < 0) hi = v;
    else {
      out[p++] = (hi << 4) | v;
      hi = -1;
    }
  }
  // A code point that is one unit on XS but two in UTF-16 cannot be hex, so
  // reaching here means every unit was a hex digit.
  return out;
}

/** True for a string of lowercase hex digits, of exactly `length` chars when given. */
export function isLowerHex(s: unknown, length?: number): boolean {
  if (typeof s !== 'string' || s.length === 0) return false;
  if (length !== undefined && s.length !== length) return false;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function reverse(alphabet: string): Int8Array {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 64; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
}
const B64_REV = reverse(B64);
const B64URL_REV = reverse(B64URL);

function encode64(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  const parts: string[] = [];
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    parts.push(alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + alphabet[(v >> 6) & 63]! + alphabet[v & 63]!);
  }
  if (n - i === 1) {
    const v = bytes[i]! << 16;
    parts.push(alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + (pad ? '==' : ''));
  } else if (n - i === 2) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    parts.push(alphabet[v >> 18]! + alphabet[(v >> 12) & 63]! + alphabet[(v >> 6) & 63]! + (pad ? '=' : ''));
  }
  return parts.join('');
}

function decode64(s: string, rev: Int8Array): Uint8Array | null {
  if (typeof s !== 'string') return null;
  let len = s.length;
  if (len % 4 === 0 && len > 0) {
    // Padding, when present, is one or two '=' that complete the last quad.
    // (endsWith, not charCodeAt: indexing is not constant-time on XS.)
    if (s.endsWith('==')) len -= 2;
    else if (s.endsWith('=')) len -= 1;
  }
  const rem = len % 4;
  if (rem === 1) return null;
  const out = new Uint8Array((len >> 2) * 3 + (rem === 0 ? 0 : rem - 1));
  let acc = 0;
  let bits = 0;
  let p = 0;
  let i = 0;
  for (const ch of s) {
    if (i++ === len) break;
    const c = ch.codePointAt(0)!;
    const v = c < 128 ? rev[c]! : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[p++] = (acc >> bits) & 0xff;
    }
  }
  // Leftover bits belong to no byte: they must be zero for a canonical text.
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

/** Standard base64 with '=' padding. */
export function toBase64(bytes: Uint8Array): string {
  return encode64(bytes, B64, true);
}

/** Bytes of standard base64 (padding optional), or null if malformed. */
export function fromBase64(s: string): Uint8Array | null {
  return decode64(s, B64_REV);
}

/** URL-safe base64 without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  return encode64(bytes, B64URL, false);
}

/** Bytes of base64url (padding optional), or null if malformed. */
export function fromBase64Url(s: string): Uint8Array | null {
  return decode64(s, B64URL_REV);
}
