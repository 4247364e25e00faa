// Benchmark ON XS of the SHA-256 hotspot: the C through __native, the
// TypeScript fallback and @noble/hashes. Run from the repository root:
//   node modules/vecdot/test/xs-bench.mjs modules/sha256/test/xs-bench.ts
import { sha256 as noble } from '@noble/hashes/sha2.js';
import { sha256, sha256Fallback, sha256Native } from '../sha256.ts';
import type { NativeSha256 } from '../sha256.ts';

declare const __sim: { print(text: string): void; monoMs(): number };
declare const __native: NativeSha256;

const image = new Uint8Array(6815744); // 6.5 MB
for (let i = 0; i < image.length; i++) image[i] = (i * 2654435761) >>> 24;
const small = image.subarray(0, 1 << 20); // 1 MB for the pure-JS ones

function mbps(bytes: Uint8Array, reps: number, f: (b: Uint8Array) => Uint8Array): string {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = __sim.monoMs();
    f(bytes);
    const t = __sim.monoMs() - t0;
    if (t < best) best = t;
  }
  return `${(bytes.length / (best / 1000) / 1e6).toFixed(2)} MB/s (${best.toFixed(2)} ms for ${(bytes.length / 1048576).toFixed(1)} MiB)`;
}

const C = sha256Native(__native);
__sim.print(`C via __native, 6.5 MB: ${mbps(image, 20, (b) => sha256(C, b))}`);
__sim.print(`TS fallback on XS: ${mbps(small, 3, (b) => sha256(sha256Fallback, b))}`);
__sim.print(`@noble/hashes on XS: ${mbps(small, 3, (b) => noble(b))}`);
{
  const n = 20000;
  const h = C.create();
  const tiny = image.subarray(0, 32);
  const t0 = __sim.monoMs();
  for (let i = 0; i < n; i++) h.update(tiny);
  __sim.print(`C update of 32 bytes from XS: ${(((__sim.monoMs() - t0) / n) * 1000).toFixed(2)} us per call`);
}
