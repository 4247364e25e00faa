// The scheduler's numbers in one place: the spec's (reminder and wakeup
// spans, 4 armed wakeups, the 300 s routine interval floor) and ours
// (docs/decisions.md, "Routines, wakeups, reminders and skills").

/** Spec: a wakeup or reminder is 2 minutes to 7 days away. */
export const WAKE_MIN_MINUTES = 2;
export const WAKE_MAX_MINUTES = 7 * 24 * 60;
/** Spec: at most 4 armed wakeups. Ours: at most 4 waiting for approval too. */
export const WAKEUPS_ARMED_MAX = 4;
export const WAKEUPS_PENDING_MAX = 4;
/** Reminders (/remind) waiting to fire. */
export const REMINDERS_MAX = 8;
/** A wakeup's note or a reminder's text, in UTF-8 bytes. */
export const NOTE_MAX_BYTES = 500;

/** Spec: a routine's interval is at least 300 s. Ours: at most 30 days. */
export const INTERVAL_MIN_S = 300;
export const INTERVAL_MAX_S = 30 * 24 * 3600;
/** Routines stored (pending and approved). */
export const ROUTINES_MAX = 8;
export const ROUTINE_NAME_MAX_BYTES = 40;
export const ROUTINE_PROMPT_MAX_BYTES = 1000;
/** What a routine keeps of its last result. */
export const LAST_RESULT_BYTES = 200;

/** A run found due this long after its time still runs, marked late, once. */
export const CATCH_UP_MS = 6 * 60 * 60_000;
/** Up to this late a run is on time (timers, a busy engine). */
export const ON_TIME_MS = 2 * 60_000;
/** A wakeup whose turn failed is tried once more after this. */
export const WAKEUP_RETRY_MS = 60_000;
/** The scheduler looks at the clock at least this often (a clock that syncs, a wall-clock jump). */
export const TICK_MAX_MS = 60_000;
