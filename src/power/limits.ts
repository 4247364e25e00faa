// The power subsystem's figures: the sleep threshold's default and range,
// and the low-battery sleep's timing.

export const POWER_NS = 'power';
export const DEFAULT_SLEEP_MV = 3300;
export const SLEEP_MV_MIN = 3000;
export const SLEEP_MV_MAX = 3800;
/** A low-battery sleep wakes after this long to look again. */
export const LOW_BATTERY_WAKE_MS = 30 * 60_000;
/** Readings in a row below the threshold before the device sleeps (one low reading may be a load spike). */
export const LOW_READINGS = 2;
/** The first look after boot. */
export const FIRST_POLL_MS = 2000;
/** SLEEP answers first, then sleeps. */
export const SLEEP_DELAY_MS = 200;
