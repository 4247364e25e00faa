import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ctEqual } from '../../../src/util/ct.ts';

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
    // Byte arrays behind counting proxies: every index read is recorded.
    const counted = (bytes: number[], reads: number[]) =>
      new Proxy(Uint8Array.from(bytes), {
        get(target, key) {
          if (typeof key === 'string' && /^[0-9]+$/.test(key)) reads.push(Number(key));
          const v = Reflect.get(target, key, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    const run = (x: number[], y: number[]) => {
      const ra: number[] = [];
      const rb: number[] = [];
      const result = ctEqual(counted(x, ra), counted(y, rb));
      return { result, ra, rb };
    };
    const equal = run([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]);
    const early = run([9, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]);
    expect(equal.result).toBe(true);
    expect(early.result).toBe(false);
    expect(early.ra).toEqual(equal.ra);
    expect(early.rb).toEqual(equal.rb);
    expect(equal.ra).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const short = run([1, 2], [1, 2, 3, 4, 5, 6, 7, 8]);
    expect(short.result).toBe(false);
    expect(short.rb).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('compares strings by code point: a pair is one, lone surrogates stay distinct', () => {
    expect(ctEqual('a😀', 'a😀')).toBe(true);
    expect(ctEqual('\ud800', '\ud801')).toBe(false);
    expect(ctEqual('\ud83d\ude00', '😀')).toBe(true);
  });
});
