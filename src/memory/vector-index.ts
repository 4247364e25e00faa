// The working set in RAM: one packed int8 matrix (rows x dims) with a norm
// per row, each row's term list (lexicon.ts) in one packed pool, the records
// beside them, and an id lookup. Search goes through the vecdot hotspot (by
// meaning) and the lexical hotspot (BM25 by words); another namespace's rows
// are hidden from both by a norms array with their norms zeroed (the hotspots
// skip rows of norm 0), built once per namespace and change.

import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { asQuery, termCosine, termList } from './lexicon.ts';
import type { MemRecord } from './record.ts';

/** BM25's parameters: the usual k1 and b (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** The lexical side of a query: every row's BM25 score, the query terms' idf, the best rows. */
export interface LexicalHits {
  scores: Float32Array;
  /** Sum of the query terms' idf: a row holding each query word once scores about this. */
  idfSum: number;
  best: Scored[];
}

export interface Scored {
  row: number;
  score: number;
}

export class VectorIndex {
  matrix: Int8Array;
  norms: Float32Array;
  recs: MemRecord[] = [];
  private byId = new Map<string, number>();
  private masks = new Map<string, Float32Array>();
  private perNs = new Map<string, number>();
  /** Term lists: row r's terms are pool[off[r] .. off[r] + len[r]); dl[r] its word count. */
  private pool = new Uint32Array(1024);
  private poolUsed = 0;
  /** Pool entries no row refers to any more (reclaimed by compactPool). */
  private poolGarbage = 0;
  private off: Uint32Array;
  private len: Uint16Array;
  private dl: Uint16Array;

  constructor(
    readonly dims: number,
    capacity = 64,
  ) {
    this.matrix = new Int8Array(capacity * dims);
    this.norms = new Float32Array(capacity);
    this.off = new Uint32Array(capacity);
    this.len = new Uint16Array(capacity);
    this.dl = new Uint16Array(capacity);
  }

  get count(): number {
    return this.recs.length;
  }

  /** Rows of one namespace. */
  countIn(ns: string): number {
    return this.perNs.get(ns) ?? 0;
  }

  get(id: string): MemRecord | undefined {
    const row = this.byId.get(id);
    return row === undefined ? undefined : this.recs[row];
  }

  rowOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  vector(row: number): Int8Array {
    return this.matrix.subarray(row * this.dims, (row + 1) * this.dims);
  }

  /** Bytes the index holds for its vectors (matrix and norms, at its capacity). */
  vectorBytes(): number {
    return this.matrix.byteLength + this.norms.byteLength;
  }

  /** Bytes the index holds for its term lists (pool and per-row offsets, at their capacity). */
  lexicalBytes(): number {
    return this.pool.byteLength + this.off.byteLength + this.len.byteLength + this.dl.byteLength;
  }

  /** A quarter more rows at a time: the device's RAM has no room for a doubled 6000-row matrix. */
  private grow(): void {
    const cap = Math.max(64, Math.ceil(this.norms.length * 1.25));
    const m = new Int8Array(cap * this.dims);
    m.set(this.matrix);
    const n = new Float32Array(cap);
    n.set(this.norms);
    const off = new Uint32Array(cap);
    off.set(this.off);
    const len = new Uint16Array(cap);
    len.set(this.len);
    const dl = new Uint16Array(cap);
    dl.set(this.dl);
    this.matrix = m;
    this.norms = n;
    this.off = off;
    this.len = len;
    this.dl = dl;
  }

  /** Stores row's terms at the pool's end (the old ones become garbage). */
  private setTerms(row: number, content: string): void {
    const t = termList(content);
    if (this.poolUsed + t.terms.length > this.pool.length) {
      if (this.poolGarbage > this.poolUsed / 4) this.compactPool();
      if (this.poolUsed + t.terms.length > this.pool.length) {
        const p = new Uint32Array(Math.max(this.poolUsed + t.terms.length, Math.ceil(this.pool.length * 1.25)));
        p.set(this.pool.subarray(0, this.poolUsed));
        this.pool = p;
      }
    }
    this.poolGarbage += this.len[row]!; // 0 for a new row
    this.pool.set(t.terms, this.poolUsed);
    this.off[row] = this.poolUsed;
    this.len[row] = t.terms.length;
    this.dl[row] = t.length;
    this.poolUsed += t.terms.length;
  }

  /** Packs the live rows' terms to the front of the pool. */
  private compactPool(): void {
    const p = new Uint32Array(Math.max(1024, this.poolUsed - this.poolGarbage + 256));
    let at = 0;
    for (let r = 0; r < this.recs.length; r++) {
      const n = this.len[r]!;
      p.set(this.pool.subarray(this.off[r]!, this.off[r]! + n), at);
      this.off[r] = at;
      at += n;
    }
    this.pool = p;
    this.poolUsed = at;
    this.poolGarbage = 0;
  }

  private changed(): void {
    this.masks.clear();
  }

  /** Adds a record, or replaces the one with the same id. */
  put(rec: MemRecord, vec: Int8Array, norm: number): void {
    let row = this.byId.get(rec.id);
    if (row === undefined) {
      if (this.recs.length === this.norms.length) this.grow();
      row = this.recs.length;
      this.recs.push(rec);
      this.byId.set(rec.id, row);
      this.perNs.set(rec.ns, this.countIn(rec.ns) + 1);
      this.len[row] = 0;
      this.setTerms(row, rec.content);
    } else {
      const old = this.recs[row]!;
      if (old.ns !== rec.ns) {
        this.perNs.set(old.ns, this.countIn(old.ns) - 1);
        this.perNs.set(rec.ns, this.countIn(rec.ns) + 1);
      }
      this.recs[row] = rec;
      if (old.content !== rec.content) this.setTerms(row, rec.content);
    }
    this.matrix.set(vec.subarray(0, this.dims), row * this.dims);
    this.norms[row] = norm;
    this.changed();
  }

