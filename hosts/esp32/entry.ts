// The device firmware module: src/ on the device HAL. tools/build-device.mjs
// bundles this file into build/device/<type>/firmware.js, which the manifest
// preloads: the bundle's code and module-level objects are then in flash, and
// nothing here may touch hardware at load time. main.js (not preloaded) calls
// start() when the device boots.

import { BOARD_DESCRIPTORS } from '../../boards/index.ts';
import { boot } from '../../src/main.ts';
import type { BuildInfo, DeviceType } from '../../src/hal/index.ts';
import { createDeviceHal } from './hal/index.ts';

/** Set by tools/build-device.mjs: the board this image is for, and the build's identity. */
declare const __DESK_BOARD__: DeviceType;
declare const __DESK_BUILD__: BuildInfo;

export function start(): void {
  const descriptor = BOARD_DESCRIPTORS[__DESK_BOARD__];
  boot(createDeviceHal(descriptor, __DESK_BUILD__, (line) => trace(`${line}\n`)));
}
