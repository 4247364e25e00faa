// The long-term vector store: memories found by meaning and by words
// (ranking.ts), records as the spec lists them, dedup, TTL, pins,
// per-person namespaces and quotas, the working-set cap with eviction to the
// archive, and the card tiers: with a live card every change is journaled
// (vector-file.ts) before it is applied, so a power cut loses at most the
// write in flight, and a memory's content stays on the card (vector-index.ts
// keeps the rest in columns); without one the store runs in RAM under the
// degraded cap and merges what it learned into the card's store when a card
// becomes live again. Decay, prune and dedupe are store-maintenance.ts.

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
import { CONTENT_MAX_BYTES, DEDUP_BUMP, DEDUP_DISTANCE, DEFAULT_TTL_HOURS, DEGRADED_CAP, METADATA_MAX_BYTES, SOURCE_MAX_BYTES, TTL_HOURS } from './limits.ts';
import { termList } from './lexicon.ts';
import { quotaFor, type People } from './quotas.ts';
import { calibrated, expectedCosine, rankRows, type Candidate, type RankingSides } from './ranking.ts';
import { idHalves, encodeRecord, coldJson } from './record-bin.ts';
import { encodeDelete, encodeFlush, type MemRecord, type StoreChange } from './record.ts';
import { dedupe, dream } from './store-maintenance.ts';
import { VectorFile } from './vector-file.ts';
import { VectorIndex, type TextWhere } from './vector-index.ts';
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
  /** Relevance 0-1 (ranking.ts). */
  score: number;
}

/** Memories embedded per step of a re-embedding (a remote embedder's batch). */
const REEMBED_BATCH = 32;
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
  /** Feeds the task watchdog during long work (a compaction of thousands of memories). */
  feed?: () => void;
}

export type Change = StoreChange;

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

export class VectorStore {
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

  // ---- tiers ----

  /**
   * Opens the card's store when a card is live (at boot, and when one comes
   * back). Returns true when the vectors on the card were made with another
   * embedding and must be re-embedded (reembed()).
   */
  attach(): boolean {
    if (!this.deps.cardLive()) return false;
    const t0 = this.deps.clock.monoMs();
    let index = new VectorIndex(this.emb.dims);
    let result;
    try {
      result = this.file.load({
        begin: (emb) => void (index = new VectorIndex(emb.dims)),
        record: (d, where) => void index.putHot(d.hot, null, d.vec, this.norm(d.vec), { terms: d.terms, length: d.hot.words }, where),
        legacy: (rec, vec) => void index.put(rec, vec.slice(), this.norm(vec), null),
        remove: (id) => void index.remove(id),
        flush: (keep) => {
          for (let r = index.count - 1; r >= 0; r--) if (!(keep && (index.permanentAt(r) || index.pinnedAt(r)))) index.remove(index.idOf(r));
        },
      });
    } catch (e) {
      this.deps.log.warn('mem', `vector store not readable from the card: ${String(e)}`);
      return false;
    }
    index.source = this.file;
    const offline = this.offline;
    this.index = index;
    this.degraded = false;
    this.offline = [];
    this.archive.unload();
    const stale = result.emb !== null && !sameEmbedding(result.emb, this.emb);
    if (result.torn) this.deps.log.warn('mem', 'vector journal had a torn tail; dropped');
    if (!stale) {
      if (result.torn || result.old) this.compact();
      // What was learned without a card joins the card's store.
      for (const op of offline) {
        if ('del' in op && !this.index.rowOf(op.del)) continue;
        try {
          this.commit([op]);
          if ('put' in op) this.unchecked.add(op.put.id);
        } catch (e) {
          this.deps.log.warn('mem', `merging a memory made without a card failed: ${String(e)}`);
        }
      }
      this.enforceCap();
    }
    this.deps.log.info('mem', `vector store on the card: ${this.index.count} memories in ${Math.round(this.deps.clock.monoMs() - t0)} ms${stale ? ' (re-embedding)' : ''}`);
    return stale;
  }

  /**
   * The card went away: memory runs in RAM under the degraded cap, with the
   * memories whose content it has in RAM (written or read lately: the
   * index's warm texts), the most important first. The others stay on the
   * card for its return.
   */
  demote(): void {
    if (this.degraded) return;
    this.file.close();
    this.archive.unload();
    this.degraded = true;
    const ix = this.index;
    const lost = ix.toRam().map((r) => ix.idOf(r));
    for (const id of lost) ix.remove(id);
    const order: number[] = [];
    for (let r = 0; r < ix.count; r++) order.push(r);
    order.sort((a, b) => Number(this.protectedAt(b)) - Number(this.protectedAt(a)) || ix.importanceOf(b) - ix.importanceOf(a));
    const drop = order.slice(DEGRADED_CAP).map((r) => ix.idOf(r));
    for (const id of drop) ix.remove(id);
    ix.source = null;
    this.deps.log.warn('mem', `no SD card: memory runs in RAM (${ix.count} kept, cap ${DEGRADED_CAP}; ${lost.length + drop.length} wait on the card)`);
  }

