// Runs ON XS (build/sim/xsim --standalone): UTF-8 encode and decode with the
// C through __native and with the TypeScript fallback, side by side in one
// run, on a 140-byte ASCII HTTP head and on 16 KB of mixed text. Prints one
// JSON object per line ({what, c, ts} in microseconds per call, the best of
// several rounds) for bench/run.mjs.
//   npx esbuild bench/xs/utf8.ts --bundle --format=iife --target=es2022 \
//     --supported:class-field=false --outfile=/tmp/utf8.js && build/sim/xsim --standalone /tmp/utf8.js

import { hasNativeUtf8, utf8Fallback, utf8Native, type Utf8Api } from '../../modules/utf8/utf8.ts';

declare const __sim: { print(text: string): void; monoMs(): number; gc(): void };
declare const __native: unknown;

/** Microseconds per call of f, the best round of `rounds` rounds of `reps` calls. */
function usPerCall(f: () => unknown, reps: number, rounds = 5): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    __sim.gc();
    const t0 = __sim.monoMs();
    for (let i = 0; i < reps; i++) f();
    const us = ((__sim.monoMs() - t0) * 1000) / reps;
    if (us < best) best = us;
  }
  return best;
}

// 140 bytes, like the requests bench/xs/http.ts sends.
const head =
  'GET /api/state HTTP/1.1\r\nHost: 192.168.1.50\r\nUser-Agent: desk-cli/1.0\r\nAccept: */*\r\nX-Req: 123\r\nX-Device-Token: 0123456789abcdef01234567\r\n\r\n';

// 16 KB of mixed text: mostly ASCII words with accented letters, symbols and emoji.
let seed = 0x1234567;
const rnd = (): number => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
};
const words = ['the', 'desk', 'assistant', 'café', 'naïve', 'Größe', '€12', 'ok 👍', 'π≈3.14', '日本語', 'über', 'done ✅', 'JSON', 'memory'];
const parts: string[] = [];
let bytes = 0;
while (bytes < 16 * 1024) {
  const w = words[rnd() % words.length]!;
  parts.push(w, rnd() % 8 === 0 ? '\n' : ' ');
  bytes += utf8Fallback.length(w) + 1;
}
const mixed = parts.join('');

const print = (obj: unknown): void => __sim.print(JSON.stringify(obj));

if (!hasNativeUtf8(__native)) {
  print({ what: 'utf8-missing' });
} else {
  const C = utf8Native(__native);
  const T = utf8Fallback;
  const row = (what: string, text: string, reps: number): void => {
    const b = T.encode(text);
    const run = (api: Utf8Api, op: 'encode' | 'decode'): number =>
      op === 'encode' ? usPerCall(() => api.encode(text), reps) : usPerCall(() => api.decode(b), reps);
    const c = C.decode(b) === T.decode(b) && C.encode(text).length === b.length;
    print({ what: `${what}-encode`, bytes: b.length, c: run(C, 'encode'), ts: run(T, 'encode'), same: c });
    print({ what: `${what}-decode`, bytes: b.length, c: run(C, 'decode'), ts: run(T, 'decode'), same: c });
    print({ what: `${what}-length`, bytes: b.length, c: usPerCall(() => C.length(text), reps), ts: usPerCall(() => T.length(text), reps) });
  };
  row('utf8-head', head, 2000);
  row('utf8-16k', mixed, 20);
}
