// HAL: time. The only source of "now" and of deferred work in src/, so that
// tests can run every time-based rule on a virtual clock.

/** A scheduled callback; cancel() is idempotent. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since boot; never goes backwards, unaffected by SNTP. */
  monoMs(): number;
  /**
   * Wall-clock time in Unix milliseconds. Before SNTP has synchronised this
   * is whatever the RTC holds (often 1970), so check synced() before showing it.
   */
  wallMs(): number;
  /** True once the wall clock has been set from the network (or by hand), or kept set by the RTC across a restart. */
  synced(): boolean;
  /**
   * Sets the wall clock (network time, src/clock/sync.ts): wallMs() reads it
   * from now on and synced() is true. The device's RTC takes whole seconds,
   * so there it is within half a second.
   */
  setWall(ms: number): void;
  /** Run fn once after ms milliseconds (0 = next loop turn, after promise jobs). */
  setTimeout(fn: () => void, ms: number): Timer;
  /** Run fn every ms milliseconds until cancelled. */
  setInterval(fn: () => void, ms: number): Timer;
}
