// The lin HAL, assembled: the firmware in the Moddable SDK's own desktop
// runtime (hosts/lin). Where the SDK's lin platform has the module the device
// uses, the device HAL's code runs as it is (time and timers, ECMA-419 TCP,
// listener and UDP sockets, the TLS socket, Preference for NVS); where the
// device's module does not exist on lin (Wi-Fi, mDNS, BLE, the drivers, the
// ESP-IDF glue), a small stand-in says what it fakes (docs/decisions.md,
// "The SDK's desktop runtime"). The process's environment (the runner's
// caller) chooses the HTTP port, the routes and the console terminal.

import Time from 'time';
import type { BoardDescriptor } from '../../../boards/index.ts';
import { toBoardInfo } from '../../../boards/index.ts';
import type { BuildInfo, Hal } from '../../../src/hal/index.ts';
import { createClock } from '../../esp32/hal/clock.ts';
import { createNvs } from '../../esp32/hal/nvs.ts';
import { linEnv } from '../native/lin-native.js';
import { createAudio, createBattery, createBle, createDisplay, createMic, createRing, createSerial, createTouch } from './devices.ts';
import { createNatives } from './natives.ts';
import { imageAssets } from '../../esp32/hal/assets.ts';
import { createLinNet, createWifi, httpPort } from './net.ts';
import { createFlash, createSd, prefKeep } from './storage.ts';
import { createSystem } from './system.ts';

export function createLinHal(descriptor: BoardDescriptor, build: BuildInfo, log: (line: string) => void): Hal {
  // The SDK's lin Time.ticks counts from 1970 (modules/base/time/lin/modTime.c), the device's from power-on.
  const zero = Time.ticks;
  const clock = createClock(() => Time.ticks - zero);
  return {
    board: toBoardInfo(descriptor),
    build,
    clock,
    system: createSystem(log, httpPort()),
    nvs: createNvs(prefKeep),
    sd: createSd(linEnv('DESK_SD') ?? 'sd'),
    flash: createFlash(),
    net: createLinNet(clock),
    wifi: createWifi(clock),
    serial: createSerial(linEnv('DESK_CONSOLE')),
    ring: createRing(),
    display: createDisplay(descriptor),
    touch: createTouch(),
    battery: createBattery(),
    audio: createAudio(),
    mic: createMic(),
    ble: createBle(),
    natives: createNatives(),
    assets: imageAssets(log),
  };
}
