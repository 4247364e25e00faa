// lin HAL: the system. XS heap figures from the machine (lin_native.c, the
// device's arithmetic), random bytes from the kernel, reboot and deep sleep as
// exit statuses (64, 65: the simulator's, docs/sim-protocol.md), which the
// runner's caller sees; the sign-in link printed as the simulator prints it.
// A PC has no internal RAM or PSRAM figures: they read as plenty, so the
// heap floors never stop a turn here.

import Debug from 'debug';
import { linExit, linRandom, linXsHeap, linXsResetPeak } from '../native/lin-native.js';
import type { HeapFigures, System } from '../../../src/hal/index.ts';

const EXIT_REBOOT = 64;
const EXIT_DEEP_SLEEP = 65;
/** What the board reports as free internal RAM and PSRAM: a PC's are not the device's. */
const PLENTY = 8 * 1024 * 1024;
const LEADING_SLASH = /^\//;

export function createSystem(log: (line: string) => void, httpPort: number): System {
  return {
    reboot(why: string): void {
      log(`reboot: ${why}`);
      linExit(EXIT_REBOOT);
    },
    resetReason: () => 'power-on',
    heap(): HeapFigures {
      const [xsNow, xsPeak, xsReserved, keys, stackPeak] = linXsHeap();
      const figures: HeapFigures = { freeInternal: PLENTY, largestBlock: PLENTY, minFreeInternal: PLENTY, freePsram: PLENTY, xsNow, xsPeak, xsStatic: 0, xsReserved, xsKeys: keys };
      if (stackPeak >= 0) figures.xsStackPeak = stackPeak;
      return figures;
    },
    resetHeapPeak: () => linXsResetPeak(),
    gc: () => Debug.gc(),
    feedWatchdog: () => undefined,
    log,
    random: (bytes) => linRandom(bytes),
    deepSleep(ms: number): void {
      log(`deep sleep: ${ms} ms`);
      linExit(EXIT_DEEP_SLEEP);
    },
    announce(info): void {
      if (!info.http) return;
      const url = `http://127.0.0.1:${httpPort}/`;
      log(`HTTP: ${url}`);
      if (info.signInPath !== null) log(`Sign-in: ${url}${info.signInPath.replace(LEADING_SLASH, '')}`);
    },
  };
}
