// Runs ON XS (build/sim/xsim --standalone): the hotspots with the C through
// __native and with the TypeScript fallbacks, side by side in one run. Prints
// one JSON object per line for bench/run.mjs.

import { sha256Fallback, sha256Native, type NativeSha256, type Sha256Api } from '../../modules/sha256/sha256.ts';
import { vecdotFallback, vecdotNative, type NativeVecdot, type VecdotApi } from '../../modules/vecdot/vecdot.ts';

declare const __sim: { print(text: string): void; monoMs(): number; gc(): void };
declare const __native: NativeVecdot & NativeSha256;

let seed = 0x9e3779b9;
function rnd(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

function matrix(rows: number, dims: number) {
  const m = new Int8Array(rows * dims);
  for (let i = 0; i < m.length; i += 4) {
    const r = rnd();
    m[i] = r;
    m[i + 1] = r >> 8;
    m[i + 2] = r >> 16;
    m[i + 3] = r >> 24;
  }
  const norms = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = r * dims, end = j + dims; j < end; j++) s += m[j]! * m[j]!;
    norms[r] = Math.sqrt(s);
  }
  return { m, norms };
}

function query(dims: number) {
  const q = new Int8Array(dims);
  let s = 0;
  for (let j = 0; j < dims; j++) {
    q[j] = rnd();
    s += q[j]! * q[j]!;
  }
  return { q, qnorm: Math.fround(Math.sqrt(s)) };
}

function searchMs(api: VecdotApi, rows: number, dims: number, reps: number): { best: number; median: number } {
  const { m, norms } = matrix(rows, dims);
  const idx = new Int32Array(5);
  const score = new Float32Array(5);
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const { q, qnorm } = query(dims);
    const t0 = __sim.monoMs();
    api.topk(m, rows, dims, norms, q, qnorm, 5, idx, score);
    times.push(__sim.monoMs() - t0);
  }
  times.sort((a, b) => a - b);
  return { best: times[0]!, median: times[times.length >> 1]! };
}

function shaMBps(api: Sha256Api, bytes: Uint8Array, reps: number): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const h = api.create();
    const t0 = __sim.monoMs();
    for (let o = 0; o < bytes.length; o += 65536) h.update(bytes.subarray(o, Math.min(bytes.length, o + 65536)));
    h.digest();
    best = Math.min(best, __sim.monoMs() - t0);
  }
  return bytes.length / 1e6 / (best / 1000);
}

const emit = (o: Record<string, unknown>): void => __sim.print(JSON.stringify(o));

const C = vecdotNative(__native);
emit({ what: 'vec-c-6000', ...searchMs(C, 6000, 256, 200) });
emit({ what: 'vec-c-60000', ...searchMs(C, 60000, 256, 60) });
emit({ what: 'vec-ts-6000', ...searchMs(vecdotFallback, 6000, 256, 3) });

const image = new Uint8Array(6.5 * 1024 * 1024);
for (let i = 0; i < image.length; i += 4) {
  const r = rnd();
  image[i] = r;
  image[i + 1] = r >> 8;
  image[i + 2] = r >> 16;
  image[i + 3] = r >> 24;
}
emit({ what: 'sha-c', mbps: shaMBps(sha256Native(__native), image, 5) });
emit({ what: 'sha-ts', mbps: shaMBps(sha256Fallback, image.subarray(0, 1024 * 1024), 1) });