  /** Replaces a record's fields without touching its vector. */
  update(rec: MemRecord): void {
    const row = this.byId.get(rec.id);
    if (row !== undefined) this.recs[row] = rec;
  }

  remove(id: string): MemRecord | null {
    const row = this.byId.get(id);
    if (row === undefined) return null;
    const rec = this.recs[row]!;
    const last = this.recs.length - 1;
    this.poolGarbage += this.len[row]!;
    if (row !== last) {
      const moved = this.recs[last]!;
      this.recs[row] = moved;
      this.byId.set(moved.id, row);
      this.matrix.copyWithin(row * this.dims, last * this.dims, (last + 1) * this.dims);
      this.norms[row] = this.norms[last]!;
      this.off[row] = this.off[last]!;
      this.len[row] = this.len[last]!;
      this.dl[row] = this.dl[last]!;
    }
    this.recs.pop();
    this.norms[last] = 0;
    this.len[last] = 0;
    this.byId.delete(id);
    this.perNs.set(rec.ns, this.countIn(rec.ns) - 1);
    this.changed();
    return rec;
  }

  clear(): void {
    this.recs = [];
    this.byId.clear();
    this.perNs.clear();
    this.norms.fill(0);
    this.len.fill(0);
    this.poolUsed = 0;
    this.poolGarbage = 0;
    this.changed();
  }

  /** BM25 of every row of ns for the query terms (lexicon.ts queryTerms), and the k best. */
  bm25(lexical: LexicalApi, query: Uint32Array, k: number, ns: string): LexicalHits {
    const rows = this.count;
    const scores = new Float32Array(Math.max(1, rows));
    if (!rows || !query.length || this.countIn(ns) === 0) return { scores, idfSum: 0, best: [] };
    k = Math.min(k, rows);
    const idf = new Float64Array(query.length);
    const idx = new Int32Array(Math.max(1, k));
    const score = new Float32Array(Math.max(1, k));
    const n = lexical.bm25(this.pool, this.off, this.len, this.dl, rows, this.normsFor(ns), query, query.length, BM25_K1, BM25_B, scores, idf, k, idx, score);
    let idfSum = 0;
    for (let i = 0; i < query.length; i++) idfSum += idf[i]!;
    const best: Scored[] = [];
    for (let i = 0; i < n; i++) best.push({ row: idx[i]!, score: score[i]! });
    return { scores, idfSum, best };
  }

  /** Row's term list (a view into the pool: read it before the index changes). */
  terms(row: number): Uint32Array {
    return this.pool.subarray(this.off[row]!, this.off[row]! + this.len[row]!);
  }

  /**
   * Rows of ns holding the same words as `terms` (term cosine at least min),
   * looked for among the nearest few by meaning and by words; best first.
   */
  sameWords(hot: { vecdot: VecdotApi; lexical: LexicalApi }, terms: Uint32Array, q: Int8Array, qnorm: number, ns: string, min: number): Scored[] {
    const rows = new Set<number>();
    for (const d of this.topk(hot.vecdot, q, qnorm, 4, ns)) rows.add(d.row);
    for (const b of this.bm25(hot.lexical, asQuery(terms), 4, ns).best) rows.add(b.row);
    const out: Scored[] = [];
    for (const row of rows) {
      const c = termCosine(terms, this.terms(row));
      if (c >= min) out.push({ row, score: c });
    }
    return out.sort((a, b) => b.score - a.score || a.row - b.row);
  }

  /** Cosine of row and a query vector (0 for a zero row or query). */
  cosineTo(vecdot: VecdotApi, row: number, q: Int8Array, qnorm: number): number {
    const nr = this.norms[row]!;
    if (!nr || !qnorm) return 0;
    return Math.fround(vecdot.dot(this.vector(row), q) / (nr * qnorm));
  }

  /** Norms with every row outside ns zeroed (the rows topk may return). */
  private normsFor(ns: string): Float32Array {
    if (this.countIn(ns) === this.count) return this.norms;
    let m = this.masks.get(ns);
    if (!m) {
      m = new Float32Array(this.count);
      for (let r = 0; r < this.count; r++) if (this.recs[r]!.ns === ns) m[r] = this.norms[r]!;
      this.masks.set(ns, m);
    }
    return m;
  }

  /** The k rows of ns most similar (cosine) to q, best first. */
  topk(vecdot: VecdotApi, q: Int8Array, qnorm: number, k: number, ns: string): Scored[] {
    const rows = this.count;
    if (!rows || !k || this.countIn(ns) === 0) return [];
    k = Math.min(k, rows);
    const idx = new Int32Array(k);
    const score = new Float32Array(k);
    const n = vecdot.topk(this.matrix, rows, this.dims, this.normsFor(ns), q, qnorm, k, idx, score);
    const out: Scored[] = [];
    for (let i = 0; i < n; i++) out.push({ row: idx[i]!, score: score[i]! });
    return out;
  }

  /** Cosine of two rows. */
  cosine(vecdot: VecdotApi, a: number, b: number): number {
    const na = this.norms[a]!;
    const nb = this.norms[b]!;
    if (!na || !nb) return 0;
    return vecdot.dot(this.vector(a), this.vector(b)) / (na * nb);
  }
}
