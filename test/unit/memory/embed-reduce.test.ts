// The dims reduction (src/memory/embed-reduce.ts): fixed forever (a stored
// vector reduced today must match a query reduced after an update), unit
// length, and preserving cosine similarity in expectation: on 2000 pairs of
// dense random unit vectors of 1024 numbers (as mistral-embed answers) with
// cosines from -0.3 to 0.95, reduced to 256, the mean error is about zero and
// its spread what a random projection's is (about (1 - cos^2) / sqrt(256) for
// the cosine of normalized vectors: 0.06 at most, near 0 for near-duplicates);
// on the emulator's word-hashed vectors a query's nearest memory stays the
// same. The test prints the figures it measured.
import { describe, expect, it } from 'vitest';
import { emulatedVector } from '../../../tools/embedding-fake.mjs';
import { reduceVector } from '../../../src/memory/embed-reduce.ts';

/** A seeded uniform generator (mulberry32), so the figures are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-300)) * Math.cos(2 * Math.PI * r());
}

const unit = (v: number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

describe('the dims reduction', () => {
  it('is fixed: the same input gives the same numbers on every run and every version (pinned), at unit length', () => {
    const v = Array.from({ length: 1024 }, (_, j) => Math.sin(j * 0.37) + 0.01 * j);
    const a = reduceVector(v, 256);
    expect(Array.from(a)).toEqual(Array.from(reduceVector(v, 256)));
    expect(dot(a, a)).toBeCloseTo(1, 5);
    // Pinned: a change of seed or hash changes these and so the meaning of every stored reduced vector.
    expect(Array.from(a.subarray(0, 4)).map((x) => Number(x.toFixed(6)))).toEqual(PINNED);
    expect(Array.from(reduceVector(new Array(1024).fill(0), 64))).toEqual(new Array(64).fill(0));
  });

  it('preserves cosine similarity in expectation on dense 1024-number vectors reduced to 256, as well as a dense random projection does', () => {
    const r = rng(42);
    const errs: number[] = [];
    const denseErrs: number[] = [];
    // The side-by-side reference: a dense projection by a seeded random +-1 matrix (256 x 1024).
    const rm = rng(7);
    const matrix = Array.from({ length: 256 }, () => Array.from({ length: 1024 }, () => (rm() < 0.5 ? -1 : 1)));
    const dense = (v: number[]): number[] => unit(matrix.map((row) => dot(row, v)));
    for (let k = 0; k < 2000; k++) {
      const target = -0.3 + (1.25 * k) / 2000;
      const x = unit(Array.from({ length: 1024 }, () => gaussian(r)));
      const noise = unit(Array.from({ length: 1024 }, () => gaussian(r)));
      // y = target * x + sqrt(1 - target^2) * (noise orthogonalised to x)
      const d = dot(noise, x);
      const ortho = unit(noise.map((n, i) => n - d * x[i]!));
      const y = x.map((xi, i) => target * xi + Math.sqrt(1 - target * target) * ortho[i]!);
      errs.push(dot(reduceVector(x, 256), reduceVector(y, 256)) - dot(x, y));
      denseErrs.push(dot(dense(x), dense(y)) - dot(x, y));
    }
    const figures = (e: number[]) => ({
      mean: e.reduce((s, x) => s + x, 0) / e.length,
      rms: Math.sqrt(e.reduce((s, x) => s + x * x, 0) / e.length),
      worst: Math.max(...e.map(Math.abs)),
    });
    const sketch = figures(errs);
    const ref = figures(denseErrs);
    const show = (f: typeof sketch): string => `mean error ${f.mean.toFixed(4)}, rms ${f.rms.toFixed(4)}, worst ${f.worst.toFixed(4)}`;
    console.info(`dims reduction 1024 -> 256 on 2000 pairs: count sketch ${show(sketch)}; dense +-1 projection ${show(ref)}`);
    expect(Math.abs(sketch.mean)).toBeLessThan(0.01);
    expect(sketch.rms).toBeGreaterThan(0.03);
    expect(sketch.rms).toBeLessThan(0.07);
    expect(sketch.rms).toBeLessThan(ref.rms * 1.15);
  });

  it("keeps each query's nearest memory on the emulator's mistral-embed vectors", () => {
    const memories = ['the spare tyre is in the garage', 'my sister Eva has her birthday on the third of May', 'the umbrella hangs by the front door', 'the boiler was serviced in March', 'the wifi password is on the fridge', 'my dentist appointment is next Tuesday'];
    const queries = ['where is the umbrella?', 'when is Eva her birthday', 'spare tyre location', 'boiler service', 'what is the wifi password', 'dentist'];
    const wide = (t: string): number[] => emulatedVector(t, 1024, 'mistral-embed');
    const nearest = (q: ArrayLike<number>, ms: Array<ArrayLike<number>>): number => {
      const s = ms.map((m) => dot(q, m));
      return s.indexOf(Math.max(...s));
    };
    const full = queries.map((q) => nearest(wide(q), memories.map(wide)));
    const reduced = queries.map((q) => nearest(reduceVector(wide(q), 256), memories.map((m) => reduceVector(wide(m), 256))));
    expect(full).toEqual([2, 1, 0, 3, 4, 5]);
    expect(reduced).toEqual(full);
  });
});

const PINNED = [-0.025257, 0.094569, -0.007794, 0.012932];
