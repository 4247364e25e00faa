// Device HAL: time. Monotonic milliseconds from Moddable's Time.ticks, the
// wall clock from Date (set by the firmware's SNTP client, src/clock, through
// Time.set; ESP-IDF's RTC keeps it across every reset but a power-on),
// deferred work on Moddable's Timer.
//
// Time.ticks on the device is modMilliseconds(), FreeRTOS's tick count as a
// 32-bit number (xs/platforms/esp/xsHost.h), handed to JavaScript as a signed
// integer (modules/base/time/esp/modTime.c): it reads negative after 24.8 days
// and wraps every 49.7. monoMs unwraps it, so uptime and every deadline keep
// counting on a device that runs for months.

import Time from 'time';
import Timer from 'timer';
import type { Clock, Timer as HalTimer } from '../../../src/hal/index.ts';

/** Before this (2020-01-01) the RTC has not been set since power-on. */
const WALL_SET_AFTER_MS = 1577836800000;
const TICKS_WRAP = 2 ** 32;

/** ticks: the millisecond count (the SDK's desktop runtime passes its own, hosts/lin). */
export function createClock(ticks: () => number = () => Time.ticks): Clock {
  const count = { last: 0, wraps: 0 };
  const monoMs = (): number => {
    const t = ticks() >>> 0;
    if (t < count.last) count.wraps++;
    count.last = t;
    return count.wraps * TICKS_WRAP + t;
  };
  const timer = (fn: () => void, ms: number, repeat: boolean): HalTimer => {
    let id: Timer | null = repeat
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
    monoMs,
    wallMs: () => Date.now(),
    synced: () => Date.now() > WALL_SET_AFTER_MS,
    // Time.set takes whole seconds (modules/base/time/esp/modTime.c: settimeofday with tv_usec 0).
    setWall: (ms) => Time.set(Math.round(ms / 1000)),
    setTimeout: (fn, ms) => timer(fn, ms, false),
    setInterval: (fn, ms) => timer(fn, ms, true),
  };
}
