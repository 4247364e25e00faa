// The memory subsystem's numbers in one place: the spec's limits (vector
// memory, episodic log, running memory, scratchpad) and the choices made
// where the spec gives none (docs/decisions.md, "Memory").

import type { TtlClass } from '../contracts/index.ts';

/** Embedding width when nothing else is configured (spec: 256, set once). */
export const DEFAULT_DIMS = 256;
export const MIN_DIMS = 16;
export const MAX_DIMS = 4096;

/** Two memories closer than this cosine distance are one memory (spec: 0.05). */
export const DEDUP_DISTANCE = 0.05;
/** What a duplicate adds to the survivor's importance. */
export const DEDUP_BUMP = 0.1;
/** Decay never takes importance below this (spec: floor 0.01). */
export const DECAY_FLOOR = 0.01;
/** Below this importance a memory is pruned (spec: 0.05). */
export const PRUNE_BELOW = 0.05;
/** Default time to live in hours (spec: 720); -1 means none. */
export const DEFAULT_TTL_HOURS = 720;
/** Working set with a live card (spec: about 6000 vectors) and without one (about 400). */
export const WORKING_SET = 6000;
export const DEGRADED_CAP = 400;
/** Archive entries kept, oldest out first (spec: 2000). */
export const ARCHIVE_CAP = 2000;
/** Caps on what a record carries. */
export const CONTENT_MAX_BYTES = 1200;
export const SOURCE_MAX_BYTES = 32;
export const METADATA_MAX_BYTES = 512;

/**
 * TTL classes of mem_write and memory.write, in hours. weeks is the store
 * default and equals the spec's default TTL (720 h), so an unclassed write
 * and a 'weeks' write live the same time.
 */
export const TTL_HOURS: Record<TtlClass, number> = {
  session: 24,
  days: 168,
  weeks: DEFAULT_TTL_HOURS,
  months: 2160,
  permanent: -1,
};

/** Maintenance: decay once per 24 h of wall time; prune and retention tick about every 6 hours. */
export const DECAY_PERIOD_MS = 24 * 3600_000;
export const TICK_MS = 6 * 3600_000;
/** While no card is live, look for one this often. */
export const CARD_POLL_MS = 30_000;

// Episodic log (spec "Limits: Episodic").
export const EPI_BOOT_ROWS = 4000;
export const EPI_BOOT_BYTES = 256 * 1024;
export const EPI_COLD_BYTES = 128 * 1024;
export const EPI_COLD_FILES = 4;
export const EPI_WINDOW = 8 * 1024;
export const EPI_NO_CARD_RING = 500;
export const EPI_DEMOTE_RING = 256;
export const EPI_RETENTION_DAYS = 30;
export const EPI_LIMIT_MAX = 100;
/** A row's text is cut here so a whole row always fits one 8 KB read window. */
export const EPI_TEXT_MAX_BYTES = 4096;

// Running memory and scratchpad (spec "Limits").
export const RUNNING_MEMORY_BYTES = 1200;
export const SCRATCH_ACTIVE_BYTES = 240;
export const SCRATCH_TIER_ITEMS = 8;
export const SCRATCH_ITEM_BYTES = 160;
