// The long-term vector store: memories found by meaning and by words
// (ranking.ts), records as the spec lists them, dedup, TTL, pins,
// per-person namespaces and quotas, the working-set cap with eviction to the
// archive, and the card tiers: with a live card every change is journaled
// (vector-file.ts) before it is applied, so a power cut loses at most the
// write in flight, and a memory's content stays on the card (vector-index.ts
// keeps the rest in columns); without one the store runs in RAM under the
// degraded cap and merges what it learned into the card's store when a card
// becomes live again. Its parts: the card tiers and persistence in
// store-card.ts, writes in store-write.ts, decay, prune and dedupe in
// store-maintenance.ts; what they share in store-types.ts.

import { quantize, type VecdotApi } from '../../modules/vecdot/vecdot.ts';
import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { TtlClass } from '../contracts/index.ts';
import { TTL_CLASSES } from '../contracts/index.ts';
import { Archive } from './archive.ts';
import { EmbedError, type Embedder, type EmbeddingConfig } from './embedder.ts';
import { DEGRADED_CAP, TTL_HOURS } from './limits.ts';
import { quotaFor } from './quotas.ts';
import { calibrated, expectedCosine, rankRows, type Candidate, type RankingSides } from './ranking.ts';
import type { MemRecord } from './record.ts';
import { archiveRows, attachCard, commitChanges, compactStore, demoteToRam } from './store-card.ts';
import { dedupe, dream } from './store-maintenance.ts';
import { contentId, MemoryError, nsOf, type Change, type Hit, type StoreCore, type StoreDeps, type WriteInput, type WriteOutcome } from './store-types.ts';
import { updateMemory, writeMemory } from './store-write.ts';
import { VectorFile } from './vector-file.ts';
import { VectorIndex } from './vector-index.ts';

export { contentId, MemoryError, nsOf, PIN_MATCH, UPDATE_MATCH } from './store-types.ts';
export type { Change, Hit, StoreDeps, WriteInput, WriteOutcome } from './store-types.ts';

/** Memories embedded per step of a re-embedding (a remote embedder's batch). */
const REEMBED_BATCH = 32;

export class VectorStore implements StoreCore {
  index: VectorIndex;
  readonly file: VectorFile;
  readonly archive: Archive;
  /** No live card: RAM only, under the degraded cap. */
  degraded = true;
  /** Changes made without a card, merged into the card's store when one becomes live. */
  offline: Change[] = [];
  busy: string | null = null;
  /** What ranks a search (ranking.ts): both sides, or one alone to measure what each brings (the console's MEMSIDES). */
  sides: RankingSides = 'both';
  /** The vectors were made with another embedding than the embedder's: re-embedding is due (reembed()). */
  stale = false;
  /** Ids of memories changed without the duplicate check (memory.update, merges from offline): dedupe's periodic pass looks at these. */
  unchecked = new Set<string>();
  /** Re-embedding's progress: memories done of total; error: why the last attempt stopped. */
  reembedding: { done: number; total: number; error: string | null } | null = null;

  constructor(
    readonly deps: StoreDeps,
    public embedder: Embedder,
  ) {
    this.index = new VectorIndex(embedder.config.dims);
    this.file = new VectorFile(deps.sd, '/mem/vec', deps.sha);
    this.archive = new Archive(deps.sd, '/mem/arc', deps.sha, deps.vecdot, () => this.embedder.config);
  }

  get emb(): EmbeddingConfig {
    return this.embedder.config;
  }

  get vecdot(): VecdotApi {
    return this.deps.vecdot;
  }

  get lexical(): LexicalApi {
    return this.deps.lexical;
  }

  /** How alike two rows are, calibrated as a query's similarity is (ranking.ts), seen from row b. */
  similarity(a: number, b: number): number {
    return calibrated(this.index.cosine(this.deps.vecdot, a, b), expectedCosine(this.index.vector(b), this.index.norms[b]!, this.embedder.mean));
  }

  /** The working-set cap in force: max_vectors, and the degraded cap without a card. */
  cap(): number {
    const max = this.deps.config.get().max_vectors;
    return this.degraded ? Math.min(max, DEGRADED_CAP) : max;
  }

  now(): number {
    return this.deps.clock.wallMs();
  }

  norm(vec: Int8Array): number {
    return Math.fround(Math.sqrt(this.deps.vecdot.dot(vec, vec)));
  }

  feed(): void {
    this.deps.feed?.();
  }

  protectedAt(row: number): boolean {
    return this.index.permanentAt(row) || this.index.pinnedAt(row);
  }

