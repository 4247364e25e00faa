// The archive: memories that left the working set by decay, TTL or
// eviction, kept on the card (2000 entries, oldest out first) so they can
// be searched, listed and restored. It lives only with a live card and is
// read from it on first use; like the working set, only its columns are in
// RAM (vector-index.ts), a memory's content is read for the ones shown.

import type { SdCard } from '../hal/index.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { sameEmbedding, type EmbeddingConfig } from './embedder.ts';
import { termList } from './lexicon.ts';
import { ARCHIVE_CAP } from './limits.ts';
import { coldJson, encodeRecord } from './record-bin.ts';
import { encodeDelete, type MemRecord } from './record.ts';
import { VectorFile } from './vector-file.ts';
import { VectorIndex, type Scored } from './vector-index.ts';

export class Archive {
  private file: VectorFile;
  private index: VectorIndex | null = null;
  /** Entries whose vectors came from another embedding, waiting for reembed() (with their content). */
  private stale: MemRecord[] = [];

  constructor(
    sd: SdCard,
    dir: string,
    sha: Sha256Api,
    private readonly vecdot: VecdotApi,
    private readonly emb: () => EmbeddingConfig,
  ) {
    this.file = new VectorFile(sd, dir, sha);
  }

  private norm(vec: Int8Array): number {
    return Math.fround(Math.sqrt(this.vecdot.dot(vec, vec)));
  }

  /** Loads on first use. Entries made with another embedding wait, unsearchable, for reembed(). */
  private open(): VectorIndex {
    if (this.index) return this.index;
    const emb = this.emb();
    let loaded = new VectorIndex(emb.dims);
    const r = this.file.load({
      begin: (e) => void (loaded = new VectorIndex(e.dims)),
      record: (d, where) => void loaded.putHot(d.hot, null, d.vec, this.norm(d.vec), { terms: d.terms, length: d.hot.words }, where),
      legacy: (rec, vec) => void loaded.put(rec, vec.slice(), this.norm(vec), null),
      remove: (id) => void loaded.remove(id),
      flush: () => loaded.clear(),
    });
    loaded.source = this.file;
    if (r.emb && !sameEmbedding(r.emb, emb)) {
      this.stale = Array.from({ length: loaded.count }, (_, i) => loaded.rec(i));
      loaded = new VectorIndex(emb.dims);
      loaded.source = this.file;
    } else if (r.torn || r.old) this.compact(loaded);
    this.index = loaded;
    return loaded;
  }

  private compact(index: VectorIndex): void {
    const coldAt = new Uint32Array(index.count);
    const coldLen = new Uint32Array(index.count);
    const at = this.file.compact(this.emb(), index.count, (r) => {
      const cold = coldJson(index.cold(r));
      const p = encodeRecord(index.rec(r), index.vector(r), index.terms(r), index.wordsOf(r), cold);
      coldAt[r] = p.length - cold.length;
      coldLen[r] = cold.length;
      return p;
    });
    for (let r = 0; r < at.length; r++) index.relocate(r, { file: 1, off: at[r]! + coldAt[r]!, len: coldLen[r]! });
  }

  get count(): number {
    return this.index ? this.index.count : 0;
  }

  /** Archives records (already removed from the working set); the oldest beyond 2000 go. */
  add(entries: Array<[MemRecord, Int8Array, number]>, why: string, now: number): void {
    if (!entries.length) return;
    const index = this.open();
    const payloads: Uint8Array[] = [];
    const put: Array<[MemRecord, Int8Array, number, number]> = [];
    for (const [rec, vec, norm] of entries) {
      const a: MemRecord = { ...rec, archivedAt: now, why };
      const t = termList(a.content);
      const cold = coldJson(a);
      payloads.push(encodeRecord(a, vec, t.terms, t.length, cold));
      put.push([a, vec, norm, cold.length]);
    }
    const overflow = index.count + put.length - ARCHIVE_CAP;
    const drop = overflow > 0 ? this.oldest(index, overflow) : [];
    for (const id of drop) payloads.push(encodeDelete(id));
    const at = this.file.append(payloads, this.emb());
    put.forEach(([a, vec, norm, coldLength], i) => void index.put(a, vec, norm, { file: 2, off: at[i]! + payloads[i]!.length - coldLength, len: coldLength }));
    for (const id of drop) index.remove(id);
    if (this.file.compactionDue()) this.compact(index);
  }

  private rowsByAge(index: VectorIndex, ns: string | null): number[] {
    const rows: number[] = [];
    for (let r = 0; r < index.count; r++) if (ns === null || index.nsOf(r) === ns) rows.push(r);
    return rows.sort((a, b) => index.archivedAtOf(a) - index.archivedAtOf(b));
  }

  private oldest(index: VectorIndex, n: number): string[] {
    return this.rowsByAge(index, null)
      .slice(0, n)
      .map((r) => index.idOf(r));
  }

  /** Newest first, one namespace. */
  list(ns: string, limit: number): MemRecord[] {
    const index = this.open();
    return this.rowsByAge(index, ns)
      .reverse()
      .slice(0, limit)
      .map((r) => index.rec(r));
  }

  search(q: Int8Array, qnorm: number, ns: string, n: number): Array<{ rec: MemRecord; score: number }> {
    const index = this.open();
    return index.topk(this.vecdot, q, qnorm, n, ns).map((s: Scored) => ({ rec: index.rec(s.row), score: s.score }));
  }

  /** Takes an entry out of the archive (for a restore); null when ns holds no such id. */
  take(id: string, ns: string): { rec: MemRecord; vec: Int8Array; norm: number } | null {
    const index = this.open();
    const row = index.rowOf(id);
    if (row === undefined || index.nsOf(row) !== ns) return null;
    const rec = index.rec(row);
    const vec = index.vector(row).slice();
    const norm = index.norms[row]!;
    this.file.append([encodeDelete(id)], this.emb());
    index.remove(id);
    return { rec, vec, norm };
  }

  /** Every entry's content, embedded again with the current embedding (after a change of embedding). */
  async reembed(embed: (texts: string[]) => Promise<Array<{ q: Int8Array; norm: number }>>): Promise<void> {
    const index = this.open();
    const recs = [...Array.from({ length: index.count }, (_, i) => index.rec(i)), ...this.stale];
    const vecs = await embed(recs.map((r) => r.content));
    const next = new VectorIndex(this.emb().dims);
    next.source = this.file;
    recs.forEach((rec, i) => next.put(rec, vecs[i]!.q, vecs[i]!.norm, null));
    this.compact(next);
    this.index = next;
    this.stale = [];
  }

  /** Forget the loaded copy (the card went away or came back). */
  unload(): void {
    this.file.close();
    this.index = null;
    this.stale = [];
  }

  bytesOnCard(): number {
    return this.file.bytesOnCard();
  }
}
