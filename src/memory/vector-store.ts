// The long-term vector store: int8 vectors with cosine search through the
// vecdot hotspot, records as the spec lists them, dedup, TTL, decay, prune,
// pins, per-person namespaces and quotas, the working-set cap with eviction
// to the archive, and the card tiers: with a live card every change is
// journaled (vector-file.ts) before it is applied, so a power cut loses at
// most the write in flight; without one the store runs in RAM under the
// degraded cap and merges what it learned into the card's store when a card
// becomes live again.

import type { Clock, SdCard } from '../hal/index.ts';
import { HalError } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { sha256 } from '../../modules/sha256/sha256.ts';
import { quantize, type VecdotApi } from '../../modules/vecdot/vecdot.ts';
import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { TtlClass } from '../contracts/index.ts';
import { TTL_CLASSES } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { toHex } from '../util/encoding.ts';
import { encode, utf8Length } from '../util/utf8.ts';
import { Archive } from './archive.ts';
import type { ConfigStore } from './config.ts';
import { EmbedError, sameEmbedding, type Embedder, type EmbeddingConfig } from './embedder.ts';
import {
  CONTENT_MAX_BYTES,
  DECAY_FLOOR,
  DEDUP_BUMP,
  DEDUP_DISTANCE,
  DEFAULT_TTL_HOURS,
  DEGRADED_CAP,
  METADATA_MAX_BYTES,
  PRUNE_BELOW,
  SOURCE_MAX_BYTES,
  TTL_HOURS,
} from './limits.ts';
import { quotaFor, type People } from './quotas.ts';
import { encodeDelete, encodeFlush, encodePut, type MemRecord } from './record.ts';
import { VectorFile } from './vector-file.ts';
import { VectorIndex } from './vector-index.ts';
import { calibrated, expectedCosine, rankRows, type Candidate, type RankingSides } from './ranking.ts';
import { termList } from './lexicon.ts';
import { replaceEvery } from '../util/replace.ts';
import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE_RUNS = /\s+/;

/** A failure the caller can show: code is stable, message is a sentence. Nothing was changed. */
export class MemoryError extends Error {
  constructor(
    readonly code: 'bad-input' | 'quota' | 'full' | 'embedding' | 'storage' | 'not-found' | 'busy' | 'no-card',
    message: string,
  ) {
    super(message);
  }
}

export interface WriteInput {
  content: string;
  importance?: number;
  permanent?: boolean;
  ttl?: TtlClass;
  source?: string;
  metadata?: Record<string, unknown> | null;
  /** Written at a person's direct request rather than by the model's own turn. */
  creator?: boolean;
}

export interface WriteOutcome {
  /** added: a new memory; bumped: a duplicate raised an existing one; replaced: a duplicate with more importance took its place. */
  action: 'added' | 'bumped' | 'replaced';
  record: MemRecord;
  /** Memories moved to the archive (or dropped without a card) to stay under the cap. */
  evicted: number;
  /** The person's ttl quota shortened the requested time to live. */
  ttlLimited: boolean;
}

export interface Hit {
  rec: MemRecord;
  /** Cosine similarity of the quantized vectors. */
  score: number;
}

/** Memories embedded per step of a re-embedding (a remote embedder's batch). */
const REEMBED_BATCH = 32;

/** Memories whose timestamps predate this were written before the clock was set (2020-01-01). */
const SANE_EPOCH_MS = 1577836800000;
/** A memory.update or pin by content needs a match at least this close. */
export const UPDATE_MATCH = 0.5;
export const PIN_MATCH = 0.8;

export interface StoreDeps {
  sd: SdCard;
  cardLive: () => boolean;
  sha: Sha256Api;
  vecdot: VecdotApi;
  lexical: LexicalApi;
  clock: Clock;
  log: Log;
  config: ConfigStore;
  people: People;
}

type OfflineOp = { put: MemRecord; vec: Int8Array } | { del: string } | { flush: boolean };

export function nsOf(person: string | null): string {
  return person ?? '';
}

/** The deterministic id: SHA-256 of the namespace and the whitespace-normalized content, 16 hex digits. */
export function contentId(sha: Sha256Api, ns: string, content: string): string {
  return toHex(sha256(sha, encode(`${ns}\n${normalize(content)}`)).subarray(0, 8));
}

function normalize(content: string): string {
  return replaceEvery(content.trim(), WHITESPACE_RUNS, ' ');
}

