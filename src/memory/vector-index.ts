// The working set in RAM, as columns: one packed int8 matrix (rows x dims)
// with a norm per row, each row's term list (term-pool.ts), the fields every
// search needs in typed arrays (id, namespace, importance, TTL, times, flags,
// sizes), and where the row's content lies (content-places.ts): on the card
// (the file and offset of its JSON, read for the rows a search returns) or,
// without a card, in RAM. About 220 bytes a memory of 100 dimensions,
// whatever its content's length (docs/decisions.md, "Memory in RAM").
//
// Search goes through the vecdot hotspot (by meaning) and the lexical hotspot
// (BM25 by words); another namespace's rows are hidden from both by a norms
// array with their norms zeroed (the hotspots skip rows of norm 0), built once
// per namespace and change. Rows are kept dense: removing one moves the last
// row into its place.

import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { grown } from './columns.ts';
import { ContentPlaces, type TextSource, type TextWhere } from './content-places.ts';
import { IdTable } from './id-table.ts';
import { asQuery, termCosine, termList, type TermList } from './lexicon.ts';
import { idHalves, idOf, type RecordCold, type RecordHot } from './record-bin.ts';
import type { MemRecord } from './record.ts';
import { TermPool } from './term-pool.ts';

export type { TextSource, TextWhere } from './content-places.ts';

const CREATOR = 1;
const PERMANENT = 2;
const PINNED = 4;

export interface Scored {
  row: number;
  score: number;
}

/** The lexical side of a query: every row's BM25 score, the query terms' idf, the best rows. */
export interface LexicalHits {
  scores: Float32Array;
  /** Sum of the query terms' idf: a row holding each query word once scores about this. */
  idfSum: number;
  best: Scored[];
}

export class VectorIndex {
  matrix: Int8Array;
  norms: Float32Array;
  private rows = 0;
  private idHi: Uint32Array;
  private idLo: Uint32Array;
  private nsIx: Uint16Array;
  private imp: Float32Array;
  private ttl: Int32Array;
  private created: Float64Array;
  private updated: Float64Array;
  private archived: Float64Array;
  private flags: Uint8Array;
  private size: Uint16Array;
  private readonly pool: TermPool;
  private readonly places: ContentPlaces;
  private readonly ids: IdTable;
  private nsNames: string[] = [];
  private nsIds = new Map<string, number>();
  private perNs = new Map<string, number>();
  private masks = new Map<string, Float32Array>();

  constructor(
    readonly dims: number,
    capacity = 64,
  ) {
    this.matrix = new Int8Array(capacity * dims);
    this.norms = new Float32Array(capacity);
    this.idHi = new Uint32Array(capacity);
    this.idLo = new Uint32Array(capacity);
    this.nsIx = new Uint16Array(capacity);
    this.imp = new Float32Array(capacity);
    this.ttl = new Int32Array(capacity);
    this.created = new Float64Array(capacity);
    this.updated = new Float64Array(capacity);
    this.archived = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.size = new Uint16Array(capacity);
    this.pool = new TermPool(capacity);
    this.places = new ContentPlaces(capacity);
    this.ids = new IdTable(
      () => this.idHi,
      () => this.idLo,
      capacity,
    );
  }

  /** Where content on the card is read from (the store's files). */
  get source(): TextSource | null {
    return this.places.source;
  }
  set source(s: TextSource | null) {
    this.places.source = s;
  }

  get count(): number {
    return this.rows;
  }

  /** Rows of one namespace. */
  countIn(ns: string): number {
    return this.perNs.get(ns) ?? 0;
  }

  // ---- the fields of a row ----

  idOf(row: number): string {
    return idOf(this.idHi[row]!, this.idLo[row]!);
  }
  nsOf(row: number): string {
    return this.nsNames[this.nsIx[row]!]!;
  }
  importanceOf(row: number): number {
    return this.imp[row]!;
  }
  updatedAtOf(row: number): number {
    return this.updated[row]!;
  }
  createdAtOf(row: number): number {
    return this.created[row]!;
  }
  archivedAtOf(row: number): number {
    return this.archived[row]!;
  }
  ttlOf(row: number): number {
    return this.ttl[row]!;
  }
  permanentAt(row: number): boolean {
    return (this.flags[row]! & PERMANENT) !== 0;
  }
  pinnedAt(row: number): boolean {
    return (this.flags[row]! & PINNED) !== 0;
  }
  bytesOf(row: number): number {
    return this.size[row]!;
  }
  /** Words the lexical side counted in the row (BM25's length). */
  wordsOf(row: number): number {
    return this.pool.words(row);
  }
  creatorAt(row: number): boolean {
    return (this.flags[row]! & CREATOR) !== 0;
  }
  /** Where row's content lies on the card, or null (in RAM). */
  whereOf(row: number): TextWhere | null {
    return this.places.whereOf(row);
  }

  rowOf(id: string): number | undefined {
    if (id.length !== 16) return undefined;
    const [hi, lo] = idHalves(id);
    const r = this.ids.find(hi, lo);
    return r < 0 ? undefined : r;
  }

