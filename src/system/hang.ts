// HANG (test console): the main loop stops turning on purpose, so nothing
// feeds the task watchdog and the watchdog resets the device (reset reason
// watchdog), as it would after a real lock-up. The spin is bounded: a board
// whose watchdog never fires restarts itself after HANG_GIVE_UP_MS instead
// of hanging for ever.

import type { Clock, System } from '../hal/index.ts';

/** Far beyond any watchdog timeout (the device's is seconds). */
export const HANG_GIVE_UP_MS = 10 * 60_000;

/** Spins without returning to the loop for ms (by the monotonic clock); returns the turns spun. */
export function spin(clock: Clock, ms: number): number {
  const until = clock.monoMs() + ms;
  let turns = 0;
  while (clock.monoMs() < until) turns++;
  return turns;
}

/** Hangs the loop until the watchdog resets the device; restarts if it never does. */
export function hang(clock: Clock, system: System, log: (line: string) => void): void {
  spin(clock, HANG_GIVE_UP_MS);
  log(`HANG: no watchdog reset within ${HANG_GIVE_UP_MS / 60_000} min; restarting`);
  system.reboot('hang without a watchdog reset');
}
