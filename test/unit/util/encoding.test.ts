import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64, fromBase64Url, fromHex, isLowerHex, toBase64, toBase64Url, toHex } from '../../../src/util/encoding.ts';

const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

describe('hex', () => {
  it('encodes lowercase like Buffer and round-trips', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const h = toHex(b);
        expect(h).toBe(buf(b).toString('hex'));
        expect(fromHex(h)).toEqual(b);
        expect(fromHex(h.toUpperCase())).toEqual(b);
      }),
    );
  });

  it('rejects odd length and non-hex characters with null', () => {
    expect(fromHex('abc')).toBeNull();
    expect(fromHex('zz')).toBeNull();
    expect(fromHex('0g')).toBeNull();
    expect(fromHex(' 0')).toBeNull();
    expect(fromHex('')).toEqual(new Uint8Array(0));
    expect(fromHex(12 as unknown as string)).toBeNull();
  });

  it('isLowerHex checks case and length', () => {
    expect(isLowerHex('00ff')).toBe(true);
    expect(isLowerHex('00FF')).toBe(false);
    expect(isLowerHex('00ff', 4)).toBe(true);
    expect(isLowerHex('00ff', 6)).toBe(false);
    expect(isLowerHex('')).toBe(false);
    expect(isLowerHex(null)).toBe(false);
  });
});

describe('base64', () => {
  it('encodes like Buffer and decodes Buffer output, padded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const s = toBase64(b);
        expect(s).toBe(buf(b).toString('base64'));
        expect(fromBase64(s)).toEqual(b);
        expect(fromBase64(s.replace(/=+$/, ''))).toEqual(b);
      }),
    );
  });

  it('rejects invalid characters, broken padding and a lone final character', () => {
    for (const bad of ['QQ=', 'Q===', '====', 'QQ=A', 'Q', 'QUJDR', 'QU JD', 'QUJ\n', 'QQ-_', 'QUJD!', 'Zg==Zg==', 'é===']) {
      expect(fromBase64(bad), bad).toBeNull();
    }
  });

  it('rejects non-zero unused bits (one canonical text per byte string)', () => {
    expect(fromBase64('QQ==')).toEqual(Uint8Array.from([0x41]));
    expect(fromBase64('QR==')).toBeNull();
    expect(fromBase64('QUI=')).toEqual(Uint8Array.from([0x41, 0x42]));
    expect(fromBase64('QUJ=')).toBeNull();
  });
});

describe('base64url', () => {
  it('encodes like Buffer (no padding) and decodes with or without padding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const s = toBase64Url(b);
        expect(s).toBe(buf(b).toString('base64url'));
        expect(fromBase64Url(s)).toEqual(b);
        const padded = s + '='.repeat((4 - (s.length % 4)) % 4);
        expect(fromBase64Url(padded)).toEqual(b);
      }),
    );
  });

  it('rejects the standard alphabet and other characters', () => {
    expect(fromBase64Url('-_8')).toEqual(Uint8Array.from([0xfb, 0xff]));
    expect(fromBase64Url('+/8')).toBeNull();
    expect(fromBase64Url('ab c')).toBeNull();
    expect(fromBase64Url('a')).toBeNull();
  });

  it('decodes whatever Buffer decodes from random alphabet text, when canonical', () => {
    const ch = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split(''));
    fc.assert(
      fc.property(fc.array(ch, { maxLength: 40 }), (arr) => {
        const s = arr.join('');
        const ours = fromBase64Url(s);
        const theirs = Buffer.from(s, 'base64url');
        if (ours === null) {
          // only refused when a lone char remains or unused bits are set
          expect(s.length % 4 === 1 || Buffer.from(theirs).toString('base64url') !== s).toBe(true);
        } else {
          expect(buf(ours).equals(theirs)).toBe(true);
        }
      }),
    );
  });
});