  /**
   * Records changes: journaled on the card when it is live, else kept for the
   * card's return; then applied to the index. A card that vanished demotes
   * the store and the change still applies in RAM; any other card failure
   * throws and nothing changes.
   */
  commit(changes: Change[]): void {
    const payloads: Uint8Array[] = [];
    const colds: Array<Uint8Array | null> = [];
    const terms = changes.map((c) => ('put' in c ? termList(c.put.content) : null));
    changes.forEach((c, i) => {
      if ('put' in c) {
        const cold = coldJson(c.put);
        colds.push(cold);
        payloads.push(encodeRecord(c.put, c.vec, terms[i]!.terms, terms[i]!.length, cold));
      } else {
        colds.push(null);
        payloads.push('del' in c ? encodeDelete(c.del) : encodeFlush(c.flush));
      }
    });
    let at: number[] | null = null;
    if (!this.degraded) {
      try {
        at = this.file.append(payloads, this.emb);
      } catch (e) {
        if (!(e instanceof HalError) || e.code !== 'ENOCARD') {
          throw new MemoryError('storage', `the memory could not be saved on the SD card (${e instanceof HalError ? e.code : String(e)}); nothing was changed`);
        }
        this.demote();
      }
    }
    changes.forEach((c, i) => {
      if ('put' in c) {
        const where: TextWhere | null = at ? { file: 2, off: at[i]! + payloads[i]!.length - colds[i]!.length, len: colds[i]!.length } : null;
        const [idHi, idLo] = idHalves(c.put.id);
        const cold = { content: c.put.content, source: c.put.source, metadata: c.put.metadata, ...(c.put.archivedAt !== undefined ? { archivedAt: c.put.archivedAt } : {}), ...(c.put.why !== undefined ? { why: c.put.why } : {}) };
        this.index.putHot({ ...c.put, idHi, idLo, words: terms[i]!.length }, cold, c.vec, c.norm, terms[i]!, where);
      } else if ('del' in c) this.index.remove(c.del);
      else this.applyFlush(c.flush);
    });
    if (!at) {
      this.offline.push(...changes);
      if (this.offline.length > 4 * DEGRADED_CAP) this.offline.splice(0, this.offline.length - 4 * DEGRADED_CAP);
    }
  }

  /** Rewrites every memory into the next snapshot (their content read back from the card in file order); the journal starts empty. */
  compact(): void {
    if (this.degraded) return;
    const ix = this.index;
    const coldAt = new Uint32Array(ix.count);
    const coldLen = new Uint32Array(ix.count);
    try {
      const at = this.file.compact(this.emb, ix.count, (r) => {
        const cold = coldJson(ix.cold(r));
        const p = encodeRecord(ix.rec(r), ix.vector(r), ix.terms(r), ix.wordsOf(r), cold);
        coldAt[r] = p.length - cold.length;
        coldLen[r] = cold.length;
        return p;
      }, this.deps.feed);
      for (let r = 0; r < at.length; r++) ix.relocate(r, { file: 1, off: at[r]! + coldAt[r]!, len: coldLen[r]! });
    } catch (e) {
      this.deps.log.warn('mem', `compaction failed (the journal stays valid): ${String(e)}`);
    }
  }

  compactIfDue(): void {
    if (!this.degraded && this.file.compactionDue()) this.compact();
  }

  /** Moves rows' memories to the archive (before they leave the working set). */
  toArchive(rows: number[], why: string): void {
    if (this.degraded || !rows.length) return;
    try {
      this.archive.add(
        rows.map((r) => [this.index.rec(r), this.index.vector(r).slice(), this.index.norms[r]!] as [MemRecord, Int8Array, number]),
        why,
        this.now(),
      );
    } catch (e) {
      this.deps.log.warn('mem', `archiving ${rows.length} memories failed: ${String(e)}`);
    }
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

  // ---- writing ----

  validate(input: WriteInput): { content: string; importance: number; ttlHours: number; permanent: boolean; source: string; metadata: Record<string, unknown> | null } {
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
    const same = this.index.rowOf(id);
    const near = same === undefined ? this.index.sameWords(this.deps, termList(v.content).terms, q, norm, ns, 1 - DEDUP_DISTANCE)[0] : undefined;
    const dupRow = same ?? near?.row;
    if (dupRow !== undefined) return { ...this.mergeDuplicate(this.index.rec(dupRow), v, id, q, norm, now, input.creator === true), evicted: 0, ttlLimited };

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
    const gone = evict.map((r) => this.index.idOf(r));
    this.commit([...gone.map((del) => ({ del })), { put: rec, vec: q, norm }]);
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
    const row = this.index.rowOf(dup.id)!;
    if (dup.id === id || dup.importance >= v.importance) {
      const rec: MemRecord = { ...dup, importance, permanent, ttlHours, updatedAt: now, creator: dup.creator || creator };
      this.commit([{ put: rec, vec: this.index.vector(row).slice(), norm: this.index.norms[row]! }]);
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
    this.commit([{ del: dup.id }, { put: rec, vec: q, norm }]);
    return { action: 'replaced', record: rec };
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
    if (this.index.rowOf(target.id) === undefined) throw new MemoryError('not-found', 'the memory changed meanwhile; try again');
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
    const otherRow = id !== target.id ? this.index.rowOf(id) : undefined;
    if (otherRow !== undefined) rec.importance = Math.min(1, Math.max(rec.importance, this.index.importanceOf(otherRow)) + DEDUP_BUMP);
    this.commit([...(id !== target.id ? [{ del: target.id }] : []), { put: rec, vec: q, norm }]);
    this.unchecked.add(rec.id);
    this.compactIfDue();
    return rec;
  }

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
