// The sub-agent fabric's numbers, in one place (spec, Limits: sub-agent
// concurrency, spawn capacity, result sizes, brief, synthesis; provider
// timeouts). Decisions beyond the spec are marked as such.

/** Pending spawns waiting for dispatch (spec: queue depth 12). */
export const QUEUE_DEPTH = 12;
/** Jobs dispatched and not yet finished (spec: in-flight window 4). */
export const IN_FLIGHT = 4;
/** Persisted job records (spec: 6 journal slots). */
export const JOURNAL_SLOTS = 6;
/** One dispatch per pump cycle, a cycle about every 1.5 s (spec). */
export const PUMP_MS = 1_500;
/** Dispatch waits while free internal heap is below this (spec: 28 KB). */
export const DISPATCH_HEAP_FLOOR = 28 * 1024;
/** A running job is polled about every 15 s (spec). */
export const POLL_MS = 15_000;
/** Spawns one turn may start: min(SPAWN_PER_TURN, QUEUE_DEPTH - queued) (spec). */
export const SPAWN_PER_TURN = 6;

/** The whole result as kept and served by results.get (spec: envelope 16 KB, in UTF-8 bytes). */
export const ENVELOPE_BYTES = 16 * 1024;
/** A fresh result as the synthesis turn sees it (spec: 3500 characters). */
export const FRESH_CHARS = 3_500;
/** The excerpt of an ev:subresult trace row (spec: 512 characters). */
export const EXCERPT_CHARS = 512;

/** Brief (spec): skill capsule, task, context and attachments. */
export const SKILL_BYTES = 4_096;
export const TASK_BYTES = 4_095;
export const CONTEXT_MESSAGES = 6;
export const CONTEXT_BYTES = 1_200;
export const CONTEXT_LINE_CHARS = 300;
export const ATTACH_MAX = 4;
export const ATTACH_TOTAL_BYTES = 24 * 1024;

/** Synthesis (spec): completions within this window share one automatic turn. */
export const COALESCE_MS = 3_000;
/** ... and if that turn cannot start within this, the raw results go to the chat directly. */
export const DIRECT_MS = 60_000;
/** How often a due synthesis looks again while another turn runs (decision). */
export const SYNTH_RETRY_MS = 500;

/** Decision: a job running longer than this is stopped and reported failed. */
export const JOB_MAX_MS = 2 * 60 * 60 * 1000;
/** Decision: this many failed polls in a row (network down, 5xx, 429) fail the job (about 10 minutes). */
export const POLL_FAILURES_MAX = 40;
/** Decision: results kept in RAM for results.get and results.list (newest first), entries and bytes. */
export const RESULTS_MAX = 16;
export const RESULTS_BYTES = 64 * 1024;
/** Decision: ended jobs remembered for session.list and GET /api/sessions. */
export const ENDED_MAX = 12;
/** Decision: messages the fabric sent, remembered for GET /api/sessions. */
export const MESSAGES_MAX = 16;
/** Decision: results.get serves this many characters per call. */
export const RESULT_PAGE_CHARS = 4_000;
/** Largest poll answer read (a session's event list grows with the job). */
export const POLL_BODY_MAX = 512 * 1024;
/** Deadline of one create, poll or cancel exchange with an asynchronous backend. */
export const CALL_MS = 30_000;
