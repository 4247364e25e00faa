// The vector store's maintenance ("dream"): decay (importance x decay_factor
// per day; floor 0.01; permanent and pinned memories never decay), prune
// (below 0.05, or past TTL while the clock is set) to the archive, and dedupe
// (memories of one namespace holding the same words merge, the more
// important one kept). Works on the index's columns; only the memories it
// changes are read back from the card.
//
// A write already merges with its duplicate (vector-store.ts), so the
// periodic pass looks only at the memories changed without that check
// (memory.update, what was learned without a card): checking all 6000
// against all would take minutes on the device's core. The owner's
// "remove near-duplicates" checks every memory, feeding the watchdog.

import type { LexicalApi } from '../../modules/lexical/lexical.ts';
import type { VecdotApi } from '../../modules/vecdot/vecdot.ts';
import type { Clock } from '../hal/index.ts';
import type { ConfigStore } from './config.ts';
import { DECAY_FLOOR, DEDUP_BUMP, DEDUP_DISTANCE, PRUNE_BELOW } from './limits.ts';
import type { MemRecord, StoreChange as Change } from './record.ts';
import type { VectorIndex } from './vector-index.ts';
import { termCosine } from './lexicon.ts';

/** Memories whose timestamps predate this were written before the clock was set (2020-01-01). */
const SANE_EPOCH_MS = 1577836800000;


/** What maintenance needs of the store (vector-store.ts). */
export interface MaintainedStore {
  index: VectorIndex;
  degraded: boolean;
  offline: Change[];
  readonly deps: { vecdot: VecdotApi; lexical: LexicalApi; clock: Clock; config: ConfigStore };
  checkBusy(): void;
  commit(changes: Change[]): void;
  compact(): void;
  compactIfDue(): void;
  toArchive(rows: number[], why: string): void;
  protectedAt(row: number): boolean;
  now(): number;
  /** Ids of memories changed without the duplicate check (dedupe's periodic pass looks at these). */
  unchecked: Set<string>;
  feed(): void;
}

/** The rows of ns near row by meaning (the same words give the same vector) that hold the same words. */
function sameWordsNear(s: MaintainedStore, row: number): number[] {
  const ix = s.index;
  const terms = ix.terms(row).slice();
  const out: number[] = [];
  for (const d of ix.topk(s.deps.vecdot, ix.vector(row), ix.norms[row]!, 6, ix.nsOf(row))) if (d.row !== row && termCosine(terms, ix.terms(d.row)) >= 1 - DEDUP_DISTANCE) out.push(d.row);
  return out;
}

/**
 * Merges near-duplicates (the same words: term cosine distance below 0.05) in
 * each namespace, keeping the more important one; `all` false looks only at
 * the memories changed without the check.
 */
export function dedupe(s: MaintainedStore, all = true): number {
  s.checkBusy();
  const ix = s.index;
  const gone = new Set<string>();
  const bumped = new Map<string, MemRecord>();
  const order: number[] = [];
  for (let r = 0; r < ix.count; r++) if (all || s.unchecked.has(ix.idOf(r))) order.push(r);
  s.unchecked.clear();
  order.sort((a, b) => ix.importanceOf(b) - ix.importanceOf(a) || ix.createdAtOf(a) - ix.createdAtOf(b));
  let n = 0;
  for (const row of order) {
    if ((++n & 63) === 0) s.feed();
    const keepId = ix.idOf(row);
    if (gone.has(keepId)) continue;
    for (const near of sameWordsNear(s, row)) {
      const nearId = ix.idOf(near);
      if (nearId === keepId || gone.has(nearId)) continue;
      // the more important one stays (ties: the older); in the full pass that is always `row`
      const rowWins = ix.importanceOf(row) > ix.importanceOf(near) || (ix.importanceOf(row) === ix.importanceOf(near) && ix.createdAtOf(row) <= ix.createdAtOf(near));
      const [keep, other] = rowWins ? [row, near] : [near, row];
      const winId = ix.idOf(keep);
      gone.add(ix.idOf(other));
      const cur = bumped.get(winId) ?? ix.rec(keep);
      const permanent = cur.permanent || ix.permanentAt(other);
      bumped.set(winId, {
        ...cur,
        importance: Math.min(1, Math.max(cur.importance, ix.importanceOf(other)) + DEDUP_BUMP),
        permanent,
        pinned: cur.pinned || ix.pinnedAt(other),
        ttlHours: permanent || cur.ttlHours < 0 || ix.ttlOf(other) < 0 ? -1 : Math.max(cur.ttlHours, ix.ttlOf(other)),
      });
      if (!rowWins) break;
    }
  }
  if (!gone.size) return 0;
  const changes: Change[] = [...gone].map((del) => ({ del }));
  for (const rec of bumped.values()) {
    if (gone.has(rec.id)) continue;
    const row = ix.rowOf(rec.id)!;
    changes.push({ put: rec, vec: ix.vector(row).slice(), norm: ix.norms[row]! });
  }
  s.commit(changes);
  s.compactIfDue();
  return gone.size;
}

/**
 * `steps` decay steps, then prune to the archive, then dedupe. Rewrites the
 * snapshot once instead of journaling every change.
 */
export function dream(s: MaintainedStore, steps: number): { decayed: number; pruned: number; merged: number } {
  s.checkBusy();
  const ix = s.index;
  const factor = s.deps.config.get().decay_factor;
  const now = s.now();
  const synced = s.deps.clock.synced();
  let decayed = 0;
  const mult = Math.pow(factor, steps);
  for (let r = 0; r < ix.count; r++) {
    // columns only: the snapshot written below carries the changes (no memory is read back)
    if (synced && (ix.createdAtOf(r) < SANE_EPOCH_MS || ix.updatedAtOf(r) < SANE_EPOCH_MS)) {
      ix.setTimes(r, ix.createdAtOf(r) < SANE_EPOCH_MS ? now : ix.createdAtOf(r), ix.updatedAtOf(r) < SANE_EPOCH_MS ? now : ix.updatedAtOf(r));
    }
    if (steps > 0 && !s.protectedAt(r) && mult < 1) {
      const next = Math.fround(Math.max(DECAY_FLOOR, ix.importanceOf(r) * mult));
      if (next !== ix.importanceOf(r)) {
        ix.setImportance(r, next);
        decayed++;
      }
    }
  }
  const low: number[] = [];
  const expired: number[] = [];
  for (let r = 0; r < ix.count; r++) {
    if (!s.protectedAt(r) && ix.importanceOf(r) < PRUNE_BELOW) low.push(r);
    else if (ix.importanceOf(r) >= PRUNE_BELOW && synced && !s.protectedAt(r) && ix.ttlOf(r) >= 0 && now > ix.updatedAtOf(r) + ix.ttlOf(r) * 3600_000) expired.push(r);
  }
  s.toArchive(low, 'decayed');
  s.toArchive(expired, 'expired');
  const prunedIds = [...low, ...expired].map((r) => ix.idOf(r));
  for (const id of prunedIds) ix.remove(id);
  // Without a card the snapshot cannot be rewritten: keep the changes for the card's return.
  if (s.degraded) for (const id of prunedIds) s.offline.push({ del: id });
  const merged = dedupe(s, false);
  if (decayed + prunedIds.length + merged > 0) s.compact();
  return { decayed, pruned: prunedIds.length, merged };
}
