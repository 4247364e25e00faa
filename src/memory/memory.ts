// Long-term memory's state: the vector store, the embedder, the episodic
// log, running memory and the scratchpad behind one object, the card tier
// changes, the maintenance ticks, and the API the turn engine uses:
//
//   relevantMemories(userText, memQueries, person)  the relevant-memories block
//   applyMemWrites(turn.mem_write, person)          after the reply is sent
//   applyRunningMemory(turn.memory), applyScratchpad(turn.scratchpad)
//   runningMemory(), scratchpadBlock()              for the next prompt
//   episodic.append(row)                            history and device timeline rows
//
// Its face (options, routes, commands, tools, status) is src/memory/index.ts.

import type { Store } from '../core/store.ts';
import type { Hotspots } from '../core/hotspots.ts';
import type { Hal, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { MemWrite, ScratchpadPatch } from '../contracts/index.ts';
import type { RandomFill } from '../util/ids.ts';
import { ConfigStore } from './config.ts';
import { checkEmbeddingConfig, HASH_EMBEDDING, HASH_MODEL, OFFLINE_PROVIDER, sameEmbedding, type Embedder, type EmbeddingConfig } from './embedder.ts';
import { OfflineEmbedder } from './embed-offline.ts';
import { StaticEmbedder, StaticTable } from './embed-static.ts';
import { NO_KEYS, RemoteEmbedder, type EmbeddingKeys } from './embed-remote.ts';
import { EpisodicLog } from './episodic.ts';
import { CARD_POLL_MS, DECAY_PERIOD_MS, DEFAULT_DIMS, TICK_MS } from './limits.ts';
import { DEFAULT_PEOPLE, type People } from './quotas.ts';
import { formatBlock, retrieve, type Ranked } from './retrieval.ts';
import { ScratchpadStore, type Scratchpad } from './scratchpad.ts';
import { MemoryError, VectorStore, type WriteOutcome } from './vector-store.ts';
import { stringify } from '../util/json.ts';

export { MemoryError };

/** One embedding the owner can choose (embeddingChoices). */
export interface EmbeddingChoice extends EmbeddingConfig {
  label: string;
  available: boolean;
  /** Why it is not available (null when it is). */
  why: string | null;
}

/** After a failed re-embedding, the next attempt. */
const REEMBED_RETRY_MS = 60_000;

/** The card as memory needs it: whether it is usable, a probe, and word of a change (src/storage). */
export interface MemoryCard {
  live(): boolean;
  probe(): unknown;
  onChange(listener: () => void): void;
}

/** What start() needs: the card, outbound HTTP, and optionally the embedding keys and the people. */
export interface MemoryStart {
  card: MemoryCard;
  /** Outbound HTTP(S) for a remote embedder. */
  client: HttpClient;
  /** Embedding endpoints and keys (the provider settings). */
  keys?: EmbeddingKeys;
  /** Roles and quota overrides (the people subsystem, later). */
  people?: People;
}

export class Memory {
  readonly config: ConfigStore;
  readonly store: VectorStore;
  readonly episodic: EpisodicLog;
  readonly scratch: ScratchpadStore;
  private card: { live(): boolean; probe(): unknown } | null = null;
  private client: HttpClient | null = null;
  private keys: EmbeddingKeys = NO_KEYS;
  private people: People = DEFAULT_PEOPLE;
  private pending: Promise<void> = Promise.resolve();
  private retry: Timer | null = null;
  /** The image's static embedding table (embed-static.ts), null when the image has none. */
  readonly table: StaticTable | null;

  constructor(
    private readonly hal: Hal,
    private readonly log: Log,
    private readonly nvs: Store,
    hotspots: Hotspots,
    random: RandomFill,
  ) {
    this.config = new ConfigStore(nvs);
    this.scratch = new ScratchpadStore(nvs);
    this.table = StaticTable.from(hal.assets);
    const cardLive = (): boolean => this.card?.live() ?? false;
    const emb = this.embeddingConfig();
    this.store = new VectorStore(
      {
        sd: hal.sd,
        cardLive,
        sha: hotspots.sha256,
        vecdot: hotspots.vecdot,
        lexical: hotspots.lexical,
        clock: hal.clock,
        log,
        config: this.config,
        people: { roleOf: (p) => this.people.roleOf(p), quotaOverride: (p) => this.people.quotaOverride(p) },
        feed: () => hal.system.feedWatchdog(),
      },
      this.offlineEmbedder(emb.provider === OFFLINE_PROVIDER ? emb : this.defaultEmbedding()),
    );
    this.episodic = new EpisodicLog({ sd: hal.sd, cardLive, sha: hotspots.sha256, clock: hal.clock, log, random });
  }

  /** Roles and quota overrides come from the people subsystem once it exists. */
  setPeople(people: People): void {
    this.people = people;
  }

  /** The offline models this image can run: the static table's (when it ships) and feature hashing. */
  offlineModels(): string[] {
    return this.table ? [this.table.header.model, HASH_MODEL] : [HASH_MODEL];
  }

  /**
   * What the owner can choose from (the web page's memory section): the
   * offline models of this image, and the providers with /v1/embeddings, each
   * usable only with its endpoint (and key) set.
   */
  embeddingChoices(): EmbeddingChoice[] {
    const off: EmbeddingChoice[] = this.offlineModels().map((model) => ({
      provider: OFFLINE_PROVIDER,
      model,
      dims: model === HASH_MODEL ? HASH_EMBEDDING.dims : this.table!.header.dims,
      label: model === HASH_MODEL ? 'On the device, by words only (feature hashing)' : 'On the device, by meaning and by words (GloVe word vectors)',
      available: true,
      why: null,
    }));
    const remote = (provider: string, model: string, label: string): EmbeddingChoice => {
      const ep = this.keys.endpoint(provider);
      return { provider, model, dims: DEFAULT_DIMS, label, available: ep !== null, why: ep ? null : provider === 'custom' ? 'set the custom endpoint first (Assistant)' : `add a ${provider} key first (Assistant)` };
    };
    return [
      ...off,
      remote('openai', 'text-embedding-3-small', 'OpenAI text-embedding-3-small (each memory and search is sent to OpenAI)'),
      remote('mistral', 'mistral-embed', 'Mistral mistral-embed (each memory and search is sent to Mistral)'),
      remote('custom', 'text-embedding-3-small', 'The custom endpoint (its /v1/embeddings)'),
    ];
  }

  /** Without a configuration: the static table's embedding, else feature hashing. */
  defaultEmbedding(): EmbeddingConfig {
    return this.table ? { provider: OFFLINE_PROVIDER, model: this.table.header.model, dims: this.table.header.dims } : { ...HASH_EMBEDDING };
  }

  /**
   * The configured embedding (NVS), or the default when none is set or the
   * one set cannot run on this image (an offline model that an update
   * replaced: the store then re-embeds with the default, spec Versioning 7).
   */
  embeddingConfig(): EmbeddingConfig {
    try {
      const o = JSON.parse(this.nvs.str('embedding', '')) as EmbeddingConfig;
      if (o && checkEmbeddingConfig(o, this.offlineModels()) === null) return { provider: o.provider, model: o.model, dims: o.dims };
    } catch {
      // unset or damaged: the default
    }
    return this.defaultEmbedding();
  }

  private offlineEmbedder(c: EmbeddingConfig): Embedder {
    if (this.table && c.model === this.table.header.model) return new StaticEmbedder(this.table);
    return new OfflineEmbedder(c.dims);
  }

  private makeEmbedder(c: EmbeddingConfig): Embedder {
    if (c.provider === OFFLINE_PROVIDER) return this.offlineEmbedder(c);
    if (!this.client) throw new MemoryError('embedding', 'remote embedding is not available before boot completes');
    return new RemoteEmbedder(c, this.client, this.keys);
  }

  /** Boot: opens the card's stores (or starts degraded), follows card changes, starts the ticks. */
  start(o: MemoryStart, defer: (task: () => void) => void): void {
    const card = o.card;
    this.card = card;
    this.client = o.client;
    if (o.keys) this.keys = o.keys;
    if (o.people) this.people = o.people;
    const emb = this.embeddingConfig();
    if (emb.provider !== OFFLINE_PROVIDER) this.store.embedder = this.makeEmbedder(emb);
    this.attach();
    card.onChange(() => {
      if (card.live()) this.attach();
      else {
        this.store.demote();
        this.episodic.demote();
      }
    });
    const clock = this.hal.clock;
    clock.setInterval(() => this.tick(), TICK_MS);
    clock.setInterval(() => {
      // Without a card, look for one now and then. A store that met a missing
      // card demoted itself while the tier still says present: re-probe, and
      // reattach once the card answers again.
      if (!this.store.degraded && !this.episodic.degraded) return;
      card.probe();
      if (card.live()) this.attach();
    }, CARD_POLL_MS);
    defer(() => this.tick());
  }

  /** Opens whichever part runs without the card while a card is live. */
  private attach(): void {
    const stale = this.store.degraded ? this.store.attach() : false;
    if (this.episodic.degraded) this.episodic.attach();
    if (stale) this.startReembed();
  }

  /**
   * Re-embeds in the background; a failed attempt (a remote embedder out of
   * reach) leaves the store waiting (searches and writes answer "busy" with the
   * reason, never with vectors of another embedding) and tries again later.
   */
  private startReembed(): void {
    this.store.stale = true;
    if (this.retry !== null) {
      this.retry.cancel();
      this.retry = null;
    }
    void this.background(async () => {
      try {
        await this.store.reembed();
      } catch (e) {
        this.log.warn('mem', `re-embedding stopped (${e instanceof Error ? e.message : String(e)}); trying again in ${REEMBED_RETRY_MS / 1000} s`);
        this.retry = this.hal.clock.setTimeout(() => {
          this.retry = null;
          this.startReembed();
        }, REEMBED_RETRY_MS);
      }
    });
  }

  /** Runs async work one piece at a time, logging failures. */
  private background(task: () => Promise<void>): Promise<void> {
    this.pending = this.pending.then(task).catch((e: unknown) => this.log.warn('mem', `background work failed: ${String(e)}`));
    return this.pending;
  }

  /** Waits for background work (re-embedding) to finish. */
  idle(): Promise<void> {
    return this.pending;
  }

  /** The 6-hour tick: episodic retention, then decay (one step per whole day since the last), prune and dedupe. */
  tick(): void {
    this.episodic.prune();
    const clock = this.hal.clock;
    if (!clock.synced()) return;
    const now = clock.wallMs();
    const last = Number(this.nvs.str('decayAt', ''));
    if (!Number.isFinite(last) || last <= 0 || last > now) {
      this.nvs.set('decayAt', String(now));
      return;
    }
    const steps = Math.min(30, Math.floor((now - last) / DECAY_PERIOD_MS));
    try {
      const r = this.store.dream(steps);
      if (steps > 0) this.nvs.set('decayAt', String(last + steps * DECAY_PERIOD_MS));
      if (r.decayed || r.pruned || r.merged) this.log.info('mem', `maintenance: ${r.decayed} decayed, ${r.pruned} pruned, ${r.merged} merged`);
    } catch (e) {
      if (!(e instanceof MemoryError && e.code === 'busy')) this.log.warn('mem', `maintenance failed: ${String(e)}`);
    }
  }

  /** DREAM: one decay step, prune and dedupe now. */
  dreamNow(): { decayed: number; pruned: number; merged: number } {
    return this.store.dream(1);
  }

  /**
   * Sets the embedding (provider, model, dims). A change re-embeds every
   * memory and the archive from their content in the background (progress in
   * stats().reembed; idle() resolves when done); a remote provider is tried
   * once first, so a bad key or model changes nothing.
   */
  async setEmbedding(c: EmbeddingConfig): Promise<{ changed: boolean; reembedded: number }> {
    const problem = checkEmbeddingConfig(c, this.offlineModels());
    if (problem) throw new MemoryError('bad-input', problem);
    if (sameEmbedding(c, this.store.emb)) return { changed: false, reembedded: 0 };
    const embedder = this.makeEmbedder(c);
    if (c.provider !== OFFLINE_PROVIDER) {
      try {
        await embedder.embed(['embedding check']);
      } catch (e) {
        throw new MemoryError('embedding', `the embedding was not changed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.nvs.set('embedding', stringify(c));
    this.store.embedder = embedder;
    const n = this.store.index.count;
    this.startReembed();
    return { changed: true, reembedded: n };
  }

  // ---- the turn engine's API ----

  /** memory.search and GET /api/mem/vector?query=: the one retrieval (retrieval.ts), n hits at most. */
  search(query: string, person: string | null, n: number): Promise<Ranked[]> {
    if (typeof query !== 'string' || !query.trim()) return Promise.reject(new MemoryError('bad-input', 'query is empty'));
    return retrieve(this.store, [query], person, this.config.get(), this.hal.clock.wallMs(), n);
  }

  /** The relevant-memories block for a turn (lines '- [NN%] content' within max_context_bytes; '' when none). */
  async relevantMemories(userText: string, memQueries: readonly string[], person: string | null): Promise<string> {
    const cfg = this.config.get();
    try {
      const hits = await retrieve(this.store, [userText, ...memQueries], person, cfg, this.hal.clock.wallMs());
      return formatBlock(hits, cfg.max_context_bytes);
    } catch (e) {
      this.log.warn('mem', `relevant memories unavailable: ${e instanceof Error ? e.message : String(e)}`);
      return '';
    }
  }

  /** Applies a turn's mem_write items (after the reply is sent). Failures are returned, never thrown. */
  async applyMemWrites(writes: readonly MemWrite[], person: string | null): Promise<Array<WriteOutcome | MemoryError>> {
    const out: Array<WriteOutcome | MemoryError> = [];
    for (const w of writes) {
      try {
        out.push(await this.store.write({ content: w.content, importance: w.importance, permanent: w.permanent, ...(w.ttl ? { ttl: w.ttl } : {}) }, person));
      } catch (e) {
        const err = e instanceof MemoryError ? e : new MemoryError('storage', String(e));
        this.log.warn('mem', `mem_write dropped: ${err.message}`);
        out.push(err);
      }
    }
    return out;
  }

  runningMemory(): string {
    return this.scratch.runningMemory();
  }

  applyRunningMemory(text: string): void {
    this.scratch.applyRunningMemory(text);
  }

  applyScratchpad(patch: ScratchpadPatch | null): Scratchpad {
    return this.scratch.applyScratchpad(patch);
  }

  scratchpadBlock(): string {
    return this.scratch.block();
  }

  /** GET /api/mem/stats and the state snapshot. */
  stats(): Record<string, unknown> {
    const s = this.store.stats();
    const epi = this.episodic.cardBytes();
    return {
      vectors: s.vectors,
      cap: s.cap,
      pinned: s.pinned,
      permanent: s.permanent,
      contentBytes: s.bytes,
      archive: s.archive,
      vectorCardBytes: s.cardBytes,
      blobCount: this.episodic.hotRows,
      blobFiles: epi.files,
      blobBytes: epi.bytes,
      degraded: { vectors: this.store.degraded, episodic: this.episodic.degraded },
      epiTruncated: this.episodic.truncated,
      epiFloor: this.episodic.floorTs,
      embedding: this.store.emb,
      reembed: this.store.reembedding ? { ...this.store.reembedding } : null,
    };
  }
}