  /** Whether row belongs to ns and has not outlived its TTL (while the clock is set). */
  visibleAt(row: number, ns: string, now: number, synced: boolean): boolean {
    const ix = this.index;
    if (ix.nsOf(row) !== ns) return false;
    return !(synced && !this.protectedAt(row) && ix.ttlOf(row) >= 0 && now > ix.updatedAtOf(row) + ix.ttlOf(row) * 3600_000);
  }

  // ---- the card (store-card.ts) ----

  /** Opens the card's store when a card is live; true when its vectors must be re-embedded (reembed()). */
  attach(): boolean {
    return attachCard(this);
  }

  /** The card went away: memory runs in RAM under the degraded cap. */
  demote(): void {
    demoteToRam(this);
  }

  /** Records changes: journaled on the card when it is live, then applied to the index. */
  commit(changes: Change[]): void {
    commitChanges(this, changes);
  }

  /** Rewrites every memory into the next snapshot; the journal starts empty. */
  compact(): void {
    compactStore(this);
  }

  compactIfDue(): void {
    if (!this.degraded && this.file.compactionDue()) this.compact();
  }

  /** Moves rows' memories to the archive (before they leave the working set). */
  toArchive(rows: number[], why: string): void {
    archiveRows(this, rows, why);
  }

  // ---- embedding ----

  checkBusy(): void {
    if (this.busy) throw new MemoryError('busy', this.busy);
    if (this.stale) {
      const r = this.reembedding;
      throw new MemoryError('busy', `memories are waiting to be re-embedded after a change of embedding${r?.error ? ` (the last attempt stopped: ${r.error})` : ''}; try again shortly`);
    }
  }

  async embedQ(texts: string[]): Promise<Array<{ q: Int8Array; norm: number }>> {
    let vecs: Float32Array[];
    try {
      vecs = await this.embedder.embed(texts);
    } catch (e) {
      throw new MemoryError('embedding', e instanceof EmbedError ? e.message : `embedding failed: ${String(e)}`);
    }
    return vecs.map((v) => quantize(v));
  }

  /** Re-embeds every memory (and the archive) with the current embedder: after a change of embedding. */
  async reembed(): Promise<void> {
    const old = this.index;
    const total = old.count;
    const progress = { done: 0, total, error: null as string | null };
    this.reembedding = progress;
    this.stale = true;
    const say = (): string => `memories are being re-embedded after a change of embedding (${progress.done} of ${total}); try again shortly`;
    this.busy = say();
    try {
      const next = new VectorIndex(this.emb.dims, Math.max(64, total));
      next.source = old.source;
      // in batches, so the progress shows and one failed call loses one batch of work
      for (let i = 0; i < total; i += REEMBED_BATCH) {
        const rows = Array.from({ length: Math.min(REEMBED_BATCH, total - i) }, (_, j) => i + j);
        const recs = rows.map((r) => old.rec(r));
        const vecs = await this.embedQ(recs.map((r) => r.content));
        rows.forEach((r, j) => next.put(recs[j]!, vecs[j]!.q, vecs[j]!.norm, old.whereOf(r)));
        progress.done = i + rows.length;
        this.busy = say();
        this.feed(); // an offline embedder never yields: thousands of memories must not starve the watchdog
      }
      this.index = next;
      this.stale = false;
      if (!this.degraded) {
        this.compact();
        try {
          await this.archive.reembed((texts) => this.embedQ(texts));
        } catch (e) {
          this.deps.log.warn('mem', `archive re-embedding failed: ${String(e)}`);
        }
      }
      this.offline = [];
      this.reembedding = null;
      this.deps.log.info('mem', `re-embedded ${total} memories as ${this.emb.provider}/${this.emb.model}/${this.emb.dims}`);
    } catch (e) {
      progress.error = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      this.busy = null;
    }
  }

  // ---- writing (store-write.ts) ----

  /** Writes one memory for person (null: the owner), with dedup, quotas and the cap. */
  write(input: WriteInput, person: string | null): Promise<WriteOutcome> {
    return writeMemory(this, input, person);
  }

  /** Replaces a memory's content and fields (memory.update). */
  update(target: MemRecord, input: { content: string; importance?: number; permanent?: boolean; ttl?: TtlClass }, person: string | null): Promise<MemRecord> {
    return updateMemory(this, target, input, person);
  }

  bytesIn(ns: string): number {
    let n = 0;
    for (let r = 0; r < this.index.count; r++) if (this.index.nsOf(r) === ns) n += this.index.bytesOf(r);
    return n;
  }

  /** Rows that leave to make room for `adding` more: least important first, then least recently updated; null if not enough can leave. */
  evictionVictims(adding: number): number[] | null {
    const ix = this.index;
    const over = ix.count + adding - this.cap();
    if (over <= 0) return [];
    const candidates: number[] = [];
    for (let r = 0; r < ix.count; r++) if (!this.protectedAt(r)) candidates.push(r);
    if (candidates.length < over) return null;
    candidates.sort((a, b) => ix.importanceOf(a) - ix.importanceOf(b) || ix.updatedAtOf(a) - ix.updatedAtOf(b));
    return candidates.slice(0, over);
  }

