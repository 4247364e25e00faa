// Constant-time comparison of secrets (device token, launch keys, sign-in
// codes). The running time depends only on the lengths, never on where the
// inputs first differ.

/**
 * True when a and b are both strings (or both byte arrays) with equal content.
 * Fails closed: anything else, mixed kinds, or an empty input on either side
 * compares unequal, so an unset secret can never be matched by an empty guess.
 * A length mismatch still walks the longer input before answering false.
 */
export function ctEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return ctEqualStrings(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return ctEqualBytes(a, b);
  return false;
}

function ctEqualStrings(a: string, b: string): boolean {
  const n = a.length > b.length ? a.length : b.length;
  let diff = a.length ^ b.length;
  for (let i = 0; i < n; i++) {
    // Past the end charCodeAt gives NaN, and NaN | 0 is 0: no branch needed.
    diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  }
  return diff === 0 && n > 0;
}

function ctEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length > b.length ? a.length : b.length;
  let diff = a.length ^ b.length;
  for (let i = 0; i < n; i++) {
    // Out-of-range reads give undefined, and undefined | 0 is 0.
    diff |= (a[i]! | 0) ^ (b[i]! | 0);
  }
  return diff === 0 && n > 0;
}
