// What the vector store's parts share: its error, its inputs and outputs,
// what it needs of the device (StoreDeps), a memory's id and namespace, and
// StoreCore, the store as its parts (store-card.ts, store-write.ts) see it.

import type { Clock, SdCard } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { sha256 } from '../../modules/sha256/sha256.ts';
import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import type { TtlClass } from '../contracts/index.ts';
import { toHex } from '../util/encoding.ts';
import { replaceEvery } from '../util/replace.ts';
import { encode } from '../util/utf8.ts';
import type { Archive } from './archive.ts';
import type { ConfigStore } from './config.ts';
import type { EmbeddingConfig } from './embedder.ts';
import type { People } from './quotas.ts';
import type { MemRecord, StoreChange } from './record.ts';
import type { VectorFile } from './vector-file.ts';
import type { VectorIndex } from './vector-index.ts';

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

export function normalize(content: string): string {
  return replaceEvery(content.trim(), WHITESPACE_RUNS, ' ');
}

/** The store as its parts see it (vector-store.ts implements it). */
export interface StoreCore {
  index: VectorIndex;
  readonly file: VectorFile;
  readonly archive: Archive;
  readonly deps: StoreDeps;
  readonly emb: EmbeddingConfig;
  degraded: boolean;
  offline: Change[];
  unchecked: Set<string>;
  checkBusy(): void;
  embedQ(texts: string[]): Promise<Array<{ q: Int8Array; norm: number }>>;
  norm(vec: Int8Array): number;
  now(): number;
  cap(): number;
  bytesIn(ns: string): number;
  protectedAt(row: number): boolean;
  evictionVictims(adding: number): number[] | null;
  enforceCap(): void;
  toArchive(rows: number[], why: string): void;
  applyFlush(keepPermanent: boolean): number;
  commit(changes: Change[]): void;
  compact(): void;
  compactIfDue(): void;
}
