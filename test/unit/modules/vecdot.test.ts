// vecdot fallback (modules/vecdot/vecdot.ts) against a straightforward
// reference: random and edge inputs (empty, odd lengths, -128 everywhere,
// zero norms, ties, k > rows, wrap past 2^31). The C implementation is
// checked against this fallback, bit for bit, through the simulator in
// test/e2e/hotspots.test.ts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  hasNativeVecdot,
  quantize,
  vecdotFallback,
  vecdotNative,
} from '../../../modules/vecdot/vecdot.ts';
import type { NativeVecdot } from '../../../modules/vecdot/vecdot.ts';

const api = vecdotFallback;

function refDot(a: Int8Array, b: Int8Array): number {
  let s = 0n;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += BigInt(a[i]! * b[i]!);
  return Number(BigInt.asIntN(32, s));
}

/** Every kept row scored, sorted by score descending then index; the first k. */
function refTopk(
  m: Int8Array,
  rows: number,
  dims: number,
  norms: Float32Array,
  q: Int8Array,
  qnorm: number,
  k: number,
): Array<[number, number]> {
  if (qnorm === 0 || Number.isNaN(qnorm)) return [];
  const all: Array<[number, number]> = [];
  for (let r = 0; r < rows; r++) {
    if (norms[r] === 0) continue;
    const d = refDot(m.subarray(r * dims, (r + 1) * dims), q.subarray(0, dims));
    const s = Math.fround(d / (norms[r]! * qnorm));
    if (Number.isNaN(s)) continue;
    all.push([r, s]);
  }
  all.sort((x, y) => (y[1] !== x[1] ? y[1] - x[1] : x[0] - y[0]));
  return all.slice(0, k);
}

function runTopk(
  m: Int8Array,
  rows: number,
  dims: number,
  norms: Float32Array,
  q: Int8Array,
  qnorm: number,
  k: number,
): Array<[number, number]> {
  const idx = new Int32Array(k).fill(-7);
  const score = new Float32Array(k).fill(-7);
  const n = api.topk(m, rows, dims, norms, q, qnorm, k, idx, score);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) out.push([idx[i]!, score[i]!]);
  // entries past the count are untouched
  for (let i = n; i < k; i++) {
    expect(idx[i]).toBe(-7);
    expect(score[i]).toBe(-7);
  }
  return out;
}

function norm(v: Int8Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.fround(Math.sqrt(s));
}

function normsOf(m: Int8Array, rows: number, dims: number): Float32Array {
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) out[r] = norm(m.subarray(r * dims, (r + 1) * dims));
  return out;
}

/** Bit pattern of a float32, so that -0 and +0 and NaNs are told apart. */
function bits(x: number): number {
  const f = new Float32Array([x]);
  return new Uint32Array(f.buffer)[0]!;
}

function expectSame(got: Array<[number, number]>, want: Array<[number, number]>): void {
  expect(got.map(([i, s]) => [i, bits(s)])).toEqual(want.map(([i, s]) => [i, bits(s)]));
}

