// The lexical hotspot's fallback (modules/lexical/lexical.ts) against a
// straightforward BM25 written from the textbook formula (Robertson and
// Zaragoza 2009): random pools, masks and queries, rows without terms, a
// query of more than 32 terms, k larger than the hits. The C is checked
// against this fallback, bit for bit, through the simulator in
// test/e2e/hotspots.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasNativeLexical, lexicalFallback, lexicalNative, MAX_QUERY_TERMS, TF_MASK } from '../../../modules/lexical/lexical.ts';

interface Doc {
  terms: Map<number, number>;
  length: number;
  live: boolean;
}

/** The textbook BM25 over docs: idf = ln(1 + (N - df + 0.5) / (df + 0.5)). */
function reference(docs: Doc[], query: number[], k1: number, b: number): number[] {
  const live = docs.filter((d) => d.live);
  const n = live.length;
  const avgdl = live.reduce((s, d) => s + d.length, 0) / n;
  return docs.map((d) => {
    if (!d.live || !n || !avgdl) return 0;
    let s = 0;
    for (const q of query.slice(0, MAX_QUERY_TERMS)) {
      const tf = Math.min(7, d.terms.get(q) ?? 0);
      if (!tf) continue;
      const df = live.filter((x) => x.terms.has(q)).length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avgdl));
    }
    return s;
  });
}

function pack(docs: Doc[]): { pool: Uint32Array; off: Uint32Array; len: Uint16Array; dl: Uint16Array; mask: Float32Array } {
  const terms: number[] = [];
  const off = new Uint32Array(docs.length);
  const len = new Uint16Array(docs.length);
  const dl = new Uint16Array(docs.length);
  const mask = new Float32Array(docs.length);
  docs.forEach((d, r) => {
    // a few dead words before each row: offsets need not be contiguous
    terms.push(0x1230, 0x4560);
    off[r] = terms.length;
    for (const [h, c] of d.terms) terms.push((h | Math.min(c, TF_MASK)) >>> 0);
    len[r] = d.terms.size;
    dl[r] = d.length;
    mask[r] = d.live ? 1 : 0;
  });
  return { pool: Uint32Array.from(terms), off, len, dl, mask };
}

const TERMS = [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80].map((t) => t << 8);
const doc = fc
  .record({ words: fc.array(fc.constantFrom(...TERMS), { maxLength: 12 }), live: fc.boolean() })
  .map(({ words, live }) => {
    const terms = new Map<number, number>();
    for (const w of words) terms.set(w, (terms.get(w) ?? 0) + 1);
    return { terms, length: words.length, live } as Doc;
  });

describe('lexicalFallback.bm25', () => {
  it('scores every row as the textbook formula does, and keeps the k best', () => {
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 40 }), fc.uniqueArray(fc.constantFrom(...TERMS, 0x9900), { maxLength: 4 }), fc.integer({ min: 0, max: 8 }), (docs, query, k) => {
        const p = pack(docs);
        const rows = docs.length;
        const scores = new Float32Array(rows);
        const idf = new Float64Array(query.length);
        const outIdx = new Int32Array(k);
        const outScore = new Float32Array(k);
        const n = lexicalFallback.bm25(p.pool, p.off, p.len, p.dl, rows, p.mask, Uint32Array.from(query), query.length, 1.2, 0.75, scores, idf, k, outIdx, outScore);
        const want = reference(docs, query, 1.2, 0.75);
        for (let r = 0; r < rows; r++) expect(scores[r]).toBeCloseTo(want[r]!, 4);
        const ranked = want
          .map((s, r) => [Math.fround(s), r] as const)
          .filter(([s]) => s > 0)
          .sort((a, b) => b[0] - a[0] || a[1] - b[1])
          .slice(0, k);
        expect(n).toBe(ranked.length);
        for (let i = 0; i < n; i++) expect([outIdx[i], outScore[i]]).toEqual([ranked[i]![1], scores[ranked[i]![1]]]);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('answers 0 and zero scores with no live row or no query; ignores query terms past 32; refuses short arrays', () => {
    const docs: Doc[] = [{ terms: new Map([[TERMS[0]!, 1]]), length: 1, live: false }];
    const p = pack(docs);
    const scores = new Float32Array(1).fill(9);
    expect(lexicalFallback.bm25(p.pool, p.off, p.len, p.dl, 1, p.mask, Uint32Array.of(TERMS[0]!), 1, 1.2, 0.75, scores, new Float64Array(1), 3, new Int32Array(3), new Float32Array(3))).toBe(0);
    expect(scores[0]).toBe(0);
    const many = Uint32Array.from({ length: 40 }, (_, i) => (i + 1) << 8);
    const live = pack([{ terms: new Map([[40 << 8, 1]]), length: 1, live: true }]);
    expect(lexicalFallback.bm25(live.pool, live.off, live.len, live.dl, 1, live.mask, many, 40, 1.2, 0.75, new Float32Array(1), new Float64Array(40), 1, new Int32Array(1), new Float32Array(1))).toBe(0);
    expect(() => lexicalFallback.bm25(p.pool, p.off, p.len, p.dl, 2, p.mask, Uint32Array.of(1), 1, 1.2, 0.75, new Float32Array(2), new Float64Array(1), 1, new Int32Array(1), new Float32Array(1))).toThrow(RangeError);
    const bad = { ...p, off: Uint32Array.of(99) };
    expect(() => lexicalFallback.bm25(bad.pool, bad.off, bad.len, bad.dl, 1, bad.mask, Uint32Array.of(1), 1, 1.2, 0.75, new Float32Array(1), new Float64Array(1), 1, new Int32Array(1), new Float32Array(1))).toThrow(/outside the pool/);
  });

  it('recognizes the native functions and wraps them', () => {
    expect(hasNativeLexical({})).toBe(false);
    const calls: unknown[][] = [];
    const api = lexicalNative({ lexicalBm25: (...a: unknown[]) => (calls.push(a), 2) });
    expect(api.native).toBe(true);
    expect(api.bm25(new Uint32Array(), new Uint32Array(), new Uint16Array(), new Uint16Array(), 0, new Float32Array(), new Uint32Array(), 0, 1.2, 0.75, new Float32Array(), new Float64Array(), 0, new Int32Array(), new Float32Array())).toBe(2);
    expect(calls).toHaveLength(1);
  });
});
