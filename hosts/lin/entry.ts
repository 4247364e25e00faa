// The firmware module of the SDK desktop runtime build: src/ on the lin HAL.
// tools/build-lin.mjs bundles this file into build/lin/<type>/firmware.js,
// which the manifest preloads as on the device (hosts/esp32/entry.ts): the
// bundle's code and module-level objects are frozen into the image, and
// nothing here may touch the host at load time. main.js calls start().

import { BOARD_DESCRIPTORS } from '../../boards/index.ts';
import { boot } from '../../src/main.ts';
import type { BuildInfo, DeviceType } from '../../src/hal/index.ts';
import { createLinHal } from './hal/index.ts';

/** Set by tools/build-lin.mjs: the board this image is for, and the build's identity. */
declare const __DESK_BOARD__: DeviceType;
declare const __DESK_BUILD__: BuildInfo;

export function start(): void {
  boot(createLinHal(BOARD_DESCRIPTORS[__DESK_BOARD__], __DESK_BUILD__, (line) => trace(`${line}\n`)));
}