describe('vecdotFallback.dot', () => {
  it('is not native', () => {
    expect(api.native).toBe(false);
  });

  it('is 0 for empty input and uses the shorter length', () => {
    expect(api.dot(new Int8Array(0), new Int8Array(0))).toBe(0);
    expect(api.dot(new Int8Array([3, 4, 5]), new Int8Array([2, -1]))).toBe(2);
    expect(api.dot(new Int8Array([2, -1]), new Int8Array([3, 4, 5]))).toBe(2);
  });

  it('matches the reference on random vectors of odd lengths', () => {
    fc.assert(
      fc.property(fc.int8Array({ maxLength: 300 }), fc.int8Array({ maxLength: 300 }), (a, b) => {
        expect(api.dot(a, b)).toBe(refDot(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('is exact with -128 everywhere and wraps modulo 2^32 like the C int32', () => {
    for (const n of [1, 7, 255, 256, 257, 131071, 131072, 131073, 300001]) {
      const a = new Int8Array(n).fill(-128);
      expect(api.dot(a, a), `n=${n}`).toBe(refDot(a, a));
    }
    const a = new Int8Array(131072).fill(-128);
    expect(api.dot(a, a)).toBe(-2147483648); // 2^31 wraps to INT32_MIN
  });
});

describe('vecdotFallback.topk', () => {
  it('matches the reference on random matrices, with zero norms', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 37 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (rows, dims, k, seed) => {
          let s = seed >>> 0;
          const rnd = (): number => {
            s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
            return s >>> 24;
          };
          const m = new Int8Array(rows * dims).map(() => rnd() - 128);
          const q = new Int8Array(dims).map(() => rnd() - 128);
          const norms = normsOf(m, rows, dims);
          for (let r = 0; r < rows; r += 5) norms[r] = 0;
          const qn = norm(q);
          expectSame(runTopk(m, rows, dims, norms, q, qn, k), refTopk(m, rows, dims, norms, q, qn, k));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('breaks ties by the lower row index, keeping the first rows among equals', () => {
    const dims = 4;
    const row = [1, 2, 3, 4];
    const other = [-1, 0, 1, 0];
    const layout = [other, row, row, other, row, row, row];
    const m = Int8Array.from(layout.flat());
    const norms = normsOf(m, layout.length, dims);
    const q = Int8Array.from(row);
    const got = runTopk(m, layout.length, dims, norms, q, norm(q), 3);
    expect(got.map(([i]) => i)).toEqual([1, 2, 4]);
    expect(got[0]![1]).toBe(got[2]![1]);
    expectSame(got, refTopk(m, layout.length, dims, norms, q, norm(q), 3));
  });

  it('returns at most rows results when k > rows, and skips zero-norm rows', () => {
    const m = Int8Array.from([1, 0, 0, 1, -1, 0, 1, 1]);
    const norms = normsOf(m, 4, 2);
    norms[1] = 0;
    const q = Int8Array.from([1, 0]);
    const got = runTopk(m, 4, 2, norms, q, norm(q), 10);
    expect(got.map(([i]) => i)).toEqual([0, 3, 2]);
    expect(got[0]![1]).toBe(1);
    expect(got[2]![1]).toBe(-1);
    // an all-zero row has norm 0 and is skipped too
    const z = Int8Array.from([0, 0, 2, 0]);
    expect(runTopk(z, 2, 2, normsOf(z, 2, 2), q, norm(q), 5)).toEqual([[1, 1]]);
  });

  it('is exact with -128 everywhere (all scores equal)', () => {
    const rows = 9;
    const dims = 33;
    const m = new Int8Array(rows * dims).fill(-128);
    const q = new Int8Array(dims).fill(-128);
    const norms = normsOf(m, rows, dims);
    const got = runTopk(m, rows, dims, norms, q, norm(q), 4);
    expect(got.map(([i]) => i)).toEqual([0, 1, 2, 3]);
    expectSame(got, refTopk(m, rows, dims, norms, q, norm(q), 4));
  });

  it('returns 0 for k = 0, no rows, dims = 0, or a zero or NaN qnorm', () => {
    const m = Int8Array.from([1, 2, 3, 4]);
    const norms = normsOf(m, 2, 2);
    const q = Int8Array.from([1, 1]);
    const idx = new Int32Array(4);
    const sc = new Float32Array(4);
    expect(api.topk(m, 2, 2, norms, q, norm(q), 0, idx, sc)).toBe(0);
    expect(api.topk(m, 0, 2, norms, q, norm(q), 4, idx, sc)).toBe(0);
    expect(api.topk(m, 2, 2, norms, q, 0, 4, idx, sc)).toBe(0);
    expect(api.topk(m, 2, 2, norms, q, NaN, 4, idx, sc)).toBe(0);
    // dims = 0: every dot is 0, every score 0, rows kept in order
    expect(api.topk(m, 2, 0, norms, q, 1, 4, idx, sc)).toBe(2);
    expect([...idx.subarray(0, 2)]).toEqual([0, 1]);
  });

  it('throws RangeError on short arrays or negative sizes', () => {
    const m = new Int8Array(12);
    const norms = new Float32Array(3).fill(1);
    const q = new Int8Array(4);
    const idx = new Int32Array(2);
    const sc = new Float32Array(2);
    expect(() => api.topk(m, 4, 4, norms, q, 1, 2, idx, sc)).toThrow(RangeError); // matrix
    expect(() => api.topk(m, 3, 4, norms.subarray(0, 2), q, 1, 2, idx, sc)).toThrow(RangeError);
    expect(() => api.topk(m, 3, 4, norms, q.subarray(0, 3), 1, 2, idx, sc)).toThrow(RangeError);
    expect(() => api.topk(m, 3, 4, norms, q, 1, 3, idx, sc)).toThrow(RangeError); // out
    expect(() => api.topk(m, 3, 4, norms, q, 1, 2, idx, sc.subarray(0, 1))).toThrow(RangeError);
    expect(() => api.topk(m, -1, 4, norms, q, 1, 2, idx, sc)).toThrow(RangeError);
    expect(api.topk(m, 3, 4, norms, q, 1, 2, idx, sc)).toBe(2);
  });

  it('gives the same results on aligned (packed reads) and unaligned views', () => {
    for (const dims of [4, 8, 12, 256]) {
      const rows = 50;
      const a = new Int8Array(rows * dims + 1);
      for (let i = 0; i < a.length; i++) a[i] = (i * 2654435761) >>> 24;
      const aligned = Int8Array.from(a.subarray(1));
      const unaligned = a.subarray(1);
      const qb = new Int8Array(dims + 1);
      for (let i = 0; i < qb.length; i++) qb[i] = (i * 40503) >>> 8;
      const q = Int8Array.from(qb.subarray(1));
      const norms = normsOf(aligned, rows, dims);
      const want = refTopk(aligned, rows, dims, norms, q, norm(q), 7);
      expectSame(runTopk(aligned, rows, dims, norms, q, norm(q), 7), want);
      expectSame(runTopk(unaligned, rows, dims, norms, qb.subarray(1), norm(q), 7), want);
      expect(api.dot(unaligned, aligned)).toBe(refDot(aligned, aligned));
      expect(api.dot(aligned, aligned)).toBe(refDot(aligned, aligned));
    }
  });

  it('reads views at an offset', () => {
    const base = new Int8Array(64).fill(99);
    const m = base.subarray(8, 8 + 6);
    m.set([1, 0, 0, 1, 1, 1]);
    const fb = new Float32Array(8).fill(123);
    const norms = fb.subarray(2, 5);
    norms.set(normsOf(m, 3, 2));
    const q = base.subarray(40, 42);
    q.set([0, 3]);
    const got = runTopk(m, 3, 2, norms, q, norm(q), 2);
    expect(got.map(([i]) => i)).toEqual([1, 2]);
  });
});

describe('quantize', () => {
  it('maps the largest magnitude to +-127 and gives the int8 L2 norm as float32', () => {
    const { q, norm: n } = quantize([0.5, -1, 0.25, 0]);
    expect([...q]).toEqual([64, -127, 32, 0]);
    expect(n).toBe(Math.fround(Math.sqrt(64 * 64 + 127 * 127 + 32 * 32)));
  });

  it('gives zeros and norm 0 for a zero vector, and treats non-finite entries as 0', () => {
    expect(quantize(new Float32Array(5))).toEqual({ q: new Int8Array(5), norm: 0 });
    const { q } = quantize([NaN, Infinity, 2, -Infinity, -1]);
    expect([...q]).toEqual([0, 0, 127, 0, -64]);
  });

  it('writes into out (or its prefix) and rejects a short out', () => {
    const out = new Int8Array(6).fill(5);
    const r = quantize(new Float32Array([1, -1, 0.5]), out);
    expect(r.q.buffer).toBe(out.buffer);
    expect([...r.q]).toEqual([127, -127, 64]);
    expect(out[3]).toBe(5);
    expect(() => quantize([1, 2, 3], new Int8Array(2))).toThrow(RangeError);
  });

  it('keeps values within [-127, 127] and the cosine of a vector with itself near 1', () => {
    fc.assert(
      fc.property(fc.float32Array({ minLength: 1, maxLength: 64, noNaN: true }), (v) => {
        const { q, norm: n } = quantize(v);
        for (const x of q) expect(Math.abs(x)).toBeLessThanOrEqual(127);
        if (n > 0) {
          const idx = new Int32Array(1);
          const sc = new Float32Array(1);
          expect(api.topk(q, 1, q.length, Float32Array.of(n), q, n, 1, idx, sc)).toBe(1);
          expect(Math.abs(sc[0]! - 1)).toBeLessThan(1e-6);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('vecdotNative', () => {
  it('forwards to the __native functions with the same arguments', () => {
    const calls: unknown[][] = [];
    const n: NativeVecdot = {
      vecdotDot: (...args) => (calls.push(['dot', ...args]), 42),
      vecdotTopk: (...args) => (calls.push(['topk', ...args.slice(1, 7)]), 3),
    };
    expect(hasNativeVecdot(n)).toBe(true);
    expect(hasNativeVecdot({ vecdotDot: () => 0 })).toBe(false);
    const v = vecdotNative(n);
    expect(v.native).toBe(true);
    const a = new Int8Array(2);
    expect(v.dot(a, a)).toBe(42);
    expect(v.topk(a, 1, 2, new Float32Array(1), a, 1.5, 5, new Int32Array(5), new Float32Array(5))).toBe(3);
    expect(calls[0]).toEqual(['dot', a, a]);
    expect(calls[1]).toEqual(['topk', 1, 2, new Float32Array(1), a, 1.5, 5]);
  });
});
