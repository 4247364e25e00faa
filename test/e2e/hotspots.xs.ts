// Runs ON XS (bundled by test/e2e/hotspots.test.ts, run with
// `build/sim/xsim --standalone`): the C hotspots through __native against
// the TypeScript fallbacks, on the same deterministic inputs. Prints one JSON
// line per result; the test compares them in Node (bit patterns of scores,
// indices, digests).
import { vecdotFallback, vecdotNative } from '../../modules/vecdot/vecdot.ts';
import { hasNativeLexical, lexicalFallback, lexicalNative } from '../../modules/lexical/lexical.ts';
import type { NativeVecdot, VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { sha256, sha256Fallback, sha256Native } from '../../modules/sha256/sha256.ts';
import type { NativeSha256, Sha256Api } from '../../modules/sha256/sha256.ts';
import { hasNativeEc, p256Fallback, p256Native } from '../../modules/p256/p256.ts';
import { p256 } from '@noble/curves/nist.js';
import { signedMessage } from '../../src/ota/signed-message.ts';
import { verifySignature } from '../../src/ota/verify.ts';
import { toHex } from '../../src/util/encoding.ts';

declare const __sim: { print(text: string): void };
declare const __native: (NativeVecdot & NativeSha256 & import('../../modules/lexical/lexical.ts').NativeLexical) | undefined;

const out = (obj: unknown): void => __sim.print(JSON.stringify(obj));

if (typeof __native === 'undefined') {
  out({ kind: 'fatal', message: '__native is missing' });
} else {
  run(__native);
}

function run(n: NativeVecdot & NativeSha256 & import('../../modules/lexical/lexical.ts').NativeLexical): void {
  const C = vecdotNative(n);
  const T = vecdotFallback;

  let seed = 0x12345678;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };

  type Mode = 'random' | 'min' | 'ternary' | 'extremes' | 'small';
  const fill = (a: Int8Array, mode: Mode): void => {
    for (let i = 0; i < a.length; i++) {
      switch (mode) {
        case 'random': a[i] = rnd() & 0xff; break;
        case 'min': a[i] = -128; break;
        case 'ternary': a[i] = (rnd() % 3) - 1; break;
        case 'extremes': a[i] = rnd() & 1 ? 127 : -128; break;
        case 'small': a[i] = (rnd() % 5) - 2; break;
      }
    }
  };
  const norm = (a: Int8Array, off: number, len: number): number => {
    let s = 0;
    for (let i = 0; i < len; i++) s += a[off + i]! * a[off + i]!;
    return Math.fround(Math.sqrt(s));
  };
  const f32bits = (f: Float32Array): number[] => Array.from(new Uint32Array(f.buffer, f.byteOffset, f.length));

  // ---- dot ----
  for (const len of [0, 1, 2, 15, 16, 17, 31, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1024, 1500, 4099]) {
    for (const mode of ['random', 'min', 'extremes'] as Mode[]) {
      const a = new Int8Array(len);
      const b = new Int8Array(len + (rnd() % 3));
      fill(a, mode);
      fill(b, mode);
      out({ kind: 'dot', name: `len ${len} ${mode}`, c: C.dot(a, b), t: T.dot(a, b) });
    }
  }
  for (const len of [131071, 131072, 131073, 300001]) {
    const a = new Int8Array(len).fill(-128);
    out({ kind: 'dot', name: `wrap ${len}`, c: C.dot(a, a), t: T.dot(a, a), want: Number(BigInt.asIntN(32, BigInt(len) * 16384n)) });
  }
  {
    const base = new Int8Array(100);
    fill(base, 'random');
    const a = base.subarray(3, 50);
    const b = base.subarray(51, 97);
    out({ kind: 'dot', name: 'views at odd offsets', c: C.dot(a, b), t: T.dot(a, b) });
  }

  // ---- topk ----
  interface Case {
    name: string;
    rows: number;
    dims: number;
    k: number;
    mode: Mode;
    zeroEvery?: number; // every n-th row gets norm 0
    qnorm?: number; // override
    weird?: boolean; // NaN / Infinity / negative norms sprinkled in
    offset?: boolean; // norms and outputs as views at an offset
    unaligned?: boolean; // matrix and query as views at an odd byte offset
    outLen?: number; // output arrays longer than k
  }
  const cases: Case[] = [
    { name: 'empty', rows: 0, dims: 8, k: 5, mode: 'random' },
    { name: 'dims 0', rows: 5, dims: 0, k: 3, mode: 'random' },
    { name: 'k 0', rows: 5, dims: 8, k: 0, mode: 'random' },
    { name: 'qnorm 0', rows: 5, dims: 8, k: 3, mode: 'random', qnorm: 0 },
    { name: 'qnorm NaN', rows: 5, dims: 8, k: 3, mode: 'random', qnorm: NaN },
    { name: 'one row', rows: 1, dims: 1, k: 1, mode: 'random' },
    { name: 'k > rows', rows: 7, dims: 13, k: 20, mode: 'random' },
    { name: 'k > rows with zero norms', rows: 9, dims: 13, k: 20, mode: 'random', zeroEvery: 3 },
    { name: 'all -128 (all equal)', rows: 70, dims: 33, k: 10, mode: 'min' },
    { name: 'ternary ties', rows: 300, dims: 7, k: 40, mode: 'ternary' },
    { name: 'small values, many ties', rows: 500, dims: 3, k: 64, mode: 'small', zeroEvery: 7 },
    { name: 'extremes', rows: 200, dims: 64, k: 16, mode: 'extremes' },
    { name: 'odd dims 1', rows: 129, dims: 1, k: 9, mode: 'random' },
    { name: 'odd dims 255', rows: 130, dims: 255, k: 5, mode: 'random', zeroEvery: 4 },
    { name: 'dims 512 (one C chunk)', rows: 65, dims: 512, k: 5, mode: 'random' },
    { name: 'dims 513 (two C chunks)', rows: 65, dims: 513, k: 5, mode: 'random' },
    { name: 'dims 1100', rows: 40, dims: 1100, k: 7, mode: 'extremes' },
    { name: 'weird norms', rows: 200, dims: 16, k: 30, mode: 'random', weird: true },
    { name: 'views at offsets', rows: 150, dims: 24, k: 12, mode: 'random', offset: true, zeroEvery: 5 },
    { name: 'unaligned matrix and query', rows: 150, dims: 24, k: 12, mode: 'random', unaligned: true },
    { name: 'unaligned, dims 256', rows: 300, dims: 256, k: 9, mode: 'extremes', unaligned: true },
    { name: 'outputs longer than k', rows: 100, dims: 20, k: 6, mode: 'random', outLen: 11 },
    { name: 'qnorm not the query norm', rows: 100, dims: 20, k: 6, mode: 'random', qnorm: 0.37 },
    { name: '6000 x 256 top-5', rows: 6000, dims: 256, k: 5, mode: 'random' },
    { name: '6000 x 256 top-200', rows: 6000, dims: 256, k: 200, mode: 'ternary', zeroEvery: 11 },
  ];
  for (const tc of cases) {
    const skew = tc.unaligned ? 1 : 0;
    const m = new Int8Array(tc.rows * tc.dims + skew).subarray(skew);
    fill(m, tc.mode);
    const q = new Int8Array(tc.dims + 3 * skew).subarray(3 * skew);
    fill(q, tc.mode);
    const pad = tc.offset ? 3 : 0;
    const normsBuf = new Float32Array(tc.rows + 2 * pad);
    const norms = normsBuf.subarray(pad, pad + tc.rows);
    for (let r = 0; r < tc.rows; r++) {
      norms[r] = tc.zeroEvery && r % tc.zeroEvery === 0 ? 0 : norm(m, r * tc.dims, tc.dims);
      if (tc.weird) {
        const w = rnd() % 10;
        if (w === 0) norms[r] = NaN;
        else if (w === 1) norms[r] = Infinity;
        else if (w === 2) norms[r] = -norms[r]!;
        else if (w === 3) norms[r] = -0;
        else if (w === 4) norms[r] = 1e-30;
      }
    }
    const qnorm = tc.qnorm ?? norm(q, 0, tc.dims);
    const len = tc.outLen ?? tc.k;
    const result = (api: VecdotApi) => {
      const ib = new Int32Array(len + 2 * pad).fill(-7);
      const sb = new Float32Array(len + 2 * pad).fill(-7.5);
      const idx = ib.subarray(pad, pad + len);
      const score = sb.subarray(pad, pad + len);
      const count = api.topk(m, tc.rows, tc.dims, norms, q, qnorm, tc.k, idx, score);
      return { count, idx: Array.from(ib), bits: f32bits(sb) };
    };
    const c = result(C);
    const t = result(T);
    out({ kind: 'topk', name: tc.name, c, t });
  }

  // ---- errors: both implementations reject the same bad sizes ----
  {
    const m = new Int8Array(12);
    const norms = new Float32Array(3).fill(1);
    const q = new Int8Array(4);
    const idx = new Int32Array(2);
    const sc = new Float32Array(2);
    const bad: Array<[string, (api: VecdotApi) => unknown]> = [
      ['matrix short', (api) => api.topk(m, 4, 4, norms, q, 1, 2, idx, sc)],
      ['norms short', (api) => api.topk(m, 3, 4, norms.subarray(0, 2), q, 1, 2, idx, sc)],
      ['query short', (api) => api.topk(m, 3, 4, norms, q.subarray(0, 3), 1, 2, idx, sc)],
      ['outIdx short', (api) => api.topk(m, 3, 4, norms, q, 1, 3, idx, new Float32Array(3))],
      ['outScore short', (api) => api.topk(m, 3, 4, norms, q, 1, 2, idx, sc.subarray(0, 1))],
      ['negative rows', (api) => api.topk(m, -1, 4, norms, q, 1, 2, idx, sc)],
      ['negative k', (api) => api.topk(m, 3, 4, norms, q, 1, -2, idx, sc)],
      ['fine', (api) => api.topk(m, 3, 4, norms, q, 1, 2, idx, sc)],
    ];
    for (const [name, f] of bad) {
      const outcome = (api: VecdotApi): string => {
        try {
          return `ok ${String(f(api))}`;
        } catch (e) {
          return (e as Error).name;
        }
      };
      out({ kind: 'error', name, c: outcome(C), t: outcome(T) });
    }
  }

  // ---- sha256 ----
  const CS = sha256Native(n);
  const TS: Sha256Api = sha256Fallback;
  const hex = (d: Uint8Array): string => {
    let s = '';
    for (let i = 0; i < d.length; i++) s += (d[i]! < 16 ? '0' : '') + d[i]!.toString(16);
    return s;
  };
  const ascii = (s: string): Uint8Array => {
    const b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
    return b;
  };
  const nist: Array<[string, Uint8Array]> = [
    ['empty', new Uint8Array(0)],
    ['abc', ascii('abc')],
    ['448 bits', ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')],
    [
      '896 bits',
      ascii(
        'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      ),
    ],
    ['one million a', new Uint8Array(1000000).fill(0x61)],
  ];
  for (const [name, msg] of nist) {
    // the fallback on a million bytes takes about a second on XS: only the C there
    const t = msg.length > 100000 ? undefined : hex(sha256(TS, msg));
    out({ kind: 'nist', name, c: hex(sha256(CS, msg)), t });
  }
  {
    // the million a's streamed through the C in odd chunk sizes
    const msg = nist[4]![1];
    for (const size of [1, 7, 63, 64, 65, 1000, 4097, 65537]) {
      const h = CS.create();
      for (let i = 0; i < msg.length; i += size) h.update(msg.subarray(i, i + size));
      out({ kind: 'nist', name: `one million a in chunks of ${size}`, c: hex(h.digest()) });
    }
  }
  for (let t = 0; t < 60; t++) {
    const len = t < 40 ? t * 3 + (rnd() % 3) : rnd() % 5000;
    const base = new Uint8Array(len + 10);
    for (let i = 0; i < base.length; i++) base[i] = rnd() & 0xff;
    const msg = base.subarray(5, 5 + len);
    const hc = CS.create();
    const ht = TS.create();
    for (let i = 0; i < len; ) {
      const step = 1 + (rnd() % 150);
      hc.update(msg.subarray(i, i + step));
      ht.update(msg.subarray(i, i + step));
      i += step;
    }
    const dc = hex(hc.digest());
    const dt = hex(ht.digest());
    // reuse after digest
    hc.update(msg);
    ht.update(msg);
    out({ kind: 'sha', name: `random ${t} len ${len}`, c: [dc, hex(hc.digest())], t: [dt, hex(ht.digest())] });
  }
  {
    // __native.sha256Update takes an ArrayBuffer too; a bad context is a TypeError
    const ctx = n.sha256Init();
    n.sha256Update(ctx, ascii('abc').buffer as unknown as Uint8Array);
    const viaBuffer = hex(new Uint8Array(n.sha256Final(ctx)));
    let badCtx = 'no error';
    try {
      n.sha256Update(new ArrayBuffer(16), ascii('abc'));
    } catch (e) {
      badCtx = (e as Error).name;
    }
    out({ kind: 'sha-misc', viaBuffer, badCtx });
  }
  ecChecks(n, rnd);
  // ---- lexical: BM25 over term lists, C against the fallback ----
  if (hasNativeLexical(n)) {
    const CL = lexicalNative(n);
    const TL = lexicalFallback;
    for (const [rows, vocab, maxTerms, nq, k] of [[0, 8, 4, 2, 3], [1, 4, 4, 1, 1], [50, 16, 10, 4, 5], [6000, 3000, 14, 6, 10], [300, 40, 20, 40, 400]] as const) {
      const terms: number[] = [];
      const off = new Uint32Array(rows);
      const len = new Uint16Array(rows);
      const dl = new Uint16Array(rows);
      const mask = new Float32Array(rows);
      for (let r = 0; r < rows; r++) {
        off[r] = terms.length;
        const m = rnd() % (maxTerms + 1);
        const seen = new Set<number>();
        for (let j = 0; j < m; j++) {
          const h = ((rnd() % vocab) + 1) << 3;
          if (seen.has(h)) continue;
          seen.add(h);
          terms.push(h | (1 + (rnd() % 7)));
        }
        len[r] = seen.size;
        dl[r] = seen.size + (rnd() % 5);
        mask[r] = rnd() % 5 === 0 ? 0 : 1;
      }
      const pool = Uint32Array.from(terms);
      const query = Uint32Array.from({ length: nq }, (_, i) => ((i % vocab) + 1) << 3);
      const runOne = (api: typeof TL): unknown => {
        const scores = new Float32Array(rows);
        const idf = new Float64Array(nq);
        const idx = new Int32Array(k);
        const sc = new Float32Array(k);
        const count = api.bm25(pool, off, len, dl, rows, mask, query, nq, 1.2, 0.75, scores, idf, k, idx, sc);
        return { count, idx: Array.from(idx.subarray(0, count)), top: f32bits(sc.subarray(0, count)), scores: f32bits(scores), idf: Array.from(idf) };
      };
      out({ kind: 'bm25', name: `${rows} rows, ${nq} terms, k ${k}`, c: runOne(CL), t: runOne(TL) });
    }
    const outcome = (api: typeof TL): string => {
      try {
        api.bm25(new Uint32Array(2), Uint32Array.of(5), Uint16Array.of(1), Uint16Array.of(1), 1, Float32Array.of(1), Uint32Array.of(8), 1, 1.2, 0.75, new Float32Array(1), new Float64Array(1), 1, new Int32Array(1), new Float32Array(1));
        return 'ok';
      } catch (e) {
        return (e as Error).name;
      }
    };
    out({ kind: 'bm25-error', c: outcome(CL), t: outcome(TL) });
  } else out({ kind: 'bm25-missing' });

  out({ kind: 'done' });
}

/** The P-256 hotspot (modules/p256): the C against @noble/curves, and whole signature checks both ways. */
function ecChecks(n: unknown, rnd: () => number): void {
  if (!hasNativeEc(n)) {
    out({ kind: 'p256-missing' });
    return;
  }
  const C = p256Native(n);
  const T = p256Fallback;
  const { n: order } = p256.Point.CURVE();
  const scalar = (): bigint => {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(rnd());
    return v % order;
  };
  const hexOf = (x: bigint | null): string | null => (x === null ? null : x.toString(16));
  const G = p256.Point.BASE.toAffine();
  const cases: Array<[string, bigint, { x: bigint; y: bigint }, bigint]> = [];
  for (let i = 0; i < 12; i++) cases.push([`random ${i}`, scalar(), p256.Point.BASE.multiply(scalar() || 1n).toAffine(), scalar()]);
  const q = p256.Point.BASE.multiply(7n).toAffine();
  const u = scalar();
  cases.push(['u1 0', 0n, q, u], ['u2 0', u, q, 0n], ['u1 1 u2 1', 1n, q, 1n], ['u2 n-1', u, q, order - 1n]);
  cases.push(['Q = G, u1 + u2 = n (infinity)', u, G, order - u], ['Q = G, u1 = u2 (doubling)', u, G, u]);
  for (const [name, u1, Q, u2] of cases) out({ kind: 'p256', name, c: hexOf(C.mulAdd(u1, Q.x, Q.y, u2)), t: hexOf(T.mulAdd(u1, Q.x, Q.y, u2)) });

  // Whole ECDSA checks as an update's: good, tampered message, tampered signature, another key.
  const sha = sha256Fallback;
  const secret = new Uint8Array(32);
  const other = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    secret[i] = (rnd() & 0xff) | 1;
    other[i] = (rnd() & 0xff) | 2;
  }
  const key = { id: 'k', publicKeyHex: toHex(p256.getPublicKey(secret, false)) };
  const otherKey = { id: 'o', publicKeyHex: toHex(p256.getPublicKey(other, false)) };
  for (let i = 0; i < 6; i++) {
    const msg = signedMessage(2, `v1.${i}.0`, 'panel-35', toHex(new Uint8Array(32).fill(i)));
    const h = sha.create();
    h.update(msg);
    const sig = p256.sign(h.digest(), secret, { prehash: false, format: 'der' });
    const bad = sig.slice();
    bad[bad.length - 1]! ^= 1;
    const wrongMsg = signedMessage(2, `v1.${i}.1`, 'panel-35', toHex(new Uint8Array(32).fill(i)));
    const verdict = (m: Uint8Array, s: Uint8Array, keys: Array<{ id: string; publicKeyHex: string }>): [string | null, string | null] => [
      verifySignature(m, s, keys, sha, C)?.id ?? null,
      verifySignature(m, s, keys, sha, T)?.id ?? null,
    ];
    out({ kind: 'ecdsa', name: `good ${i}`, want: 'k', ...pair(verdict(msg, sig, [otherKey, key])) });
    out({ kind: 'ecdsa', name: `message ${i}`, want: null, ...pair(verdict(wrongMsg, sig, [key])) });
    out({ kind: 'ecdsa', name: `signature ${i}`, want: null, ...pair(verdict(msg, bad, [key])) });
    out({ kind: 'ecdsa', name: `key ${i}`, want: null, ...pair(verdict(msg, sig, [otherKey])) });
  }
}

function pair([c, t]: [string | null, string | null]): { c: string | null; t: string | null } {
  return { c, t };
}
