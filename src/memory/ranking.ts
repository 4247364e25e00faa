// How well a memory answers a query: by meaning and by words, fused into one
// relevance that every search of the store shows and thresholds (memory.search,
// GET /api/mem/vector, the prompt's relevant memories, memory.update by content).
//
//   sem = (cos - mu) / (1 - mu), clamped to 0-1: the cosine of the two vectors,
//         calibrated by mu, the cosine the query can expect with an unrelated
//         text (its dot with the embedder's mean direction; 0 when unknown),
//         so 0 reads "no more alike than any two texts" and 1 "the same";
//   lex = BM25 / (the sum of the query words' idf), clamped to 0-1: about the
//         share of the query's informative words the memory holds, weighted by
//         how rare each is among this person's memories;
//   relevance = min(1, sem + lex): what '[NN%]' shows and the threshold cuts;
//   order: sem + lex, before importance, recency and variety (retrieval.ts).
//
// Candidates: the best `pool` rows by cosine (vecdot, C) and the best `pool`
// by BM25 (lexical, C), each scored on the other side too. The equal weights
// are a choice, not a fit: docs/decisions.md ("Memory recall") has what was
// measured with other weights and why none was taken.

import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { queryTerms } from './lexicon.ts';
import type { VectorIndex } from './vector-index.ts';

export interface Candidate {
  row: number;
  /** Calibrated similarity of meaning, 0-1. */
  sem: number;
  /** Share of the query's word weight, 0-1. */
  lex: number;
  /** min(1, sem + lex): shown and thresholded. */
  rel: number;
  /** sem + lex: the order before importance, recency and variety. */
  fused: number;
}

export interface QueryVector {
  text: string;
  q: Int8Array;
  norm: number;
}

/** Both sides (the default), or one alone: to measure what each brings. */
export type RankingSides = 'both' | 'meaning' | 'words';

export interface RankingHotspots {
  vecdot: VecdotApi;
  lexical: LexicalApi;
}

const NO_WORDS = { scores: new Float32Array(0), idfSum: 0, best: [] };

/** A cosine calibrated by mu (the cosine expected with an unrelated text), clamped to 0-1. */
export function calibrated(cos: number, mu: number): number {
  const b = mu > 0 && mu < 1 ? mu : 0;
  const s = (cos - b) / (1 - b);
  return s > 1 ? 1 : s > 0 ? s : 0;
}

/** The cosine a vector (int8, with its norm) can expect with an unrelated text: its dot with the mean direction (0 without one). */
export function expectedCosine(v: Int8Array, norm: number, mean: Float32Array | undefined): number {
  if (!mean || !norm || mean.length !== v.length) return 0;
  let d = 0;
  for (let i = 0; i < v.length; i++) d += v[i]! * mean[i]!;
  return d / norm;
}

/**
 * The rows of namespace ns that answer any of the queries, best first by
 * fused score; a row answering several queries keeps its best.
 */
export function rankRows(index: VectorIndex, hot: RankingHotspots, queries: readonly QueryVector[], ns: string, pool: number, mean: Float32Array | undefined, sides: RankingSides = 'both'): Candidate[] {
  const best = new Map<number, Candidate>();
  for (const { text, q, norm } of queries) {
    if (q.length !== index.dims) continue;
    const mu = expectedCosine(q, norm, mean);
    const dense = sides === 'words' ? [] : index.topk(hot.vecdot, q, norm, pool, ns);
    const words = sides === 'meaning' ? NO_WORDS : index.bm25(hot.lexical, queryTerms(text), pool, ns);
    const cosines = new Map<number, number>();
    for (const d of dense) cosines.set(d.row, d.score);
    const rows = new Set<number>(cosines.keys());
    for (const b of words.best) rows.add(b.row);
    for (const row of rows) {
      const cos = cosines.get(row) ?? index.cosineTo(hot.vecdot, row, q, norm);
      const sem = sides === 'words' ? 0 : calibrated(cos, mu);
      const lex = sides === 'meaning' || words.idfSum <= 0 ? 0 : Math.min(1, words.scores[row]! / words.idfSum);
      const fused = sem + lex;
      const prev = best.get(row);
      if (!prev || fused > prev.fused) best.set(row, { row, sem, lex, rel: Math.min(1, fused), fused });
    }
  }
  return [...best.values()].sort((a, b) => b.fused - a.fused || a.row - b.row);
}
