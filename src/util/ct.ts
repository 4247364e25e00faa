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
  if (typeof a === 'string' && typeof b === 'string') return ctEqualArrays(codePoints(a), codePoints(b));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return ctEqualArrays(a, b);
  return false;
}

// Strings are compared as code points read in one for-of pass: indexing a
// string with charCodeAt on XS costs time that grows with the index and with
// the characters before it, which would be neither linear nor content-blind.
function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

function ctEqualArrays(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const n = a.length > b.length ? a.length : b.length;
  let diff = a.length ^ b.length;
  for (let i = 0; i < n; i++) {
    // Out-of-range reads give undefined, and undefined | 0 is 0: no branch.
    diff |= (a[i]! | 0) ^ (b[i]! | 0);
  }
  return diff === 0 && n > 0;
}
