// The working set in RAM: one packed int8 matrix (rows x dims) with a norm
// per row, the records beside it, and an id lookup. Search goes through the
// vecdot hotspot; another namespace's rows are hidden from it by a norms
// array with their norms zeroed (topk skips rows of norm 0), built once per
// namespace and change.

import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import type { MemRecord } from './record.ts';

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

  constructor(
    readonly dims: number,
    capacity = 64,
  ) {
    this.matrix = new Int8Array(capacity * dims);
    this.norms = new Float32Array(capacity);
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

  private grow(): void {
    const cap = this.norms.length * 2;
    const m = new Int8Array(cap * this.dims);
    m.set(this.matrix);
    const n = new Float32Array(cap);
    n.set(this.norms);
    this.matrix = m;
    this.norms = n;
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
    } else {
      const old = this.recs[row]!;
      if (old.ns !== rec.ns) {
        this.perNs.set(old.ns, this.countIn(old.ns) - 1);
        this.perNs.set(rec.ns, this.countIn(rec.ns) + 1);
      }
      this.recs[row] = rec;
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
    if (row !== last) {
      const moved = this.recs[last]!;
      this.recs[row] = moved;
      this.byId.set(moved.id, row);
      this.matrix.copyWithin(row * this.dims, last * this.dims, (last + 1) * this.dims);
      this.norms[row] = this.norms[last]!;
    }
    this.recs.pop();
    this.norms[last] = 0;
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
    this.changed();
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
