// The simulator's HAL, assembled: every service of src/hal implemented over
// the runtime's __sim bridge. The board answers board.info once at boot.

import type { Assets, BoardInfo, BuildInfo, Clock, Hal, HeapFigures, ResetReason, System, Timer } from '../../../src/hal/index.ts';
import { call, installEventDispatch, on, send } from './bridge.ts';
import { createAudio, createBattery, createBle, createButtons, createDisplay, createMic, createRing, createSerial, createTouch } from './devices.ts';
import { createNatives } from './natives.ts';
import { createNet, createWifi } from './net.ts';
import { createFlash, createNvs, createSd } from './storage.ts';
import { readAssetPack } from '../../../src/util/asset-pack.ts';

interface BootInfo {
  board: BoardInfo;
  /** The board's button names (board.json buttons). */
  buttons?: string[];
  build: BuildInfo;
  resetReason: ResetReason;
  /** The wall clock the RTC kept across this reset (Unix ms), or null after a power-on. */
  rtcMs: number | null;
}

/** Exit codes the board understands (docs/sim-protocol.md). */
export const EXIT_REBOOT = 64;
export const EXIT_DEEP_SLEEP = 65;

/**
 * The wall clock as an ESP32's: the RTC's time when it kept one, else the
 * epoch at boot (1970 plus uptime) until the firmware sets it (SNTP). Every
 * setting is told to the board, which keeps it as the RTC across resets.
 */
export function createClock(rtcMs: number | null): Clock {
  let offset: number | null = rtcMs === null ? null : rtcMs - __sim.monoMs();
  const timer = (fn: () => void, ms: number, repeat: boolean): Timer => {
    let id: number | null = __sim.setTimer(Math.max(0, ms), repeat, () => {
      if (!repeat) id = null;
      fn();
    });
    return {
      cancel() {
        if (id !== null) __sim.clearTimer(id);
        id = null;
      },
    };
  };
  return {
    monoMs: () => __sim.monoMs(),
    wallMs: () => __sim.monoMs() + (offset ?? 0),
    synced: () => offset !== null,
    setWall(ms: number): void {
      offset = ms - __sim.monoMs();
      send('clock.set', { wallMs: ms });
    },
    setTimeout: (fn, ms) => timer(fn, ms, false),
    setInterval: (fn, ms) => timer(fn, Math.max(1, ms), true),
  };
}

function createSystem(reason: ResetReason, clock: Clock, staticHeap: number, staticKeys: number): System {
  let pool: Uint8Array = new Uint8Array(0);
  let poolAt = 0;
  let lastFeed = -1e9;
  // The board's internal RAM figures change only when it says so (a system.heap event), so the
  // state snapshot, which asks on every request, needs no round trip to the board.
  type Internal = Omit<HeapFigures, 'xsNow' | 'xsPeak' | 'xsStatic' | 'xsReserved' | 'xsKeys' | 'xsStackPeak'>;
  let internal: Internal | null = null;
  on('system.heap', (e) => {
    internal = e['heap'] as unknown as Internal;
  });
  return {
    reboot(why: string): void {
      send('system.reboot', { reason: why });
      __sim.exit(EXIT_REBOOT);
    },
    resetReason: () => reason,
    heap(): HeapFigures {
      const board = (internal ??= call('system.heap').reply as unknown as Internal);
      const xs = __sim.heap();
      return {
        freeInternal: board.freeInternal,
        largestBlock: board.largestBlock,
        minFreeInternal: board.minFreeInternal,
        freePsram: board.freePsram,
        xsNow: xs.now,
        xsPeak: xs.peak,
        xsStatic: staticHeap,
        xsReserved: xs.reserved,
        xsKeys: xs.keys - staticKeys,
        xsStackPeak: xs.stackPeak,
      };
    },
    resetHeapPeak: () => __sim.resetPeak(),
    gc: () => __sim.gc(),
    feedWatchdog(): void {
      // The board's watchdog only needs a sign of life every few seconds.
      const now = clock.monoMs();
      if (now - lastFeed < 500) return;
      lastFeed = now;
      send('system.feed');
    },
    log: (line) => __sim.print(line),
    random(bytes: Uint8Array): void {
      let at = 0;
      while (at < bytes.length) {
        if (poolAt >= pool.length) {
          pool = call('system.random', { n: 256 }).bin ?? new Uint8Array(0);
          poolAt = 0;
          if (!pool.length) throw new Error('board gave no random bytes');
        }
        const n = Math.min(bytes.length - at, pool.length - poolAt);
        bytes.set(pool.subarray(poolAt, poolAt + n), at);
        poolAt += n;
        at += n;
      }
    },
    deepSleep(ms: number): void {
      send('system.sleep', { ms });
      __sim.exit(EXIT_DEEP_SLEEP);
    },
    announce(info): void {
      send('sim.ready', info.signInPath === null ? { http: info.http } : { http: info.http, signInPath: info.signInPath });
    },
  };
}

/** The image's assets (a host buffer over the mapped region: nothing is copied into the XS heap). */
function simAssets(): Assets {
  const pack = readAssetPack(__sim.assets);
  if (pack.problem) __sim.print(`assets: ${pack.problem}; the image's data tables are not used`);
  return pack;
}

/** staticHeap, staticKeys: XS bytes and keys in use once the bundle's modules have run (see HeapFigures.xsStatic, xsKeys). */
export function createSimHal(staticHeap = 0, staticKeys = 0): Hal {
  installEventDispatch((line) => __sim.print(line));
  const info = call('board.info').reply as unknown as BootInfo;
  const clock = createClock(info.rtcMs);
  const board = info.board;
  return {
    board,
    build: info.build,
    clock,
    system: createSystem(info.resetReason, clock, staticHeap, staticKeys),
    nvs: createNvs(),
    sd: createSd(),
    flash: createFlash(),
    net: createNet(),
    wifi: createWifi(),
    serial: createSerial(),
    ring: createRing(board.ringLeds),
    display: createDisplay(board),
    touch: createTouch(board.touch !== null),
    battery: createBattery(),
    audio: createAudio(),
    mic: createMic(true),
    buttons: createButtons(info.buttons ?? []),
    ble: createBle(),
    natives: createNatives(),
    assets: simAssets(),
  };
}
