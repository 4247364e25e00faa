import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ctEqual } from '../../src/util/ct.ts';

describe('ctEqual', () => {
  it('agrees with === on non-empty strings', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
        expect(ctEqual(a, b)).toBe(a === b);
        expect(ctEqual(a, a)).toBe(true);
      }),
    );
  });

  it('agrees with byte equality on non-empty byte arrays', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1 }), fc.uint8Array({ minLength: 1 }), (a, b) => {
        const same = a.length === b.length && a.every((x, i) => x === b[i]);
        expect(ctEqual(a, b)).toBe(same);
        expect(ctEqual(a, Uint8Array.from(a))).toBe(true);
      }),
    );
  });

  it('is false on a length mismatch, including a prefix', () => {
    expect(ctEqual('abc', 'abcd')).toBe(false);
    expect(ctEqual('abcd', 'abc')).toBe(false);
    expect(ctEqual(Uint8Array.from([1, 2]), Uint8Array.from([1, 2, 0]))).toBe(false);
    // trailing NUL must not equal "nothing"
    expect(ctEqual('ab\u0000', 'ab')).toBe(false);
  });

  it('fails closed on empty, non-string and mixed inputs', () => {
    expect(ctEqual('', '')).toBe(false);
    expect(ctEqual(new Uint8Array(0), new Uint8Array(0))).toBe(false);
    expect(ctEqual('abc', undefined)).toBe(false);
    expect(ctEqual(undefined, undefined)).toBe(false);
    expect(ctEqual(null, null)).toBe(false);
    expect(ctEqual(123, 123)).toBe(false);
    expect(ctEqual(['a'], ['a'])).toBe(false);
    expect(ctEqual('a', Uint8Array.from([97]))).toBe(false);
    expect(ctEqual({ toString: () => 'a' }, 'a')).toBe(false);
  });

  it('walks the longer input in full (no early exit)', () => {
    // Count character reads through a proxy-like string object wrapper: the
    // function only touches charCodeAt, so a spy on it shows the iterations.
    const reads: number[] = [];
    const orig = String.prototype.charCodeAt;
    String.prototype.charCodeAt = function (this: string, i: number) {
      reads.push(i);
      return orig.call(this, i);
    };
    try {
      ctEqual('xbcdefgh', 'abcdefgh'); // differs at 0
      const early = reads.length;
      reads.length = 0;
      ctEqual('abcdefgh', 'abcdefgh');
      expect(early).toBe(reads.length);
      reads.length = 0;
      ctEqual('ab', 'abcdefgh');
      expect(Math.max(...reads)).toBe(7);
    } finally {
      String.prototype.charCodeAt = orig;
    }
  });
});
