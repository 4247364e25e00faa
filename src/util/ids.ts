// Random identifiers and secrets, all drawn from the HAL's hardware random
// fill (System.random), passed in as a function so tests can seed it.
//
// Text forms chosen here (the web page, the API and the QR codes carry them):
// - token96: device access token, 96 bits as 24 lowercase hex characters.
//   Hex survives a header, a form field, a URL and a JSON body unescaped, and
//   the token is never typed by a person (the sign-in code is).
// - launchKey128: connector launch key, 128 bits as 32 lowercase hex
//   characters (carried as ?k= on a URL and in a QR code).
// - signInCode: 12 characters of the 31-character alphabet SIGN_IN_ALPHABET
//   (digits 2-9 and capitals without I, L, O): 12 * log2(31) = 59.4 bits,
//   shown as XXXX-XXXX-XXXX (groupSignInCode). Long enough that no lockout is
//   needed, so wrong guesses can never keep the owner out (docs/decisions.md,
//   "Guessable secrets"): at 10,000 guesses a second, more than the device
//   can answer, against the at most 16 codes alive at once, a year of guessing
//   succeeds with probability 16 * 10^4 * 3.2 * 10^7 / 31^12 = 6.4 * 10^-6.
//   A person reads it off the screen, and lowercase, spaces and dashes are
//   accepted back (normalizeSignInCode).
// - setupPassphrase: exactly 10 characters of lowercase letters and digits
//   without 0 o 1 l (32 symbols, 50 bits), as the spec requires.
// - randomId: prefix plus lowercase hex of `bytes` random bytes, for records.
//
// Every character is drawn by rejection sampling: a byte is used only when it
// falls below the largest multiple of the alphabet size, so no symbol is more
// likely than another (no modulo bias).

import { toHex } from './encoding.ts';
import { replaceEvery } from './replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SPACES_AND_DASHES = /[\s-]+/;

/** Fills the array with random bytes (HAL System.random). */
export type RandomFill = (bytes: Uint8Array) => void;

export const SIGN_IN_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const SIGN_IN_LENGTH = 12;
export const PASSPHRASE_ALPHABET = '23456789abcdefghijkmnpqrstuvwxyz';
export const PASSPHRASE_LENGTH = 10;

// A healthy source rejects a byte with probability below 1/2, so this many
// refills in a row without finishing means the source is stuck; better a loud
// error than a boot that hangs.
const MAX_REFILLS = 64;

export function randomBytes(fill: RandomFill, n: number): Uint8Array {
  const b = new Uint8Array(n);
  fill(b);
  return b;
}

/** `length` characters drawn uniformly from alphabet (2 to 256 symbols). */
export function randomChars(fill: RandomFill, alphabet: string, length: number): string {
  const m = alphabet.length;
  if (m < 2 || m > 256) throw new RangeError('alphabet must have 2 to 256 symbols');
  const limit = 256 - (256 % m);
  let s = '';
  let refills = 0;
  const buf = new Uint8Array(length + 8);
  while (s.length < length) {
    if (++refills > MAX_REFILLS) throw new Error('random source stuck');
    fill(buf);
    for (let i = 0; i < buf.length && s.length < length; i++) {
      const b = buf[i]!;
      if (b < limit) s += alphabet[b % m]!;
    }
  }
  return s;
}

export function token96(fill: RandomFill): string {
  return toHex(randomBytes(fill, 12));
}

export function launchKey128(fill: RandomFill): string {
  return toHex(randomBytes(fill, 16));
}

export function signInCode(fill: RandomFill): string {
  return randomChars(fill, SIGN_IN_ALPHABET, SIGN_IN_LENGTH);
}

/** A code as people read it: groups of four joined by dashes (XXXX-XXXX-XXXX). */
export function groupSignInCode(code: string): string {
  const groups: string[] = [];
  for (let at = 0; at < code.length; at += 4) groups.push(code.slice(at, at + 4));
  return groups.join('-');
}

/** A typed code as the device compares it: uppercase, spaces and dashes removed. */
export function normalizeSignInCode(typed: unknown): string {
  // Anything this long is no code; don't spend time on a hostile form field.
  if (typeof typed !== 'string' || typed.length > 64) return '';
  return replaceEvery(typed, SPACES_AND_DASHES, '').toUpperCase();
}

export function isSignInCode(s: unknown): boolean {
  if (typeof s !== 'string' || s.length !== SIGN_IN_LENGTH) return false;
  for (let i = 0; i < s.length; i++) if (SIGN_IN_ALPHABET.indexOf(s[i]!) < 0) return false;
  return true;
}

export function setupPassphrase(fill: RandomFill): string {
  return randomChars(fill, PASSPHRASE_ALPHABET, PASSPHRASE_LENGTH);
}

/** prefix + 2*bytes lowercase hex characters (default 8 bytes: 64 bits). */
export function randomId(fill: RandomFill, prefix = '', bytes = 8): string {
  return prefix + toHex(randomBytes(fill, bytes));
}

export interface Ids {
  token96(): string;
  launchKey128(): string;
  signInCode(): string;
  setupPassphrase(): string;
  randomId(prefix?: string, bytes?: number): string;
}

/** The same generators bound to one random source (e.g. hal.system.random). */
export function createIds(fill: RandomFill): Ids {
  return {
    token96: () => token96(fill),
    launchKey128: () => launchKey128(fill),
    signInCode: () => signInCode(fill),
    setupPassphrase: () => setupPassphrase(fill),
    randomId: (prefix?: string, bytes?: number) => randomId(fill, prefix, bytes),
  };
}
