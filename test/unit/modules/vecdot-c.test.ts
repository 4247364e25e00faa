// The C of modules/vecdot built with this machine's compiler in each of its two
// implementations (vecdot.h: VECDOT_SIMD 1, the simulator's vectorized loops;
// VECDOT_SIMD 0, the device cores' scalar loops and the top-k that skips the
// scoring of rows below the k-th best), against the TypeScript fallback, bit
// for bit, on random data: rows at odd addresses, dims that are not a
// multiple of 4, 8 or 16, scores packed around the k-th best (where the
// scalar top-k's integer bar decides), norms that are not positive normal
// floats, query norms at and past the ends of the range the bar trusts, and
// k-th best scores of zero or below. The driver is modules/vecdot/test/cases.c.
// The simulator's own build of the same C is compared on XS in
// test/e2e/hotspots.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vecdotFallback } from '../../../modules/vecdot/vecdot.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CC = process.env['CC'] || 'cc';
const dir = mkdtempSync(join(tmpdir(), 'vecdot-c-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUILDS = { simd: ['-DVECDOT_SIMD=1'], scalar: ['-DVECDOT_SIMD=0'] } as const;
type Build = keyof typeof BUILDS;

beforeAll(() => {
  for (const [name, flags] of Object.entries(BUILDS)) {
    execFileSync(CC, [
      '-std=c99', '-O2', '-Wall', '-Wextra', '-Werror', '-pedantic', ...flags,
      '-o', join(dir, name),
      join(ROOT, 'modules/vecdot/test/cases.c'), join(ROOT, 'modules/vecdot/vecdot.c'),
    ]);
  }
});

interface TopkCase {
  rows: number;
  dims: number;
  k: number;
  skew: number;
  qnorm: number;
  m: Int8Array;
  q: Int8Array;
  norms: Float32Array;
}
interface DotCase {
  skew: number;
  a: Int8Array;
  b: Int8Array;
}
type Case = ({ kind: 'topk' } & TopkCase) | ({ kind: 'dot' } & DotCase);

/** Runs the cases through one build of the driver; one output line per case. */
function runC(build: Build, cases: Case[]): string[] {
  const parts: Uint8Array[] = [];
  const u32 = (...v: number[]) => parts.push(new Uint8Array(Uint32Array.from(v).buffer));
  const bytes = (a: Int8Array) => parts.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  for (const c of cases) {
    if (c.kind === 'topk') {
      u32(1, c.rows, c.dims, c.k, c.skew);
      parts.push(new Uint8Array(Float64Array.of(c.qnorm).buffer));
      bytes(c.m);
      bytes(c.q);
      parts.push(new Uint8Array(c.norms.slice().buffer));
    } else {
      u32(2, c.a.length, c.skew);
      bytes(c.a);
      bytes(c.b);
    }
  }
  const input = Buffer.concat(parts);
  const out = execFileSync(join(dir, build), { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  return out.trimEnd().split('\n');
}

/** The fallback's answer in the driver's format. */
function runTs(c: Case): string {
  if (c.kind === 'dot') return String(vecdotFallback.dot(c.a, c.b));
  const idx = new Int32Array(c.k);
  const score = new Float32Array(c.k);
  const n = vecdotFallback.topk(c.m, c.rows, c.dims, c.norms, c.q, c.qnorm, c.k, idx, score);
  const bits = new Uint32Array(score.buffer);
  let line = String(n);
  for (let i = 0; i < n; i++) line += ` ${idx[i]}:${bits[i]!.toString(16).padStart(8, '0')}`;
  return line;
}

let seed = 0x2545f491;
function rnd(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}
const below = (n: number): number => rnd() % n;

type Mode = 'random' | 'min' | 'ternary' | 'extremes';
function bytesOf(n: number, mode: Mode): Int8Array {
  const a = new Int8Array(n);
  for (let i = 0; i < n; i++) {
    if (mode === 'random') a[i] = rnd() & 0xff;
    else if (mode === 'min') a[i] = -128;
    else if (mode === 'ternary') a[i] = below(3) - 1;
    else a[i] = rnd() & 1 ? 127 : -128;
  }
  return a;
}

function dotOf(m: Int8Array, off: number, q: Int8Array, n: number): number {
  let s = 0;
  for (let j = 0; j < n; j++) s += m[off + j]! * q[j]!;
  return s | 0;
}
const normOf = (v: Int8Array, off: number, n: number): number => {
  let s = 0;
  for (let j = 0; j < n; j++) s += v[off + j]! * v[off + j]!;
  return Math.fround(Math.sqrt(s));
};

function topkCase(rows: number, dims: number, k: number, mode: Mode, setNorms?: (c: TopkCase) => void, qnorm?: number): Case {
  const m = bytesOf(rows * dims, mode);
  const q = bytesOf(dims, mode);
  const norms = new Float32Array(rows);
  const c: TopkCase = { rows, dims, k, skew: below(4), qnorm: qnorm ?? normOf(q, 0, dims), m, q, norms };
  for (let r = 0; r < rows; r++) norms[r] = below(7) === 0 ? 0 : normOf(m, r * dims, dims);
  setNorms?.(c);
  return { kind: 'topk', ...c };
}

/** Norms that put every positive-dot row's score near `score`, within a relative 2^-spread. */
const packed = (score: number, spread: number) => (c: TopkCase): void => {
  for (let r = 0; r < c.rows; r++) {
    const d = dotOf(c.m, r * c.dims, c.q, c.dims);
    const step = ((below(2001) - 1000) / 1000) * 2 ** -spread;
    c.norms[r] = d > 0 ? (d / (c.qnorm * score)) * (1 + step) : below(5000);
  }
};

const odd = (c: TopkCase): void => {
  const special = [NaN, Infinity, -Infinity, -0, 1e-40, 1.1754943508222875e-38, 3.4028234663852886e38, 1e-30];
  for (let r = 0; r < c.rows; r++) {
    const w = below(12);
    if (w < special.length) c.norms[r] = special[w]!;
    else if (w === special.length) c.norms[r] = -c.norms[r]!;
  }
};

function cases(): Case[] {
  const out: Case[] = [];
  const modes: Mode[] = ['random', 'min', 'ternary', 'extremes'];
  for (let t = 0; t < 160; t++) {
    const dims = t % 8 === 0 ? [255, 256, 257, 513, 1100][below(5)]! : below(70);
    const rows = below(300);
    const k = t % 13 === 0 ? rows + 3 : 1 + below(40);
    out.push(topkCase(rows, dims, k, modes[t % 4]!));
  }
  for (let t = 0; t < 40; t++) {
    out.push(topkCase(200 + below(600), 1 + below(300), 1 + below(30), 'random', packed([1e-3, 0.3, 2.5][t % 3]!, 10 + (t % 16))));
  }
  const qnorms = [2 ** -100, 2 ** -100 * (1 - 2 ** -53), 2 ** 100, 2 ** 100 * (1 + 2 ** -52), 1e-300, 1e300, 5e-324, -1500, Infinity, 0.37];
  for (const qnorm of qnorms) out.push(topkCase(100 + below(300), 1 + below(100), 1 + below(20), 'random', odd, qnorm));
  for (let t = 0; t < 10; t++) {
    // rows near minus the query: every score <= 0, so the k-th best is too
    const c = topkCase(100 + below(300), 1 + below(100), 1 + below(20), 'random');
    if (c.kind !== 'topk') throw new Error('unreachable');
    for (let r = 0; r < c.rows; r++) {
      for (let j = 0; j < c.dims; j++) c.m[r * c.dims + j] = r % 5 === 0 ? 0 : Math.max(-128, Math.min(127, -c.q[j]! + below(3) - 1));
      c.norms[r] = c.qnorm * (1 + below(100) / 1000);
    }
    out.push(c);
  }
  {
    // dots near 2^31 (131000 elements of -128 and 127), scores packed: the bar at its largest scale
    const c = topkCase(64, 131000, 5, 'min');
    if (c.kind !== 'topk') throw new Error('unreachable');
    for (let r = 0; r < c.rows; r++) for (let j = 0; j < (r * 37) % 1000; j++) c.m[r * c.dims + below(c.dims)] = 127;
    packed(0.7, 30)(c);
    out.push(c);
  }
  out.push(topkCase(6000, 256, 5, 'random'));
  out.push(topkCase(6000, 256, 5, 'random', packed(0.25, 20)));
  for (let t = 0; t < 60; t++) {
    const n = t < 40 ? below(100) : [255, 256, 257, 4099, 131073][t % 5]!;
    out.push({ kind: 'dot', skew: below(4), a: bytesOf(n, modes[t % 4]!), b: bytesOf(n, modes[t % 4]!) });
  }
  const min = new Int8Array(300001).fill(-128);
  out.push({ kind: 'dot', skew: 1, a: min, b: min });
  return out;
}

describe('modules/vecdot C, both implementations, against the TypeScript fallback', () => {
  const all = cases();
  const want = all.map(runTs);

  for (const build of Object.keys(BUILDS) as Build[]) {
    it(`VECDOT_SIMD ${build === 'simd' ? 1 : 0}: the same counts, rows and score bits on every case`, () => {
      const got = runC(build, all);
      expect(got).toHaveLength(all.length);
      for (let i = 0; i < all.length; i++) expect(got[i], `case ${i}`).toBe(want[i]);
    });
  }

  it('the cases reach the top-k: rows near the k-th best, results of every kind', () => {
    // Many packed cases have rows left out within a relative 2^-12 of the k-th
    // best score (the rows the bar must not skip wrongly); counts are
    // mostly > 0; the 2^31 wrap of the dot is hit.
    let near = 0;
    let nonEmpty = 0;
    for (let i = 0; i < all.length; i++) {
      const c = all[i]!;
      if (c.kind !== 'topk') continue;
      const parts = want[i]!.split(' ');
      if (Number(parts[0]) > 0) nonEmpty++;
      if (Number(parts[0]) < c.k || c.qnorm !== normOf(c.q, 0, c.dims)) continue;
      const kth = new Float32Array(new Uint32Array([parseInt(parts[parts.length - 1]!.split(':')[1]!, 16)]).buffer)[0]!;
      const kept = new Set(parts.slice(1).map((p) => Number(p.split(':')[0])));
      for (let r = 0; r < c.rows; r++) {
        if (kept.has(r) || !(c.norms[r]! > 0)) continue;
        const s = Math.fround(dotOf(c.m, r * c.dims, c.q, c.dims) / (c.norms[r]! * c.qnorm));
        if (kth > 0 && s <= kth && s >= kth * (1 - 2 ** -12)) near++;
      }
    }
    expect(near).toBeGreaterThan(1000);
    expect(nonEmpty).toBeGreaterThan(all.filter((c) => c.kind === 'topk').length / 2);
    expect(want[want.length - 1]).toBe(String(Number(BigInt.asIntN(32, 300001n * 16384n))));
  });
});
