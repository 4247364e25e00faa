import { describe, expect, it } from 'vitest';
import {
  PASSPHRASE_ALPHABET,
  SIGN_IN_ALPHABET,
  SIGN_IN_LENGTH,
  createIds,
  groupSignInCode,
  isSignInCode,
  launchKey128,
  normalizeSignInCode,
  randomChars,
  randomId,
  setupPassphrase,
  signInCode,
  token96,
  type RandomFill,
} from '../../../src/util/ids.ts';

/** Deterministic PRNG (mulberry32) as a random fill. */
function seeded(seed: number): RandomFill {
  let a = seed >>> 0;
  return (bytes) => {
    for (let i = 0; i < bytes.length; i++) {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      bytes[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
    }
  };
}

/** Every byte value 0..255 in turn, forever: a perfectly uniform source. */
function counter(): RandomFill {
  let n = 0;
  return (bytes) => {
    for (let i = 0; i < bytes.length; i++) bytes[i] = n++ & 0xff;
  };
}

function counts(strings: string[], alphabet: string): number[] {
  const c = new Array<number>(alphabet.length).fill(0);
  for (const s of strings) for (const ch of s) c[alphabet.indexOf(ch)]!++;
  return c;
}

function chiSquare(c: number[]): number {
  const total = c.reduce((x, y) => x + y, 0);
  const e = total / c.length;
  return c.reduce((x, o) => x + ((o - e) * (o - e)) / e, 0);
}

describe('alphabets', () => {
  it('passphrase alphabet is lowercase letters and digits without 0 o 1 l', () => {
    const all = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('').filter((c) => !'0o1l'.includes(c));
    expect([...PASSPHRASE_ALPHABET].sort()).toEqual(all.sort());
  });

  it('sign-in alphabet has no ambiguous characters and no repeats', () => {
    expect(SIGN_IN_ALPHABET.length).toBe(31);
    expect(new Set(SIGN_IN_ALPHABET).size).toBe(31);
    for (const c of '01ILOilo') expect(SIGN_IN_ALPHABET.includes(c)).toBe(false);
  });
});

describe('forms and lengths', () => {
  const fill = seeded(1);
  it('token96 is 24 lowercase hex characters', () => {
    for (let i = 0; i < 200; i++) expect(token96(fill)).toMatch(/^[0-9a-f]{24}$/);
  });
  it('launchKey128 is 32 lowercase hex characters', () => {
    for (let i = 0; i < 200; i++) expect(launchKey128(fill)).toMatch(/^[0-9a-f]{32}$/);
  });
  it('signInCode is 12 characters of its alphabet (59 bits: no lockout needed)', () => {
    expect(SIGN_IN_LENGTH * Math.log2(SIGN_IN_ALPHABET.length)).toBeGreaterThan(59);
    for (let i = 0; i < 200; i++) {
      const c = signInCode(fill);
      expect(c).toMatch(/^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{12}$/);
      expect(isSignInCode(c)).toBe(true);
    }
  });
  it('setupPassphrase is exactly 10 characters without 0 o 1 l', () => {
    for (let i = 0; i < 500; i++) expect(setupPassphrase(fill)).toMatch(/^[2-9a-km-np-z]{10}$/);
  });
  it('randomId is prefix plus hex of the given byte count', () => {
    expect(randomId(fill)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomId(fill, 'job-', 4)).toMatch(/^job-[0-9a-f]{8}$/);
  });
  it('createIds binds the source', () => {
    const ids = createIds(seeded(7));
    expect(ids.token96()).toMatch(/^[0-9a-f]{24}$/);
    expect(ids.launchKey128()).toHaveLength(32);
    expect(ids.signInCode()).toHaveLength(12);
    expect(ids.setupPassphrase()).toHaveLength(10);
    expect(ids.randomId('r', 2)).toMatch(/^r[0-9a-f]{4}$/);
    expect(createIds(seeded(7)).token96()).toBe(createIds(seeded(7)).token96());
  });
  it('values differ between draws', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(token96(fill));
    expect(seen.size).toBe(1000);
  });
});

describe('sign-in code entry', () => {
  it('normalizes case, spaces and dashes', () => {
    expect(normalizeSignInCode(' abcd-efgh ')).toBe('ABCDEFGH');
    expect(normalizeSignInCode(42)).toBe('');
    expect(isSignInCode('ABCDEFGHJKMN')).toBe(true);
    expect(isSignInCode('ABCDEFGHJKM1')).toBe(false);
    expect(isSignInCode('ABCDEFGHJKM')).toBe(false);
    expect(isSignInCode(null)).toBe(false);
  });
  it('is shown in groups of four, which read back as the code', () => {
    const code = signInCode(seeded(3));
    const shown = groupSignInCode(code);
    expect(shown).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    expect(normalizeSignInCode(shown.toLowerCase())).toBe(code);
  });
});

describe('no modulo bias', () => {
  it('a perfectly uniform byte source gives exactly equal symbol counts', () => {
    // 31 does not divide 256: with `byte % 31` the first 8 symbols would come
    // up 9 times per 256 bytes and the rest 8. Rejection sampling keeps the 248
    // bytes below 256 - 256 % 31, and each symbol then comes up exactly 8 times.
    // (randomChars fills length + 8 bytes at a time: 248 + 8 is one cycle.)
    const s = randomChars(counter(), SIGN_IN_ALPHABET, 248);
    expect(counts([s], SIGN_IN_ALPHABET)).toEqual(new Array(31).fill(8));
    const naive = new Array<number>(31).fill(0);
    for (let b = 0; b < 256; b++) naive[b % 31]!++;
    expect(new Set(naive).size).toBe(2);
  });

  it('the rejection limit drops exactly the bytes at and above 256 - 256 % m', () => {
    // A source yielding only bytes >= 248 first: all rejected for m = 31.
    let calls = 0;
    const fill: RandomFill = (b) => {
      calls++;
      b.fill(calls === 1 ? 248 : 30);
    };
    expect(randomChars(fill, SIGN_IN_ALPHABET, 4)).toBe('ZZZZ');
    expect(calls).toBe(2);
  });

  it('a stuck source throws rather than hangs', () => {
    expect(() => signInCode((b) => b.fill(255))).toThrow(/stuck/);
  });

  it('chi-square of seeded draws stays within a generous bound', () => {
    // df = 30 (sign-in) and 31 (passphrase); p = 1e-6 critical value is about 80.
    const fill = seeded(12345);
    const codes: string[] = [];
    for (let i = 0; i < 5000; i++) codes.push(signInCode(fill));
    expect(chiSquare(counts(codes, SIGN_IN_ALPHABET))).toBeLessThan(80);
    const phrases: string[] = [];
    for (let i = 0; i < 4000; i++) phrases.push(setupPassphrase(fill));
    expect(chiSquare(counts(phrases, PASSPHRASE_ALPHABET))).toBeLessThan(82);
    // hex nibbles of tokens
    const toks: string[] = [];
    for (let i = 0; i < 3000; i++) toks.push(token96(fill));
    expect(chiSquare(counts(toks, '0123456789abcdef'))).toBeLessThan(60);
  });

  it('rejects alphabets that cannot be sampled from a byte', () => {
    expect(() => randomChars(seeded(1), 'a', 3)).toThrow(RangeError);
    expect(() => randomChars(seeded(1), 'x'.repeat(257), 3)).toThrow(RangeError);
  });
});
