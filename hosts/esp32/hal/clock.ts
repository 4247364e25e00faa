// Device HAL: time. Monotonic milliseconds from Moddable's Time.ticks, the
// wall clock from Date (set by the firmware's SNTP client, src/clock, through
// Time.set; ESP-IDF's RTC keeps it across every reset but a power-on),
// deferred work on Moddable's Timer.

import Time from 'time';
import Timer, { type TimerId } from 'timer';
import type { Clock, Timer as HalTimer } from '../../../src/hal/index.ts';

/** Before this (2020-01-01) the RTC has not been set since power-on. */
const WALL_SET_AFTER_MS = 1577836800000;

export function createClock(): Clock {
  const timer = (fn: () => void, ms: number, repeat: boolean): HalTimer => {
    let id: TimerId | null = repeat
      ? Timer.repeat(() => fn(), Math.max(1, ms))
      : Timer.set(() => {
          id = null;
          fn();
        }, Math.max(0, ms));
    return {
      cancel() {
        if (id !== null) Timer.clear(id);
        id = null;
      },
    };
  };
  return {
    monoMs: () => Time.ticks,
    wallMs: () => Date.now(),
    synced: () => Date.now() > WALL_SET_AFTER_MS,
    // Time.set takes whole seconds (modules/base/time/esp/modTime.c: settimeofday with tv_usec 0).
    setWall: (ms) => Time.set(Math.round(ms / 1000)),
    setTimeout: (fn, ms) => timer(fn, ms, false),
    setInterval: (fn, ms) => timer(fn, ms, true),
  };
}