  enforceCap(): void {
    let victims = this.evictionVictims(0);
    if (victims === null) {
      victims = [];
      for (let r = 0; r < this.index.count; r++) if (!this.protectedAt(r)) victims.push(r);
    }
    if (!victims.length) return;
    this.toArchive(victims, 'evicted');
    try {
      this.commit(victims.map((r) => ({ del: this.index.idOf(r) })));
    } catch (e) {
      this.deps.log.warn('mem', `trimming to the cap failed: ${String(e)}`);
    }
  }

  // ---- reading ----

  /**
   * The memories of person's namespace that answer the queries, by meaning and
   * by words (ranking.ts), best first, past their TTL left out; at most `pool`
   * rows from each side per query. Rows only: read a memory with index.rec().
   */
  async candidates(queries: string[], person: string | null, pool: number): Promise<Candidate[]> {
    this.checkBusy();
    const texts = queries.map((q) => (typeof q === 'string' ? q.trim() : '')).filter(Boolean);
    if (!texts.length || this.index.count === 0) return [];
    const vecs = await this.embedQ(texts);
    this.checkBusy();
    const ns = nsOf(person);
    const now = this.now();
    const synced = this.deps.clock.synced();
    const ranked = rankRows(this.index, this.deps, texts.map((text, i) => ({ text, q: vecs[i]!.q, norm: vecs[i]!.norm })), ns, pool, this.embedder.mean, this.sides);
    return ranked.filter((c) => this.visibleAt(c.row, ns, now, synced));
  }

  /** The closest memories to one query in person's namespace, relevance (ranking.ts) at or above threshold, best first. */
  async search(query: string, person: string | null, n: number, threshold: number): Promise<Hit[]> {
    this.checkBusy();
    if (typeof query !== 'string' || !query.trim()) throw new MemoryError('bad-input', 'query is empty');
    const hits = await this.candidates([query], person, Math.max(50, n * 4));
    return hits
      .filter((h) => h.rel >= threshold)
      .slice(0, n)
      .map((h) => ({ rec: this.index.rec(h.row), score: h.rel }));
  }

  /** A page of person's memories, most important first. */
  browse(person: string | null, limit: number, offset: number): { total: number; items: MemRecord[] } {
    const ns = nsOf(person);
    const now = this.now();
    const synced = this.deps.clock.synced();
    const ix = this.index;
    const rows: number[] = [];
    for (let r = 0; r < ix.count; r++) if (this.visibleAt(r, ns, now, synced)) rows.push(r);
    rows.sort((a, b) => ix.importanceOf(b) - ix.importanceOf(a) || ix.updatedAtOf(b) - ix.updatedAtOf(a));
    return { total: rows.length, items: rows.slice(offset, offset + limit).map((r) => ix.rec(r)) };
  }

  /** The memory with this id in person's namespace (null when absent, or past its TTL). */
  get(id: string, person: string | null): MemRecord | null {
    const row = this.index.rowOf(id);
    return row !== undefined && this.visibleAt(row, nsOf(person), this.now(), this.deps.clock.synced()) ? this.index.rec(row) : null;
  }

  /** The memory meant by an id, or the closest one to a text (at least `min` similar). */
  async find(ref: { id?: string; text?: string }, person: string | null, min: number): Promise<MemRecord> {
    if (ref.id) {
      const r = this.get(ref.id, person);
      if (!r) throw new MemoryError('not-found', `no memory with id ${ref.id}`);
      return r;
    }
    if (!ref.text || !ref.text.trim()) throw new MemoryError('bad-input', 'give an id or the memory\'s content');
    const exact = this.get(contentId(this.deps.sha, nsOf(person), ref.text), person);
    if (exact) return exact;
    const [hit] = await this.search(ref.text, person, 1, min);
    if (!hit) throw new MemoryError('not-found', 'no memory matches closely enough');
    return hit.rec;
  }

  // ---- changing ----

  /** Pins or unpins (pins never decay, expire or get evicted). */
  setPinned(target: MemRecord, pinned: boolean, person: string | null): MemRecord {
    this.checkBusy();
    if (target.pinned === pinned) return target;
    const ix = this.index;
    if (pinned) {
      const quota = quotaFor(this.deps.people, person);
      let pins = 0;
      for (let r = 0; r < ix.count; r++) if (ix.nsOf(r) === target.ns && ix.pinnedAt(r)) pins++;
      if (pins >= quota.pins) throw new MemoryError('quota', `pin quota reached (${quota.pins} pins)`);
    }
    const row = ix.rowOf(target.id)!;
    const rec: MemRecord = { ...target, pinned };
    this.commit([{ put: rec, vec: ix.vector(row).slice(), norm: ix.norms[row]! }]);
    return rec;
  }