  /** The row's content and rare fields: from RAM, or read from the card. */
  cold(row: number): RecordCold {
    return this.places.cold(row, this.idOf(row));
  }

  /** Whether row's content can be had without the card. */
  inRam(row: number): boolean {
    return this.places.inRam(this.idOf(row));
  }

  /** The whole record of a row (its content read from the card when it lies there). */
  rec(row: number): MemRecord {
    const c = this.cold(row);
    const r: MemRecord = {
      id: this.idOf(row),
      ns: this.nsOf(row),
      content: c.content,
      importance: this.imp[row]!,
      ttlHours: this.ttl[row]!,
      createdAt: this.created[row]!,
      updatedAt: this.updated[row]!,
      source: c.source,
      creator: (this.flags[row]! & CREATOR) !== 0,
      permanent: this.permanentAt(row),
      pinned: this.pinnedAt(row),
      metadata: c.metadata,
      bytes: this.size[row]!,
    };
    if (c.archivedAt !== undefined) r.archivedAt = c.archivedAt;
    if (c.why !== undefined) r.why = c.why;
    return r;
  }

  get(id: string): MemRecord | undefined {
    const row = this.rowOf(id);
    return row === undefined ? undefined : this.rec(row);
  }

  vector(row: number): Int8Array {
    return this.matrix.subarray(row * this.dims, (row + 1) * this.dims);
  }

  /** Row's term list (a view into the pool: read it before the index changes). */
  terms(row: number): Uint32Array {
    return this.pool.terms(row);
  }

  /** Bytes the index holds for its vectors (matrix and norms, at its capacity). */
  vectorBytes(): number {
    return this.matrix.byteLength + this.norms.byteLength;
  }

  /** Bytes the index holds for its term lists (pool and per-row offsets, at their capacity). */
  lexicalBytes(): number {
    return this.pool.bytes();
  }

  // ---- changing ----

  /** A quarter more rows at a time: the device's RAM has no room for a doubled 6000-row matrix. */
  private grow(): void {
    const cap = Math.max(64, Math.ceil(this.norms.length * 1.25));
    this.matrix = grown(this.matrix, cap * this.dims);
    this.norms = grown(this.norms, cap);
    this.idHi = grown(this.idHi, cap);
    this.idLo = grown(this.idLo, cap);
    this.nsIx = grown(this.nsIx, cap);
    this.imp = grown(this.imp, cap);
    this.ttl = grown(this.ttl, cap);
    this.created = grown(this.created, cap);
    this.updated = grown(this.updated, cap);
    this.archived = grown(this.archived, cap);
    this.flags = grown(this.flags, cap);
    this.size = grown(this.size, cap);
    this.pool.grow(cap);
    this.places.grow(cap);
  }

  private nsIndex(ns: string): number {
    let i = this.nsIds.get(ns);
    if (i === undefined) {
      i = this.nsNames.length;
      this.nsNames.push(ns);
      this.nsIds.set(ns, i);
    }
    return i;
  }

  private setFields(row: number, h: RecordHot, archivedAt: number): void {
    this.nsIx[row] = this.nsIndex(h.ns);
    this.imp[row] = h.importance;
    this.ttl[row] = h.ttlHours;
    this.created[row] = h.createdAt;
    this.updated[row] = h.updatedAt;
    this.archived[row] = archivedAt;
    this.flags[row] = (h.creator ? CREATOR : 0) | (h.permanent ? PERMANENT : 0) | (h.pinned ? PINNED : 0);
    this.size[row] = Math.min(0xffff, h.bytes);
  }

  /**
   * Adds a row, or replaces the one with the same id: its fields, vector,
   * terms, and where its content lies (null: the content stays in RAM).
   */
  putHot(h: RecordHot, cold: RecordCold | null, vec: Int8Array, norm: number, terms: TermList, where: TextWhere | null): number {
    let row = this.ids.find(h.idHi, h.idLo);
    if (row < 0) {
      if (this.rows === this.norms.length) this.grow();
      row = this.rows++;
      this.idHi[row] = h.idHi;
      this.idLo[row] = h.idLo;
      this.ids.insert(row);
      this.pool.open(row);
      this.perNs.set(h.ns, this.countIn(h.ns) + 1);
    } else {
      const old = this.nsOf(row);
      if (old !== h.ns) {
        this.perNs.set(old, this.countIn(old) - 1);
        this.perNs.set(h.ns, this.countIn(h.ns) + 1);
      }
    }
    this.setFields(row, h, cold?.archivedAt ?? 0);
    this.pool.set(row, terms, this.rows);
    this.matrix.set(vec.subarray(0, this.dims), row * this.dims);
    this.norms[row] = norm;
    this.places.place(row, this.idOf(row), cold, where);
    this.changed();
    return row;
  }

