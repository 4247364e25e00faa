import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { capBytes, exceedsBytes } from '../../../src/util/cap.ts';
import { utf8Length } from '../../../src/util/utf8.ts';

/** The code point starting at index i, as a string (a surrogate pair is one). */
function codePointAt(s: string, i: number): string {
  const c = s.charCodeAt(i);
  const d = s.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? s.slice(i, i + 2) : s.slice(i, i + 1);
}

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.array(fc.constantFrom('a', 'é', '€', '😀', '👍🏽', '\ud800', '\udc00'), { maxLength: 60 }).map((a) => a.join('')),
);

describe('capBytes', () => {
  it('returns the longest prefix within the cap, never splitting a code point', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 300 }), (s, max) => {
        const r = capBytes(s, max);
        expect(s.startsWith(r)).toBe(true);
        expect(utf8Length(r)).toBeLessThanOrEqual(max);
        // never ends on a high surrogate whose low half was cut off
        if (r.length > 0 && r.length < s.length) {
          const last = r.charCodeAt(r.length - 1);
          const next = s.charCodeAt(r.length);
          expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
        }
        if (r.length < s.length) {
          const next = codePointAt(s, r.length);
          expect(utf8Length(r + next)).toBeGreaterThan(max);
        } else {
          expect(r).toBe(s);
        }
        expect(exceedsBytes(s, max)).toBe(r !== s);
      }),
      { numRuns: 3000 },
    );
  });

  it('cuts at the boundary of 2, 3 and 4 byte characters', () => {
    expect(capBytes('éé', 3)).toBe('é');
    expect(capBytes('€€', 5)).toBe('€');
    expect(capBytes('€€', 6)).toBe('€€');
    expect(capBytes('😀😀', 7)).toBe('😀');
    expect(capBytes('😀😀', 3)).toBe('');
    expect(capBytes('a😀', 4)).toBe('a');
    expect(capBytes('a😀', 5)).toBe('a😀');
  });

  it('counts a lone surrogate as 3 bytes', () => {
    expect(capBytes('\ud800\ud800', 5)).toBe('\ud800');
  });

  it('treats a negative, NaN or fractional cap sensibly', () => {
    expect(capBytes('abc', -1)).toBe('');
    expect(capBytes('abc', Number.NaN)).toBe('');
    expect(capBytes('abc', 2.9)).toBe('ab');
    expect(capBytes('', 0)).toBe('');
  });
});
