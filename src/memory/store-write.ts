// Writing memories: the checks a write's fields get, a new memory (with the
// person's quotas, the duplicate it may merge with, the cap's evictions) and
// memory.update's replacement of one.

import type { TtlClass } from '../contracts/index.ts';
import { TTL_CLASSES } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { stringify } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';
import { CONTENT_MAX_BYTES, DEDUP_BUMP, DEDUP_DISTANCE, DEFAULT_TTL_HOURS, METADATA_MAX_BYTES, SOURCE_MAX_BYTES, TTL_HOURS } from './limits.ts';
import { termList } from './lexicon.ts';
import { quotaFor } from './quotas.ts';
import type { MemRecord } from './record.ts';
import { contentId, MemoryError, normalize, nsOf, type StoreCore, type WriteInput, type WriteOutcome } from './store-types.ts';

/** A write's fields once checked. */
export interface Valid {
  content: string;
  importance: number;
  ttlHours: number;
  permanent: boolean;
  source: string;
  metadata: Record<string, unknown> | null;
}

export function validateWrite(input: WriteInput): Valid {
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
export async function writeMemory(s: StoreCore, input: WriteInput, person: string | null): Promise<WriteOutcome> {
  s.checkBusy();
  const v = validateWrite(input);
  const ns = nsOf(person);
  const quota = quotaFor(s.deps.people, person);
  if (quota.vectors <= 0) throw new MemoryError('quota', 'this person may not keep memories');
  let ttlLimited = false;
  if (quota.ttlHours >= 0 && (v.ttlHours < 0 || v.ttlHours > quota.ttlHours)) {
    v.ttlHours = quota.ttlHours;
    v.permanent = false;
    ttlLimited = true;
  }
  const [{ q, norm }] = (await s.embedQ([v.content])) as [{ q: Int8Array; norm: number }];
  s.checkBusy();
  if (q.length !== s.index.dims) throw new MemoryError('busy', 'the embedding changed during the write; try again');
  const now = s.now();
  const id = contentId(s.deps.sha, ns, v.content);
  const same = s.index.rowOf(id);
  const near = same === undefined ? s.index.sameWords(s.deps, termList(v.content).terms, q, norm, ns, 1 - DEDUP_DISTANCE)[0] : undefined;
  const dupRow = same ?? near?.row;
  if (dupRow !== undefined) return { ...mergeDuplicate(s, s.index.rec(dupRow), v, id, q, norm, now, input.creator === true), evicted: 0, ttlLimited };

  if (s.index.countIn(ns) >= quota.vectors) throw new MemoryError('quota', `memory quota reached (${quota.vectors} memories); delete or let some expire first`);
  if (quota.bytes !== Infinity && s.bytesIn(ns) + utf8Length(v.content) > quota.bytes)
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
  const evict = s.evictionVictims(1);
  if (evict === null) throw new MemoryError('full', `memory is full (${s.cap()} memories, all permanent or pinned)`);
  s.toArchive(evict, 'evicted');
  const gone = evict.map((r) => s.index.idOf(r));
  s.commit([...gone.map((del) => ({ del })), { put: rec, vec: q, norm }]);
  s.compactIfDue();
  return { action: 'added', record: rec, evicted: evict.length, ttlLimited };
}

function mergeDuplicate(
  s: StoreCore,
  dup: MemRecord,
  v: Valid,
  id: string,
  q: Int8Array,
  norm: number,
  now: number,
  creator: boolean,
): { action: 'bumped' | 'replaced'; record: MemRecord } {
  const importance = Math.min(1, Math.max(dup.importance, v.importance) + DEDUP_BUMP);
  const permanent = dup.permanent || v.permanent;
  const ttlHours = permanent ? -1 : dup.ttlHours < 0 || v.ttlHours < 0 ? -1 : Math.max(dup.ttlHours, v.ttlHours);
  const row = s.index.rowOf(dup.id)!;
  if (dup.id === id || dup.importance >= v.importance) {
    const rec: MemRecord = { ...dup, importance, permanent, ttlHours, updatedAt: now, creator: dup.creator || creator };
    s.commit([{ put: rec, vec: s.index.vector(row).slice(), norm: s.index.norms[row]! }]);
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
  s.commit([{ del: dup.id }, { put: rec, vec: q, norm }]);
  return { action: 'replaced', record: rec };
}

/** Replaces a memory's content and fields (memory.update). */
export async function updateMemory(
  s: StoreCore,
  target: MemRecord,
  input: { content: string; importance?: number; permanent?: boolean; ttl?: TtlClass },
  person: string | null,
): Promise<MemRecord> {
  s.checkBusy();
  const v = validateWrite({
    content: input.content,
    importance: input.importance ?? target.importance,
    permanent: input.permanent ?? target.permanent,
    ...(input.ttl ? { ttl: input.ttl } : {}),
    source: target.source,
    metadata: target.metadata,
  });
  if (!input.ttl && !v.permanent) v.ttlHours = target.ttlHours < 0 ? DEFAULT_TTL_HOURS : target.ttlHours;
  const quota = quotaFor(s.deps.people, person);
  if (quota.ttlHours >= 0 && (v.ttlHours < 0 || v.ttlHours > quota.ttlHours)) {
    v.ttlHours = quota.ttlHours;
    v.permanent = false;
  }
  const [{ q, norm }] = (await s.embedQ([v.content])) as [{ q: Int8Array; norm: number }];
  s.checkBusy();
  if (s.index.rowOf(target.id) === undefined) throw new MemoryError('not-found', 'the memory changed meanwhile; try again');
  const ns = nsOf(person);
  const id = contentId(s.deps.sha, ns, v.content);
  const rec: MemRecord = {
    ...target,
    id,
    content: v.content,
    bytes: utf8Length(v.content),
    importance: v.importance,
    permanent: v.permanent,
    ttlHours: v.ttlHours,
    updatedAt: s.now(),
  };
  const otherRow = id !== target.id ? s.index.rowOf(id) : undefined;
  if (otherRow !== undefined) rec.importance = Math.min(1, Math.max(rec.importance, s.index.importanceOf(otherRow)) + DEDUP_BUMP);
  s.commit([...(id !== target.id ? [{ del: target.id }] : []), { put: rec, vec: q, norm }]);
  s.unchecked.add(rec.id);
  s.compactIfDue();
  return rec;
}
