import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPlainObject, parseJson, stableStringify } from '../../../src/util/json.ts';

describe('parseJson', () => {
  it('returns the value on success', () => {
    expect(parseJson('{"a":[1,2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(parseJson('null')).toEqual({ ok: true, value: null });
  });

  it('returns the parser message on failure', () => {
    for (const bad of ['', '{', '{"a":}', 'nul', "{'a':1}", '[1,]']) {
      let msg = '';
      try {
        JSON.parse(bad);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(parseJson(bad)).toEqual({ ok: false, error: msg });
    }
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        const r = parseJson(v);
        expect(typeof r.ok).toBe('boolean');
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = parseJson(s);
        if (!r.ok) expect(typeof r.error).toBe('string');
      }),
    );
    expect(parseJson(undefined)).toEqual({ ok: false, error: 'input is not a string' });
  });
});

describe('stableStringify', () => {
  it('sorts keys so equal values give equal text', () => {
    expect(stableStringify({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('parses back to the same value as JSON.stringify for JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(stableStringify(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });

  it('follows JSON.stringify for undefined, functions and non-finite numbers', () => {
    expect(stableStringify({ a: undefined, b: () => 1, c: Number.NaN, d: [undefined, Infinity] })).toBe(
      '{"c":null,"d":[null,null]}',
    );
    expect(stableStringify(undefined)).toBe('null');
  });

  it('throws on a cycle', () => {
    const o: Record<string, unknown> = {};
    o.self = o;
    expect(() => stableStringify(o)).toThrow(TypeError);
  });
});

describe('isPlainObject', () => {
  it('accepts objects only', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject('x')).toBe(false);
  });
});
