// The lexical hotspot's API: BM25 over a packed pool of per-row term lists.
// Two implementations share it bit for bit: the C in lexical.c (through
// __native on XS) and the pure TypeScript fallback here. The exact semantics
// are in lexical.h; in short: rows with mask[r] != 0 take part, a pool entry
// is a term hash whose low 3 bits hold the term's count in the row, idf =
// log(1 + (N - df + 0.5) / (df + 0.5)), and a row's score sums, over its terms
// in pool order and the query terms that match each, idf * tf * (k1 + 1) /
// (tf + k1 * (1 - b + b * dl / avgdl)) in doubles, stored as float32.
//
// Runs on XS: ES2022 only, no host globals.

export const TF_MASK = 7;
/** Query terms beyond this many are ignored (lexical.h). */
export const MAX_QUERY_TERMS = 32;

export interface LexicalApi {
  readonly native: boolean;
  /**
   * Scores every row (scores[r], 0 for rows not taking part), writes each
   * query term's idf, and the k best rows with a score above 0 into
   * outIdx/outScore (score descending, ties by lower row); returns how many.
   */
  bm25(
    pool: Uint32Array,
    off: Uint32Array,
    len: Uint16Array,
    dl: Uint16Array,
    rows: number,
    mask: Float32Array,
    query: Uint32Array,
    nq: number,
    k1: number,
    b: number,
    scores: Float32Array,
    idf: Float64Array,
    k: number,
    outIdx: Int32Array,
    outScore: Float32Array,
  ): number;
}

/** The function the runtime puts on `__native` (docs/sim-protocol.md). */
export interface NativeLexical {
  lexicalBm25: LexicalApi['bm25'];
}

export function hasNativeLexical(obj: unknown): obj is NativeLexical {
  const n = obj as Partial<NativeLexical> | null | undefined;
  return !!n && typeof n.lexicalBm25 === 'function';
}

export function lexicalNative(n: NativeLexical): LexicalApi {
  const bm25 = n.lexicalBm25;
  return {
    native: true,
    bm25: (pool, off, len, dl, rows, mask, query, nq, k1, b, scores, idf, k, outIdx, outScore) =>
      bm25(pool, off, len, dl, rows, mask, query, nq, k1, b, scores, idf, k, outIdx, outScore),
  };
}

function insert(outIdx: Int32Array, outScore: Float32Array, count: number, k: number, idx: number, score: number): number {
  let j = count < k ? count : k - 1;
  while (j > 0 && outScore[j - 1]! < score) {
    outScore[j] = outScore[j - 1]!;
    outIdx[j] = outIdx[j - 1]!;
    j--;
  }
  outScore[j] = score;
  outIdx[j] = idx;
  return count < k ? count + 1 : k;
}

function check(rows: number, nq: number, k: number, a: { off: Uint32Array; len: Uint16Array; dl: Uint16Array; mask: Float32Array; scores: Float32Array; query: Uint32Array; idf: Float64Array; outIdx: Int32Array; outScore: Float32Array; pool: Uint32Array }): void {
  if (!(rows >= 0) || !(nq >= 0) || !(k >= 0)) throw new RangeError('rows, nq and k must not be negative');
  if (a.off.length < rows || a.len.length < rows || a.dl.length < rows || a.mask.length < rows || a.scores.length < rows)
    throw new RangeError('off, len, dl, mask and scores must hold rows entries');
  if (a.query.length < nq || a.idf.length < nq) throw new RangeError('query and idf must hold nq entries');
  if (a.outIdx.length < k || a.outScore.length < k) throw new RangeError('outIdx/outScore shorter than k');
  for (let r = 0; r < rows; r++) if (a.off[r]! > a.pool.length || a.len[r]! > a.pool.length - a.off[r]!) throw new RangeError("a row's terms lie outside the pool");
}

/** The pure TypeScript implementation, bit for bit the C's results. */
export const lexicalFallback: LexicalApi = {
  native: false,
  bm25(pool, off, len, dl, rows, mask, query, nq, k1, b, scores, idf, k, outIdx, outScore) {
    rows = Math.trunc(rows);
    nq = Math.min(Math.trunc(nq), MAX_QUERY_TERMS);
    k = Math.trunc(k);
    check(rows, nq, k, { off, len, dl, mask, scores, query, idf, outIdx, outScore, pool });
    const df = new Uint32Array(nq);
    let n = 0;
    let sumdl = 0;
    for (let r = 0; r < rows; r++) {
      if (mask[r] === 0) continue;
      n += 1;
      sumdl += dl[r]!;
      for (let j = off[r]!, end = j + len[r]!; j < end; j++) {
        const h = (pool[j]! & ~TF_MASK) >>> 0;
        for (let q = 0; q < nq; q++) if (h === query[q]) df[q]++;
      }
    }
    for (let q = 0; q < nq; q++) idf[q] = n > 0 ? Math.log(1 + (n - df[q]! + 0.5) / (df[q]! + 0.5)) : 0;
    const avgdl = n > 0 ? sumdl / n : 0;
    let count = 0;
    for (let r = 0; r < rows; r++) {
      scores[r] = 0;
      if (mask[r] === 0 || avgdl === 0) continue;
      const norm = k1 * (1 - b + (b * dl[r]!) / avgdl);
      let s = 0;
      for (let j = off[r]!, end = j + len[r]!; j < end; j++) {
        const h = (pool[j]! & ~TF_MASK) >>> 0;
        const tf = pool[j]! & TF_MASK;
        for (let q = 0; q < nq; q++) if (h === query[q]) s += (idf[q]! * tf * (k1 + 1)) / (tf + norm);
      }
      const f = Math.fround(s);
      scores[r] = f;
      if (!(f > 0) || k === 0) continue;
      if (count === k && !(f > outScore[k - 1]!)) continue;
      count = insert(outIdx, outScore, count, k, r, f);
    }
    return count;
  },
};