export function isExpired(r: MemRecord, now: number, synced: boolean): boolean {
  return synced && !r.permanent && !r.pinned && r.ttlHours >= 0 && now > r.updatedAt + r.ttlHours * 3600_000;
}

function protectedRec(r: MemRecord): boolean {
  return r.permanent || r.pinned;
}

export class VectorStore {
  index: VectorIndex;
  private file: VectorFile;
  readonly archive: Archive;
  /** No live card: RAM only, under the degraded cap. */
  degraded = true;
  /** Changes made without a card, merged into the card's store when one becomes live. */
  private offline: OfflineOp[] = [];
  private busy: string | null = null;
  /** What ranks a search (ranking.ts): both sides, or one alone to measure what each brings (the console's MEMSIDES). */
  sides: RankingSides = 'both';
  /** The vectors were made with another embedding than the embedder's: re-embedding is due (reembed()). */
  stale = false;
  /** Re-embedding's progress: memories done of total; error: why the last attempt stopped. */
  reembedding: { done: number; total: number; error: string | null } | null = null;

  constructor(
    private readonly deps: StoreDeps,
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

  private now(): number {
    return this.deps.clock.wallMs();
  }

  private norm(vec: Int8Array): number {
    return Math.fround(Math.sqrt(this.deps.vecdot.dot(vec, vec)));
  }

  // ---- tiers ----

  /**
   * Opens the card's store when a card is live (at boot, and when one comes
   * back). Returns true when the vectors on the card were made with another
   * embedding and must be re-embedded (reembed()).
   */
  attach(): boolean {
    if (!this.deps.cardLive()) return false;
    const t0 = this.deps.clock.monoMs();
    const loaded = new Map<string, [MemRecord, Int8Array, number]>();
    let fileDims = this.emb.dims;
    let result;
    try {
      result = this.file.load({
        put: (rec, vec, dims) => {
          fileDims = dims;
          loaded.set(rec.id, [rec, vec, 0]);
        },
        remove: (id) => void loaded.delete(id),
        flush: (keep) => {
          for (const [id, [r]] of loaded) if (!(keep && r.permanent)) loaded.delete(id);
        },
      });
    } catch (e) {
      this.deps.log.warn('mem', `vector store not readable from the card: ${String(e)}`);
      return false;
    }
    const index = new VectorIndex(fileDims, Math.max(64, loaded.size));
    for (const [rec, vec] of loaded.values()) index.put(rec, vec, this.norm(vec));
    const offline = this.offline;
    this.index = index;
    this.degraded = false;
    this.offline = [];
    this.archive.unload();
    const stale = result.emb !== null && !sameEmbedding(result.emb, this.emb);
    if (result.torn) this.deps.log.warn('mem', 'vector journal had a torn tail; dropped');
    if (!stale) {
      if (result.torn) this.compact();
      // What was learned without a card joins the card's store.
      for (const op of offline) {
        try {
          if ('put' in op) {
            this.file.append([encodePut(op.put, op.vec)], this.emb);
            this.index.put(op.put, op.vec, this.norm(op.vec));
          } else if ('del' in op) {
            if (this.index.get(op.del)) {
              this.file.append([encodeDelete(op.del)], this.emb);
              this.index.remove(op.del);
            }
          } else this.applyFlush(op.flush, true);
        } catch (e) {
          this.deps.log.warn('mem', `merging a memory made without a card failed: ${String(e)}`);
        }
      }
      this.enforceCap();
    }
    this.deps.log.info('mem', `vector store on the card: ${this.index.count} memories in ${Math.round(this.deps.clock.monoMs() - t0)} ms${stale ? ' (re-embedding)' : ''}`);
    return stale;
  }

  /** The card went away: keep the most important memories in RAM under the degraded cap. */
  demote(): void {
    if (this.degraded) return;
    this.file.close();
    this.archive.unload();
    this.degraded = true;
    const keep = [...this.index.recs]
      .sort((a, b) => Number(protectedRec(b)) - Number(protectedRec(a)) || b.importance - a.importance)
      .slice(0, DEGRADED_CAP);
    const keepIds = new Set(keep.map((r) => r.id));
    for (const r of [...this.index.recs]) if (!keepIds.has(r.id)) this.index.remove(r.id);
    this.deps.log.warn('mem', `no SD card: memory runs in RAM (${this.index.count} kept, cap ${DEGRADED_CAP})`);
  }

  /**
   * Records changes: journaled on the card when it is live, else kept for the
   * card's return. A card that vanished demotes the store and the change
   * still applies in RAM; any other card failure throws and nothing changes.
   */
  private persist(payloads: Uint8Array[], offline: OfflineOp[]): void {
    if (!this.degraded) {
      try {
        this.file.append(payloads, this.emb);
        return;
      } catch (e) {
        if (!(e instanceof HalError) || e.code !== 'ENOCARD') {
          throw new MemoryError('storage', `the memory could not be saved on the SD card (${e instanceof HalError ? e.code : String(e)}); nothing was changed`);
        }
        this.demote();
      }
    }
    this.offline.push(...offline);
    if (this.offline.length > 4 * DEGRADED_CAP) this.offline.splice(0, this.offline.length - 4 * DEGRADED_CAP);
  }

  private compact(): void {
    if (this.degraded) return;
    try {
      this.file.compact(this.emb, this.index.recs.map((r, row) => [r, this.index.vector(row)] as [MemRecord, Int8Array]));
    } catch (e) {
      this.deps.log.warn('mem', `compaction failed (the journal stays valid): ${String(e)}`);
    }
  }

  private compactIfDue(): void {
    if (!this.degraded && this.file.compactionDue()) this.compact();
  }

  private toArchive(entries: MemRecord[], why: string): void {
    if (this.degraded || !entries.length) return;
    try {
      this.archive.add(
        entries.map((r) => {
          const row = this.index.rowOf(r.id)!;
          return [r, this.index.vector(row).slice(), this.index.norms[row]!] as [MemRecord, Int8Array, number];
        }),
        why,
        this.now(),
      );
    } catch (e) {
      this.deps.log.warn('mem', `archiving ${entries.length} memories failed: ${String(e)}`);
    }
  }

  // ---- embedding ----

  private checkBusy(): void {
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
    const recs = [...this.index.recs];
    const progress = { done: 0, total: recs.length, error: null as string | null };
    this.reembedding = progress;
    this.stale = true;
    this.busy = `memories are being re-embedded after a change of embedding (0 of ${recs.length}); try again shortly`;
    try {
      const next = new VectorIndex(this.emb.dims, Math.max(64, recs.length));
      // in batches, so the progress shows and one failed call loses one batch of work
      for (let i = 0; i < recs.length; i += REEMBED_BATCH) {
        const batch = recs.slice(i, i + REEMBED_BATCH);
        const vecs = await this.embedQ(batch.map((r) => r.content));
        batch.forEach((r, j) => next.put(r, vecs[j]!.q, vecs[j]!.norm));
        progress.done = i + batch.length;
        this.busy = `memories are being re-embedded after a change of embedding (${progress.done} of ${recs.length}); try again shortly`;
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
      this.deps.log.info('mem', `re-embedded ${recs.length} memories as ${this.emb.provider}/${this.emb.model}/${this.emb.dims}`);
    } catch (e) {
      progress.error = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      this.busy = null;
    }
  }

  // ---- writing ----

  private validate(input: WriteInput): { content: string; importance: number; ttlHours: number; permanent: boolean; source: string; metadata: Record<string, unknown> | null } {
    if (typeof input.content !== 'string') throw new MemoryError('bad-input', 'content must be text');
    const content = capBytes(normalize(input.content), CONTENT_MAX_BYTES);
    if (!content) throw new MemoryError('bad-input', 'content is empty');
    const imp = typeof input.importance === 'number' && Number.isFinite(input.importance) ? Math.min(1, Math.max(0, input.importance)) : 0.5;
    let permanent = input.permanent === true;
    if (input.ttl !== undefined && !(TTL_CLASSES as readonly string[]).includes(input.ttl)) throw new MemoryError('bad-input', `ttl must be one of ${TTL_CLASSES.join(', ')}`);
    if (input.ttl === 'permanent') permanent = true;
    const ttlHours = permanent ? -1 : input.ttl ? TTL_HOURS[input.ttl] : DEFAULT_TTL_HOURS;
    const source = input.source === undefined || input.source === '' ? 'self' : String(input.source);
    if (utf8Length(source) > SOURCE_MAX_BYTES) throw new MemoryError('bad-input', `source must be at most ${SOURCE_MAX_BYTES} bytes`);
    let metadata: Record<string, unknown> | null = null;
    if (input.metadata !== undefined && input.metadata !== null) {
      if (typeof input.metadata !== 'object' || Array.isArray(input.metadata)) throw new MemoryError('bad-input', 'metadata must be an object');
      if (utf8Length(stringify(input.metadata)) > METADATA_MAX_BYTES) throw new MemoryError('bad-input', `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`);
      metadata = input.metadata;
    }
    return { content, importance: imp, ttlHours, permanent, source, metadata };
  }

  /** Writes one memory for person (null: the owner), with dedup, quotas and the cap. */
  async write(input: WriteInput, person: string | null): Promise<WriteOutcome> {
    this.checkBusy();
    const v = this.validate(input);
    const ns = nsOf(person);
    const quota = quotaFor(this.deps.people, person);
    if (quota.vectors <= 0) throw new MemoryError('quota', 'this person may not keep memories');
    let ttlLimited = false;
    if (quota.ttlHours >= 0 && (v.ttlHours < 0 || v.ttlHours > quota.ttlHours)) {
      v.ttlHours = quota.ttlHours;
      v.permanent = false;
      ttlLimited = true;
    }
    const [{ q, norm }] = (await this.embedQ([v.content])) as [{ q: Int8Array; norm: number }];
    this.checkBusy();
    if (q.length !== this.index.dims) throw new MemoryError('busy', 'the embedding changed during the write; try again');
    const now = this.now();
    const id = contentId(this.deps.sha, ns, v.content);
    const same = this.index.get(id);
    const near = same ? null : this.index.sameWords(this.deps, termList(v.content).terms, q, norm, ns, 1 - DEDUP_DISTANCE)[0];
    const dup = same ?? (near ? this.index.recs[near.row]! : null);
    if (dup) return { ...this.mergeDuplicate(dup, v, id, q, norm, now, input.creator === true), evicted: 0, ttlLimited };

    if (this.index.countIn(ns) >= quota.vectors) throw new MemoryError('quota', `memory quota reached (${quota.vectors} memories); delete or let some expire first`);
    if (quota.bytes !== Infinity && this.bytesIn(ns) + utf8Length(v.content) > quota.bytes)
      throw new MemoryError('quota', `memory quota reached (${quota.bytes} bytes of content)`);

    const rec: MemRecord = {
      id,
      ns,
      content: v.content,
      importance: v.importance,
      ttlHours: v.ttlHours,
      createdAt: now,
      updatedAt: now,
      source: v.source,
      creator: input.creator === true,
      permanent: v.permanent,
      pinned: false,
      metadata: v.metadata,
      bytes: utf8Length(v.content),
    };
    const evict = this.evictionVictims(1);
    if (evict === null) throw new MemoryError('full', `memory is full (${this.cap()} memories, all permanent or pinned)`);
    this.toArchive(evict, 'evicted');
    const payloads = [...evict.map((r) => encodeDelete(r.id)), encodePut(rec, q)];
    this.persist(payloads, [...evict.map((r) => ({ del: r.id })), { put: rec, vec: q }]);
    for (const r of evict) this.index.remove(r.id);
    this.index.put(rec, q, norm);
    this.compactIfDue();
    return { action: 'added', record: rec, evicted: evict.length, ttlLimited };
  }

  private mergeDuplicate(
    dup: MemRecord,
    v: ReturnType<VectorStore['validate']>,
    id: string,
    q: Int8Array,
    norm: number,
    now: number,
    creator: boolean,
  ): { action: 'bumped' | 'replaced'; record: MemRecord } {
    const importance = Math.min(1, Math.max(dup.importance, v.importance) + DEDUP_BUMP);
    const permanent = dup.permanent || v.permanent;
    const ttlHours = permanent ? -1 : dup.ttlHours < 0 || v.ttlHours < 0 ? -1 : Math.max(dup.ttlHours, v.ttlHours);
    if (dup.id === id || dup.importance >= v.importance) {
      const rec: MemRecord = { ...dup, importance, permanent, ttlHours, updatedAt: now, creator: dup.creator || creator };
      const row = this.index.rowOf(dup.id)!;
      const vec = this.index.vector(row).slice();
      this.persist([encodePut(rec, vec)], [{ put: rec, vec }]);
      this.index.update(rec);
      return { action: 'bumped', record: rec };
    }
    // The newcomer matters more: it takes the old one's place and history.
    const rec: MemRecord = {
      ...dup,
      id,
      content: v.content,
      bytes: utf8Length(v.content),
      importance,
      permanent,
      ttlHours,
      updatedAt: now,
      source: v.source,
      metadata: v.metadata ?? dup.metadata,
      creator: dup.creator || creator,
    };
    this.persist([encodeDelete(dup.id), encodePut(rec, q)], [{ del: dup.id }, { put: rec, vec: q }]);
    this.index.remove(dup.id);
    this.index.put(rec, q, norm);
    return { action: 'replaced', record: rec };
  }

  private bytesIn(ns: string): number {
    let n = 0;
    for (const r of this.index.recs) if (r.ns === ns) n += r.bytes;
    return n;
  }

  /** Who leaves to make room for `adding` more: least important first, then least recently updated; null if not enough can leave. */
  private evictionVictims(adding: number): MemRecord[] | null {
    const over = this.index.count + adding - this.cap();
    if (over <= 0) return [];
    const candidates = this.index.recs.filter((r) => !protectedRec(r)).sort((a, b) => a.importance - b.importance || a.updatedAt - b.updatedAt);
    if (candidates.length < over) return null;
    return candidates.slice(0, over);
  }

  private enforceCap(): void {
    const victims = this.evictionVictims(0) ?? this.index.recs.filter((r) => !protectedRec(r));
    if (!victims.length) return;
    this.toArchive(victims, 'evicted');
    try {
      this.persist(victims.map((r) => encodeDelete(r.id)), victims.map((r) => ({ del: r.id })));
      for (const r of victims) this.index.remove(r.id);
    } catch (e) {
      this.deps.log.warn('mem', `trimming to the cap failed: ${String(e)}`);
    }
  }

  // ---- reading ----

  private visible(r: MemRecord, ns: string, now: number, synced: boolean): boolean {
    return r.ns === ns && !isExpired(r, now, synced);
  }

  /**
   * The memories of person's namespace that answer the queries, by meaning and
   * by words (ranking.ts), best first, past their TTL left out; at most `pool`
   * rows from each side per query.
   */
  async candidates(queries: string[], person: string | null, pool: number): Promise<Array<Candidate & { rec: MemRecord }>> {
    this.checkBusy();
    const texts = queries.map((q) => (typeof q === 'string' ? q.trim() : '')).filter(Boolean);
    if (!texts.length || this.index.count === 0) return [];
    const vecs = await this.embedQ(texts);
    this.checkBusy();
    const ns = nsOf(person);
    const now = this.now();
    const synced = this.deps.clock.synced();
    const out: Array<Candidate & { rec: MemRecord }> = [];
    const ranked = rankRows(this.index, this.deps, texts.map((text, i) => ({ text, q: vecs[i]!.q, norm: vecs[i]!.norm })), ns, pool, this.embedder.mean, this.sides);
    for (const c of ranked) {
      const rec = this.index.recs[c.row]!;
      if (this.visible(rec, ns, now, synced)) out.push({ ...c, rec });
    }
    return out;
  }

  /** The closest memories to one query in person's namespace, relevance (ranking.ts) at or above threshold, best first. */
  async search(query: string, person: string | null, n: number, threshold: number): Promise<Hit[]> {
    this.checkBusy();
    if (typeof query !== 'string' || !query.trim()) throw new MemoryError('bad-input', 'query is empty');
    const hits = await this.candidates([query], person, Math.max(50, n * 4));
    return hits.filter((h) => h.rel >= threshold).slice(0, n).map((h) => ({ rec: h.rec, score: h.rel }));
  }

  /** A page of person's memories, most important first. */
  browse(person: string | null, limit: number, offset: number): { total: number; items: MemRecord[] } {
    const ns = nsOf(person);
    const now = this.now();
    const synced = this.deps.clock.synced();
    const all = this.index.recs.filter((r) => this.visible(r, ns, now, synced)).sort((a, b) => b.importance - a.importance || b.updatedAt - a.updatedAt);
    return { total: all.length, items: all.slice(offset, offset + limit) };
  }

  /** The memory with this id in person's namespace (null when absent, or past its TTL). */
  get(id: string, person: string | null): MemRecord | null {
    const r = this.index.get(id);
    return r && this.visible(r, nsOf(person), this.now(), this.deps.clock.synced()) ? r : null;
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

  /** Replaces a memory's content and fields (memory.update). */
  async update(
    target: MemRecord,
    input: { content: string; importance?: number; permanent?: boolean; ttl?: TtlClass },
    person: string | null,
  ): Promise<MemRecord> {
    this.checkBusy();
    const v = this.validate({
      content: input.content,
      importance: input.importance ?? target.importance,
      permanent: input.permanent ?? target.permanent,
      ...(input.ttl ? { ttl: input.ttl } : {}),
      source: target.source,
      metadata: target.metadata,
    });
    if (!input.ttl && !v.permanent) v.ttlHours = target.ttlHours < 0 ? DEFAULT_TTL_HOURS : target.ttlHours;
    const quota = quotaFor(this.deps.people, person);
    if (quota.ttlHours >= 0 && (v.ttlHours < 0 || v.ttlHours > quota.ttlHours)) {
      v.ttlHours = quota.ttlHours;
      v.permanent = false;
    }
    const [{ q, norm }] = (await this.embedQ([v.content])) as [{ q: Int8Array; norm: number }];
    this.checkBusy();
    if (!this.index.get(target.id)) throw new MemoryError('not-found', 'the memory changed meanwhile; try again');
    const ns = nsOf(person);
    const id = contentId(this.deps.sha, ns, v.content);
    const rec: MemRecord = {
      ...target,
      id,
      content: v.content,
      bytes: utf8Length(v.content),
      importance: v.importance,
      permanent: v.permanent,
      ttlHours: v.ttlHours,
      updatedAt: this.now(),
    };
    const other = id !== target.id ? this.index.get(id) : undefined;
    const payloads: Uint8Array[] = [];
    const ops: OfflineOp[] = [];
    if (id !== target.id) {
      payloads.push(encodeDelete(target.id));
      ops.push({ del: target.id });
    }
    if (other) rec.importance = Math.min(1, Math.max(rec.importance, other.importance) + DEDUP_BUMP);
    payloads.push(encodePut(rec, q));
    ops.push({ put: rec, vec: q });
    this.persist(payloads, ops);
    if (id !== target.id) this.index.remove(target.id);
    this.index.put(rec, q, norm);
    this.compactIfDue();
    return rec;
  }

  /** Pins or unpins (pins never decay, expire or get evicted). */
  setPinned(target: MemRecord, pinned: boolean, person: string | null): MemRecord {
    this.checkBusy();
    if (target.pinned === pinned) return target;
    if (pinned) {
      const quota = quotaFor(this.deps.people, person);
      const pins = this.index.recs.filter((r) => r.ns === target.ns && r.pinned).length;
      if (pins >= quota.pins) throw new MemoryError('quota', `pin quota reached (${quota.pins} pins)`);
    }
    const rec: MemRecord = { ...target, pinned };
    const vec = this.index.vector(this.index.rowOf(target.id)!).slice();
    this.persist([encodePut(rec, vec)], [{ put: rec, vec }]);
    this.index.update(rec);
    return rec;
  }

  delete(target: MemRecord): void {
    this.checkBusy();
    this.persist([encodeDelete(target.id)], [{ del: target.id }]);
    this.index.remove(target.id);
    this.compactIfDue();
  }

  private applyFlush(keepPermanent: boolean, persisted: boolean): number {
    const gone = this.index.recs.filter((r) => !(keepPermanent && protectedRec(r)));
    if (!persisted) this.persist([encodeFlush(keepPermanent)], [{ flush: keepPermanent }]);
    if (gone.length === this.index.count) this.index.clear();
    else for (const r of gone) this.index.remove(r.id);
    return gone.length;
  }

  /** Forgets every memory of every person (keep_permanent keeps permanent and pinned ones). */
  flush(keepPermanent: boolean): number {
    this.checkBusy();
    const n = this.applyFlush(keepPermanent, false);
    this.compact();
    return n;
  }

  /** Merges near-duplicates (the same words: term cosine distance below 0.05, lexicon.ts) in each namespace, keeping the more important one. */
  dedupe(): number {
    this.checkBusy();
    const gone = new Set<string>();
    const bumped = new Map<string, MemRecord>();
    const order = [...this.index.recs].sort((a, b) => b.importance - a.importance || a.createdAt - b.createdAt);
    for (const keep of order) {
      if (gone.has(keep.id)) continue;
      const row = this.index.rowOf(keep.id)!;
      for (const s of this.index.sameWords(this.deps, this.index.terms(row).slice(), this.index.vector(row), this.index.norms[row]!, keep.ns, 1 - DEDUP_DISTANCE)) {
        const other = this.index.recs[s.row]!;
        if (other.id === keep.id || gone.has(other.id)) continue;
        gone.add(other.id);
        const cur = bumped.get(keep.id) ?? keep;
        bumped.set(keep.id, {
          ...cur,
          importance: Math.min(1, Math.max(cur.importance, other.importance) + DEDUP_BUMP),
          permanent: cur.permanent || other.permanent,
          pinned: cur.pinned || other.pinned,
          ttlHours: cur.permanent || other.permanent || cur.ttlHours < 0 || other.ttlHours < 0 ? -1 : Math.max(cur.ttlHours, other.ttlHours),
        });
      }
    }
    if (!gone.size) return 0;
    const payloads: Uint8Array[] = [];
    const ops: OfflineOp[] = [];
    for (const id of gone) {
      payloads.push(encodeDelete(id));
      ops.push({ del: id });
    }
    for (const rec of bumped.values()) {
      if (gone.has(rec.id)) continue;
      const vec = this.index.vector(this.index.rowOf(rec.id)!).slice();
      payloads.push(encodePut(rec, vec));
      ops.push({ put: rec, vec });
    }
    this.persist(payloads, ops);
    for (const id of gone) this.index.remove(id);
    for (const rec of bumped.values()) if (!gone.has(rec.id)) this.index.update(rec);
    this.compactIfDue();
    return gone.size;
  }

  /**
   * Maintenance ("dream"): `steps` decay steps (importance x decay_factor per
   * step, floor 0.01; permanent and pinned memories never decay), then prune
   * (below 0.05, or past TTL while the clock is set) to the archive, then
   * dedupe. Rewrites the snapshot once instead of journaling every change.
   */
  dream(steps: number): { decayed: number; pruned: number; merged: number } {
    this.checkBusy();
    const factor = this.deps.config.get().decay_factor;
    const now = this.now();
    const synced = this.deps.clock.synced();
    let decayed = 0;
    const mult = Math.pow(factor, steps);
    for (const r of this.index.recs) {
      let changed = false;
      let rec = r;
      if (synced && (r.createdAt < SANE_EPOCH_MS || r.updatedAt < SANE_EPOCH_MS)) {
        rec = { ...rec, createdAt: r.createdAt < SANE_EPOCH_MS ? now : r.createdAt, updatedAt: r.updatedAt < SANE_EPOCH_MS ? now : r.updatedAt };
        changed = true;
      }
      if (steps > 0 && !protectedRec(r) && mult < 1) {
        const next = Math.max(DECAY_FLOOR, r.importance * mult);
        if (next !== r.importance) {
          rec = { ...rec, importance: next };
          decayed++;
          changed = true;
        }
      }
      if (changed) this.index.update(rec);
    }
    const low = this.index.recs.filter((r) => !protectedRec(r) && r.importance < PRUNE_BELOW);
    const expired = this.index.recs.filter((r) => r.importance >= PRUNE_BELOW && isExpired(r, now, synced));
    this.toArchive(low, 'decayed');
    this.toArchive(expired, 'expired');
    for (const r of [...low, ...expired]) this.index.remove(r.id);
    if (this.degraded) {
      // Without a card the snapshot cannot be rewritten: keep the changes for the card's return.
      for (const r of [...low, ...expired]) this.offline.push({ del: r.id });
    }
    const merged = this.dedupe();
    if (decayed + low.length + expired.length + merged > 0) this.compact();
    return { decayed, pruned: low.length + expired.length, merged };
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
    this.persist([...evict.map((r) => encodeDelete(r.id)), encodePut(rec, taken.vec)], [...evict.map((r) => ({ del: r.id })), { put: rec, vec: taken.vec }]);
    for (const r of evict) this.index.remove(r.id);
    this.index.put(rec, taken.vec, taken.norm);
    return rec;
  }

  // ---- figures ----

  stats(): { vectors: number; cap: number; pinned: number; permanent: number; bytes: number; archive: number; cardBytes: number } {
    let pinned = 0;
    let permanent = 0;
    let bytes = 0;
    for (const r of this.index.recs) {
      if (r.pinned) pinned++;
      if (r.permanent) permanent++;
      bytes += r.bytes;
    }
    return {
      vectors: this.index.count,
      cap: this.cap(),
      pinned,
      permanent,
      bytes,
      archive: this.archive.count,
      cardBytes: this.degraded ? 0 : this.file.bytesOnCard() + this.archive.bytesOnCard(),
    };
  }
}