  /** Adds or replaces a whole record (its terms made from its content). */
  put(rec: MemRecord, vec: Int8Array, norm: number, where: TextWhere | null = null): number {
    const [idHi, idLo] = idHalves(rec.id);
    const terms = termList(rec.content);
    const cold: RecordCold = { content: rec.content, source: rec.source, metadata: rec.metadata };
    if (rec.archivedAt !== undefined) cold.archivedAt = rec.archivedAt;
    if (rec.why !== undefined) cold.why = rec.why;
    return this.putHot({ ...rec, idHi, idLo, words: terms.length }, cold, vec, norm, terms, where);
  }

  /** Replaces a row's fields (importance, TTL, flags, times) without touching its vector, terms or content. */
  update(rec: MemRecord): void {
    const row = this.rowOf(rec.id);
    if (row === undefined) return;
    const [idHi, idLo] = idHalves(rec.id);
    this.setFields(row, { ...rec, idHi, idLo, words: this.pool.words(row) }, rec.archivedAt ?? this.archived[row]!);
    if (this.nsOf(row) !== rec.ns) this.changed();
  }

  setImportance(row: number, v: number): void {
    this.imp[row] = v;
  }

  setTimes(row: number, createdAt: number, updatedAt: number): void {
    this.created[row] = createdAt;
    this.updated[row] = updatedAt;
  }

  /** The row's content now lies here on the card (after a compaction moved it). */
  relocate(row: number, where: TextWhere): void {
    this.places.relocate(row, this.idOf(row), where);
  }

  /** Every row's content kept in RAM from now on (the card is gone): rows whose content cannot be had are returned. */
  toRam(): number[] {
    return this.places.toRam(this.rows, (r) => this.idOf(r));
  }

  private changed(): void {
    this.masks.clear();
  }

  /** Removes the row of this id (the last row moves into its place); false when there is none. */
  remove(id: string): boolean {
    const row = this.rowOf(id);
    if (row === undefined) return false;
    const ns = this.nsOf(row);
    const last = this.rows - 1;
    this.ids.remove(row);
    this.places.remove(row, last, id);
    this.pool.remove(row, last);
    if (row !== last) {
      this.matrix.copyWithin(row * this.dims, last * this.dims, (last + 1) * this.dims);
      for (const a of [this.norms, this.idHi, this.idLo, this.nsIx, this.imp, this.ttl, this.created, this.updated, this.archived, this.flags, this.size]) a[row] = a[last]!;
      this.ids.moved(last, row);
    }
    this.rows--;
    this.norms[last] = 0;
    this.perNs.set(ns, this.countIn(ns) - 1);
    this.changed();
    return true;
  }

  clear(): void {
    this.rows = 0;
    this.ids.clear();
    this.perNs.clear();
    this.places.clear();
    this.norms.fill(0);
    this.pool.clear();
    this.changed();
  }

  // ---- searching ----

  /** Norms with every row outside ns zeroed (the rows the hotspots may return). */
  private normsFor(ns: string): Float32Array {
    if (this.countIn(ns) === this.rows) return this.norms;
    let m = this.masks.get(ns);
    if (!m) {
      m = new Float32Array(this.rows);
      const ix = this.nsIds.get(ns);
      if (ix !== undefined) for (let r = 0; r < this.rows; r++) if (this.nsIx[r] === ix) m[r] = this.norms[r]!;
      this.masks.set(ns, m);
    }
    return m;
  }

  /** The k rows of ns most similar (cosine) to q, best first. */
  topk(vecdot: VecdotApi, q: Int8Array, qnorm: number, k: number, ns: string): Scored[] {
    const rows = this.rows;
    if (!rows || !k || this.countIn(ns) === 0) return [];
    k = Math.min(k, rows);
    const idx = new Int32Array(k);
    const score = new Float32Array(k);
    const n = vecdot.topk(this.matrix, rows, this.dims, this.normsFor(ns), q, qnorm, k, idx, score);
    const out: Scored[] = [];
    for (let i = 0; i < n; i++) out.push({ row: idx[i]!, score: score[i]! });
    return out;
  }

  /** BM25 of every row of ns for the query terms (lexicon.ts queryTerms), and the k best. */
  bm25(lexical: LexicalApi, query: Uint32Array, k: number, ns: string): LexicalHits {
    const rows = this.rows;
    const scores = new Float32Array(Math.max(1, rows));
    if (!rows || !query.length || this.countIn(ns) === 0) return { scores, idfSum: 0, best: [] };
    k = Math.min(k, rows);
    const idf = new Float64Array(query.length);
    const idx = new Int32Array(Math.max(1, k));
    const score = new Float32Array(Math.max(1, k));
    const n = this.pool.bm25(lexical, rows, this.normsFor(ns), query, scores, idf, k, idx, score);
    let idfSum = 0;
    for (let i = 0; i < query.length; i++) idfSum += idf[i]!;
    const best: Scored[] = [];
    for (let i = 0; i < n; i++) best.push({ row: idx[i]!, score: score[i]! });
    return { scores, idfSum, best };
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

  /** Cosine of two rows. */
  cosine(vecdot: VecdotApi, a: number, b: number): number {
    const na = this.norms[a]!;
    const nb = this.norms[b]!;
    if (!na || !nb) return 0;
    return vecdot.dot(this.vector(a), this.vector(b)) / (na * nb);
  }
}
