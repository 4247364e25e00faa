// Benchmark ON XS of the vecdot hotspot: the C through __native against the
// TypeScript fallback. Run: node modules/vecdot/test/xs-bench.mjs
import { vecdotFallback, vecdotNative } from '../vecdot.ts';
import type { NativeVecdot, VecdotApi } from '../vecdot.ts';

declare const __sim: { print(text: string): void; monoMs(): number };
declare const __native: NativeVecdot;

let seed = 1;
const rnd = (): number => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
};

function setup(rows: number, dims: number) {
  const m = new Int8Array(rows * dims);
  for (let i = 0; i < m.length; i++) m[i] = rnd() & 0xff;
  const norms = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = 0; j < dims; j++) s += m[r * dims + j]! * m[r * dims + j]!;
    norms[r] = Math.sqrt(s);
  }
  const q = new Int8Array(dims);
  for (let j = 0; j < dims; j++) q[j] = rnd() & 0xff;
  let qs = 0;
  for (let j = 0; j < dims; j++) qs += q[j]! * q[j]!;
  return { m, norms, q, qnorm: Math.fround(Math.sqrt(qs)) };
}

function time(api: VecdotApi, rows: number, dims: number, reps: number): { best: number; mean: number } {
  const { m, norms, q, qnorm } = setup(rows, dims);
  const idx = new Int32Array(5);
  const sc = new Float32Array(5);
  let best = Infinity;
  let total = 0;
  for (let r = 0; r < reps; r++) {
    q[r % dims] ^= 1;
    const t0 = __sim.monoMs();
    api.topk(m, rows, dims, norms, q, qnorm, 5, idx, sc);
    const t = __sim.monoMs() - t0;
    total += t;
    if (t < best) best = t;
  }
  return { best, mean: total / reps };
}

const C = vecdotNative(__native);
const line = (what: string, rows: number, dims: number, r: { best: number; mean: number }): void =>
  __sim.print(
    `${what} top-5 ${rows}x${dims}: best ${r.best.toFixed(4)} ms, mean ${r.mean.toFixed(4)} ms per query, ` +
      `${((rows * dims) / (r.best / 1000) / 1e9).toFixed(1)} GB/s`,
  );
const c6 = time(C, 6000, 256, 200);
line('C via __native', 6000, 256, c6);
const c60 = time(C, 60000, 256, 100);
line('C via __native', 60000, 256, c60);
const t6 = time(vecdotFallback, 6000, 256, 3);
line('TS fallback', 6000, 256, t6);
__sim.print(`fallback / C at 6000x256: ${(t6.best / c6.best).toFixed(0)}x (best), ${(t6.mean / c6.mean).toFixed(0)}x (mean)`);
{
  // call overhead: a 1-element dot
  const a = new Int8Array(1);
  const n = 100000;
  const t0 = __sim.monoMs();
  for (let i = 0; i < n; i++) C.dot(a, a);
  __sim.print(`C dot call overhead from XS: ${(((__sim.monoMs() - t0) / n) * 1000).toFixed(2)} us per call`);
}
