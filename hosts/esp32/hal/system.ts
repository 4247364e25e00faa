// Device HAL: the system. Reset reason, heap figures (internal RAM and PSRAM
// from ESP-IDF, the XS heap from the machine), randomness, the watchdog,
// restart and deep sleep, all through the native glue (desk_sys.c).

import Debug from 'debug';
import {
  sysDeepSleep,
  sysFeedWatchdog,
  sysHeap,
  sysResetReason,
  sysRestart,
  sysXsHeap,
  sysXsResetPeak,
  sysRandom,
} from '../native/desk-native.js';
import type { HeapFigures, ResetReason, System } from '../../../src/hal/index.ts';

const REASONS: ReadonlySet<string> = new Set<ResetReason>(['power-on', 'software', 'panic', 'watchdog', 'brownout', 'deep-sleep', 'external', 'unknown']);

export function createSystem(log: (line: string) => void): System {
  const raw = sysResetReason();
  const reason: ResetReason = REASONS.has(raw) ? (raw as ResetReason) : 'unknown';
  return {
    reboot(why: string): void {
      log(`reboot: ${why}`);
      sysRestart();
    },
    resetReason: () => reason,
    heap(): HeapFigures {
      const [freeInternal, largestBlock, minFreeInternal, freePsram] = sysHeap();
      const [xsNow, xsPeak, xsReserved] = sysXsHeap();
      // The firmware module is preloaded: its code and module objects are in
      // flash, so everything the machine holds in RAM is the RAM part.
      return { freeInternal, largestBlock, minFreeInternal, freePsram, xsNow, xsPeak, xsStatic: 0, xsReserved };
    },
    resetHeapPeak: () => sysXsResetPeak(),
    gc: () => Debug.gc(),
    feedWatchdog: () => sysFeedWatchdog(),
    log,
    random: (bytes) => sysRandom(bytes),
    deepSleep: (ms) => sysDeepSleep(ms),
    // A device has no terminal to print the sign-in link on: the screen shows it.
    announce: () => undefined,
  };
}
