// Every row's term list (lexicon.ts) for the lexical hotspot, packed in one
// Uint32Array pool: row r's terms are pool[off[r] .. off[r] + len[r]), dl[r]
// its word count (BM25's length). A replaced or removed row leaves its old
// terms behind as garbage; the pool is packed again when a quarter of it is.

import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import { grown } from './columns.ts';
import type { TermList } from './lexicon.ts';

/** BM25's parameters: the usual k1 and b (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export class TermPool {
  private pool = new Uint32Array(1024);
  private used = 0;
  private garbage = 0;
  private off: Uint32Array;
  private len: Uint16Array;
  private dl: Uint16Array;

  constructor(capacity: number) {
    this.off = new Uint32Array(capacity);
    this.len = new Uint16Array(capacity);
    this.dl = new Uint16Array(capacity);
  }

  /** Room for cap rows. */
  grow(cap: number): void {
    this.off = grown(this.off, cap);
    this.len = grown(this.len, cap);
    this.dl = grown(this.dl, cap);
  }

  /** Row's term list (a view into the pool: read it before the pool changes). */
  terms(row: number): Uint32Array {
    return this.pool.subarray(this.off[row]!, this.off[row]! + this.len[row]!);
  }

  /** Words the lexical side counted in the row. */
  words(row: number): number {
    return this.dl[row]!;
  }

  /** Bytes held (pool and per-row columns, at their capacity). */
  bytes(): number {
    return this.pool.byteLength + this.off.byteLength + this.len.byteLength + this.dl.byteLength;
  }

  /** A new row: no terms yet. */
  open(row: number): void {
    this.len[row] = 0;
  }

  /** Sets row's terms (rows rows in use, for a packing). */
  set(row: number, t: TermList, rows: number): void {
    if (this.used + t.terms.length > this.pool.length) {
      if (this.garbage > this.used / 4) this.pack(rows);
      if (this.used + t.terms.length > this.pool.length) this.pool = grown(this.pool, Math.max(this.used + t.terms.length, Math.ceil(this.pool.length * 1.25)));
    }
    this.garbage += this.len[row]!; // 0 for a new row
    this.pool.set(t.terms, this.used);
    this.off[row] = this.used;
    this.len[row] = t.terms.length;
    this.dl[row] = t.length;
    this.used += t.terms.length;
  }

  /** Row leaves: the last row (last) moves into its place. */
  remove(row: number, last: number): void {
    this.garbage += this.len[row]!;
    if (row !== last) {
      this.off[row] = this.off[last]!;
      this.len[row] = this.len[last]!;
      this.dl[row] = this.dl[last]!;
    }
    this.len[last] = 0;
  }

  clear(): void {
    this.len.fill(0);
    this.used = 0;
    this.garbage = 0;
  }

  /** Packs the live rows' terms to the front of the pool. */
  private pack(rows: number): void {
    const p = new Uint32Array(Math.max(1024, this.used - this.garbage + 256));
    let at = 0;
    for (let r = 0; r < rows; r++) {
      const n = this.len[r]!;
      p.set(this.pool.subarray(this.off[r]!, this.off[r]! + n), at);
      this.off[r] = at;
      at += n;
    }
    this.pool = p;
    this.used = at;
    this.garbage = 0;
  }

  /**
   * BM25 of the first `rows` rows (rows of norm 0 in norms skipped) for the
   * query terms; fills scores (every row) and idf (each query term), and the
   * k best into idx/score; returns how many.
   */
  bm25(lexical: LexicalApi, rows: number, norms: Float32Array, query: Uint32Array, scores: Float32Array, idf: Float64Array, k: number, idx: Int32Array, score: Float32Array): number {
    return lexical.bm25(this.pool, this.off, this.len, this.dl, rows, norms, query, query.length, BM25_K1, BM25_B, scores, idf, k, idx, score);
  }
}