  delete(target: MemRecord): void {
    this.checkBusy();
    this.commit([{ del: target.id }]);
    this.compactIfDue();
  }

  /** Removes every row but (with keepPermanent) the permanent and pinned ones; from the index only. */
  applyFlush(keepPermanent: boolean): number {
    const ix = this.index;
    const gone: string[] = [];
    for (let r = 0; r < ix.count; r++) if (!(keepPermanent && this.protectedAt(r))) gone.push(ix.idOf(r));
    if (gone.length === ix.count) ix.clear();
    else for (const id of gone) ix.remove(id);
    return gone.length;
  }

  /** Forgets every memory of every person (keep_permanent keeps permanent and pinned ones). */
  flush(keepPermanent: boolean): number {
    this.checkBusy();
    const before = this.index.count;
    this.commit([{ flush: keepPermanent }]);
    this.compact();
    return before - this.index.count;
  }

  /** Merges near-duplicates (store-maintenance.ts). */
  dedupe(): number {
    return dedupe(this);
  }

  /** Maintenance: `steps` decay steps, prune, dedupe (store-maintenance.ts). */
  dream(steps: number): { decayed: number; pruned: number; merged: number } {
    return dream(this, steps);
  }

  // ---- archive ----

  archiveAvailable(): boolean {
    return !this.degraded && this.deps.cardLive();
  }

  private needArchive(): void {
    if (!this.archiveAvailable()) throw new MemoryError('no-card', 'the archive needs an SD card');
  }

  async archiveSearch(query: string, person: string | null, n: number): Promise<Hit[]> {
    this.needArchive();
    if (!query.trim()) throw new MemoryError('bad-input', 'query is empty');
    const [{ q, norm }] = (await this.embedQ([query])) as [{ q: Int8Array; norm: number }];
    return this.archive.search(q, norm, nsOf(person), n);
  }

  archiveList(person: string | null, limit: number): MemRecord[] {
    this.needArchive();
    return this.archive.list(nsOf(person), limit);
  }

  /** Moves an archived memory back into the working set (ttl: a new time to live from now). */
  archiveRestore(id: string, person: string | null, ttl?: TtlClass): MemRecord {
    this.needArchive();
    this.checkBusy();
    if (ttl !== undefined && !(TTL_CLASSES as readonly string[]).includes(ttl)) throw new MemoryError('bad-input', `ttl must be one of ${TTL_CLASSES.join(', ')}`);
    const quota = quotaFor(this.deps.people, person);
    const ns = nsOf(person);
    if (this.index.countIn(ns) >= quota.vectors) throw new MemoryError('quota', `memory quota reached (${quota.vectors} memories)`);
    const evict = this.evictionVictims(1);
    if (evict === null) throw new MemoryError('full', 'memory is full');
    const taken = this.archive.take(id, ns);
    if (!taken) throw new MemoryError('not-found', `no archived memory with id ${id}`);
    const now = this.now();
    const rec: MemRecord = { ...taken.rec, updatedAt: now, importance: Math.max(taken.rec.importance, 0.5) };
    delete rec.archivedAt;
    delete rec.why;
    if (ttl) {
      rec.permanent = ttl === 'permanent';
      rec.ttlHours = TTL_HOURS[ttl];
    }
    if (quota.ttlHours >= 0 && (rec.ttlHours < 0 || rec.ttlHours > quota.ttlHours)) {
      rec.ttlHours = quota.ttlHours;
      rec.permanent = false;
    }
    this.toArchive(evict, 'evicted');
    const gone = evict.map((r) => this.index.idOf(r));
    this.commit([...gone.map((del) => ({ del })), { put: rec, vec: taken.vec, norm: taken.norm }]);
    return rec;
  }

  // ---- figures ----

  stats(): { vectors: number; cap: number; pinned: number; permanent: number; bytes: number; archive: number; cardBytes: number } {
    const ix = this.index;
    let pinned = 0;
    let permanent = 0;
    let bytes = 0;
    for (let r = 0; r < ix.count; r++) {
      if (ix.pinnedAt(r)) pinned++;
      if (ix.permanentAt(r)) permanent++;
      bytes += ix.bytesOf(r);
    }
    return {
      vectors: ix.count,
      cap: this.cap(),
      pinned,
      permanent,
      bytes,
      archive: this.archive.count,
      cardBytes: this.degraded ? 0 : this.file.bytesOnCard() + this.archive.bytesOnCard(),
    };
  }
}
