// Tool-call ids as each dialect accepts them. The transcript keeps the id a
// call was made with (any provider's: call_..., toolu_..., or Mistral's nine
// characters); when a transcript is sent to a dialect with rules of its own,
// each id is mapped for that request:
//   Mistral   exactly 9 characters of [a-zA-Z0-9] (its API refuses others);
//   Anthropic [a-zA-Z0-9_-]+.
// The mapping is a pure function of the transcript (a hash, so a call and its
// result map alike), keeps ids that already fit, and is one-to-one within a
// request: a hash that collides is salted again.

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
export const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;
export const ANTHROPIC_ID = /^[A-Za-z0-9_-]{1,64}$/;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** FNV-1a (32 bits) over the code points of s, from a seed. */
function fnv(s: string, seed: number): number {
  let h = seed >>> 0;
  for (const ch of s) {
    let c = ch.codePointAt(0)!;
    // Four bytes per code point, so distinct code points never hash alike by construction.
    for (let i = 0; i < 4; i++) {
      h ^= c & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
      c >>>= 8;
    }
  }
  return h >>> 0;
}

/** Nine characters of [A-Za-z0-9] from a 53-bit hash of (id, salt). */
export function hash9(id: string, salt: number): string {
  const a = fnv(id, 0x811c9dc5 ^ salt);
  const b = fnv(id, 0x9e3779b9 + salt * 0x85ebca6b);
  let v = a * 2097152 + (b >>> 11); // a * 2^21 + 21 bits of b: an exact integer below 2^53
  const out: string[] = [];
  for (let i = 0; i < 9; i++) {
    out.push(ALPHABET[v % 62]!);
    v = Math.floor(v / 62);
  }
  return out.join('');
}

/**
 * Maps every id to one that matches `valid`: ids that already match keep
 * their value, the others get hash9 (salted until unused). Distinct ids get
 * distinct results.
 */
export function mapIds(ids: Iterable<string>, valid: RegExp): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  const pending: string[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (valid.test(id)) {
      out.set(id, id);
      used.add(id);
    } else pending.push(id);
  }
  for (const id of pending) {
    let salt = 0;
    let m = hash9(id, salt);
    while (used.has(m)) m = hash9(id, ++salt);
    out.set(id, m);
    used.add(m);
  }
  return out;
}
