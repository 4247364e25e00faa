import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decode, encode, encodeInto, isWellFormedUtf8, utf8Length } from '../../../src/util/utf8.ts';

const nodeEncoder = new TextEncoder();
const nodeDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

describe('utf8 encode', () => {
  it('encodes 1, 2, 3 and 4 byte characters', () => {
    expect([...encode('A')]).toEqual([0x41]);
    expect([...encode('é')]).toEqual([0xc3, 0xa9]);
    expect([...encode('€')]).toEqual([0xe2, 0x82, 0xac]);
    expect([...encode('😀')]).toEqual([0xf0, 0x9f, 0x98, 0x80]);
    expect(encode('').length).toBe(0);
  });

  it('encodes lone surrogates as U+FFFD', () => {
    expect([...encode('\ud800')]).toEqual([0xef, 0xbf, 0xbd]);
    expect([...encode('\udc00x')]).toEqual([0xef, 0xbf, 0xbd, 0x78]);
    expect([...encode('a\ud83d')]).toEqual([0x61, 0xef, 0xbf, 0xbd]);
    // reversed pair: two lone surrogates
    expect(encode('\ude00\ud83d').length).toBe(6);
  });

  it('matches TextEncoder on arbitrary strings, including lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const ours = encode(s);
        expect(ours).toEqual(nodeEncoder.encode(s));
        expect(utf8Length(s)).toBe(ours.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('encodeInto writes at an offset and returns the end', () => {
    const out = new Uint8Array(10);
    const end = encodeInto('é😀', out, 2);
    expect(end).toBe(8);
    expect([...out.subarray(2, 8)]).toEqual([0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80]);
  });
});

describe('utf8 decode', () => {
  it('round-trips well-formed text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(decode(encode(s))).toBe(s);
      }),
    );
  });

  it('replaces maximal subparts as the WHATWG decoder does (known cases)', () => {
    const cases: number[][] = [
      [0x80],
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80], // encoded surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xf0, 0x9f, 0x98], // truncated 4-byte
      [0xe2, 0x82, 0x41],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xef, 0xbb, 0xbf, 0x41], // BOM is kept
    ];
    for (const c of cases) expect(decode(Uint8Array.from(c))).toBe(nodeDecoder.decode(Uint8Array.from(c)));
    expect(decode(Uint8Array.from([0xf0, 0x9f, 0x98]))).toBe('\ufffd');
    expect(decode(Uint8Array.from([0xe2, 0x82, 0x41]))).toBe('\ufffdA');
  });

  it('matches TextDecoder on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(decode(b)).toBe(nodeDecoder.decode(b));
      }),
      { numRuns: 5000 },
    );
  });

  it('matches TextDecoder on random bytes biased towards UTF-8 lead and continuation bytes', () => {
    const byte = fc.oneof(
      fc.integer({ min: 0x80, max: 0xbf }),
      fc.integer({ min: 0xc0, max: 0xff }),
      fc.constantFrom(0x41, 0xe0, 0xed, 0xf0, 0xf4, 0x9f, 0xa0, 0x8f, 0x90),
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 32 }), (arr) => {
        const b = Uint8Array.from(arr);
        expect(decode(b)).toBe(nodeDecoder.decode(b));
      }),
      { numRuns: 5000 },
    );
  });

  it('decodes a slice and long inputs (chunked string building)', () => {
    const s = 'ab€😀'.repeat(5000);
    const b = encode(s);
    expect(decode(b)).toBe(s);
    expect(decode(b, 2, 5)).toBe('€');
  });
});

describe('utf8Length', () => {
  it('counts bytes without encoding', () => {
    expect(utf8Length('')).toBe(0);
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('\ud800')).toBe(3);
    expect(utf8Length('\ud800\ud800')).toBe(6);
  });
});

describe('isWellFormedUtf8', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const strict = (b: Uint8Array): boolean => {
    try {
      fatal.decode(b);
      return true;
    } catch {
      return false;
    }
  };

  it('refuses overlong forms, surrogates, code points past U+10FFFF and cut sequences', () => {
    expect(isWellFormedUtf8(encode('aé€😀'))).toBe(true);
    for (const bad of [[0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf0, 0x9f, 0x98], [0x80], [0xff]]) {
      expect(isWellFormedUtf8(Uint8Array.from(bad)), JSON.stringify(bad)).toBe(false);
    }
    // Within a range only: a character cut by the range's end is refused.
    expect(isWellFormedUtf8(encode('é'), 0, 1)).toBe(false);
    expect(isWellFormedUtf8(Uint8Array.from([0xff, 0x41, 0xff]), 1, 2)).toBe(true);
  });

  it("agrees with the WHATWG decoder in fatal mode on any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (b) => {
        expect(isWellFormedUtf8(b)).toBe(strict(b));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), fc.nat(), (text, cut) => {
        const b = encode(text);
        expect(isWellFormedUtf8(b)).toBe(true);
        const end = b.length ? cut % b.length : 0;
        expect(isWellFormedUtf8(b, 0, end)).toBe(strict(b.subarray(0, end)));
      }),
      { numRuns: 2000 },
    );
  });
});
