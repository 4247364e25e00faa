// The archive: memories that left the working set by decay, TTL or
// eviction, kept on the card (2000 entries, oldest out first) so they can
// be searched, listed and restored. It lives only with a live card and is
// read from it on first use.

import type { SdCard } from '../hal/index.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { sameEmbedding, type EmbeddingConfig } from './embedder.ts';
import { ARCHIVE_CAP } from './limits.ts';
import { encodeDelete, encodePut, type MemRecord } from './record.ts';
import { VectorFile } from './vector-file.ts';
import { VectorIndex, type Scored } from './vector-index.ts';

export class Archive {
  private file: VectorFile;
  private index: VectorIndex | null = null;
  /** Entries whose vectors came from another embedding, waiting for reembed(). */
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

  /** Loads on first use. Entries made with another embedding wait, unsearchable, for reembed(). */
  private open(): VectorIndex {
    if (this.index) return this.index;
    const emb = this.emb();
    const recs = new Map<string, [MemRecord, Int8Array, number]>();
    const r = this.file.load({
      put: (rec, vec, dims) => {
        recs.set(rec.id, [rec, vec, dims === emb.dims ? Math.fround(Math.sqrt(this.vecdot.dot(vec, vec))) : 0]);
      },
      remove: (id) => void recs.delete(id),
      flush: () => recs.clear(),
    });
    const loaded = new VectorIndex(emb.dims);
    if (r.emb && !sameEmbedding(r.emb, emb)) {
      this.stale = [...recs.values()].map(([rec]) => rec);
    } else {
      for (const [rec, vec, norm] of recs.values()) loaded.put(rec, vec, norm);
      if (r.torn) this.compact(loaded);
    }
    this.index = loaded;
    return loaded;
  }

  private compact(index: VectorIndex): void {
    this.file.compact(this.emb(), index.recs.map((rec, row) => [rec, index.vector(row)] as [MemRecord, Int8Array]));
  }

  get count(): number {
    return this.index ? this.index.count : 0;
  }

  /** Archives records (already removed from the working set); the oldest beyond 2000 go. */
  add(entries: Array<[MemRecord, Int8Array, number]>, why: string, now: number): void {
    if (!entries.length) return;
    const index = this.open();
    const payloads: Uint8Array[] = [];
    const put: Array<[MemRecord, Int8Array, number]> = [];
    for (const [rec, vec, norm] of entries) {
      const a: MemRecord = { ...rec, archivedAt: now, why };
      payloads.push(encodePut(a, vec));
      put.push([a, vec, norm]);
    }
    const overflow = index.count + put.length - ARCHIVE_CAP;
    const drop = overflow > 0 ? this.oldest(index, overflow) : [];
    for (const id of drop) payloads.push(encodeDelete(id));
    this.file.append(payloads, this.emb());
    for (const [a, vec, norm] of put) index.put(a, vec, norm);
    for (const id of drop) index.remove(id);
    if (this.file.compactionDue()) this.compact(index);
  }

  private oldest(index: VectorIndex, n: number): string[] {
    return [...index.recs].sort((a, b) => (a.archivedAt ?? 0) - (b.archivedAt ?? 0)).slice(0, n).map((r) => r.id);
  }

  /** Newest first, one namespace. */
  list(ns: string, limit: number): MemRecord[] {
    const index = this.open();
    return index.recs.filter((r) => r.ns === ns).sort((a, b) => (b.archivedAt ?? 0) - (a.archivedAt ?? 0)).slice(0, limit);
  }

  search(q: Int8Array, qnorm: number, ns: string, n: number): Array<{ rec: MemRecord; score: number }> {
    const index = this.open();
    return index.topk(this.vecdot, q, qnorm, n, ns).map((s: Scored) => ({ rec: index.recs[s.row]!, score: s.score }));
  }

  /** Takes an entry out of the archive (for a restore); null when ns holds no such id. */
  take(id: string, ns: string): { rec: MemRecord; vec: Int8Array; norm: number } | null {
    const index = this.open();
    const row = index.rowOf(id);
    if (row === undefined || index.recs[row]!.ns !== ns) return null;
    const rec = index.recs[row]!;
    const vec = index.vector(row).slice();
    const norm = index.norms[row]!;
    this.file.append([encodeDelete(id)], this.emb());
    index.remove(id);
    return { rec, vec, norm };
  }

  /** Every entry's content, embedded again with the current embedding (after a change of embedding). */
  async reembed(embed: (texts: string[]) => Promise<Array<{ q: Int8Array; norm: number }>>): Promise<void> {
    const index = this.open();
    const recs = [...index.recs, ...this.stale];
    const vecs = await embed(recs.map((r) => r.content));
    const next = new VectorIndex(this.emb().dims);
    recs.forEach((rec, i) => next.put(rec, vecs[i]!.q, vecs[i]!.norm));
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
