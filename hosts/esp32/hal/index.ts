// The device HAL, assembled: every service of src/hal on the Moddable SDK's
// modules and the native glue of hosts/esp32/native. Built into the firmware
// module by tools/build-device.mjs, which defines the board and the build.

import type { BoardDescriptor } from '../../../boards/index.ts';
import { toBoardInfo } from '../../../boards/index.ts';
import type { BuildInfo, Hal } from '../../../src/hal/index.ts';
import type { SdBusConfig } from '../native/desk-native.js';
import { createBle } from './ble.ts';
import { createButtons } from './buttons.ts';
import { createClock } from './clock.ts';
import { drivers } from './drivers.ts';
import { createAudio, createBattery, createCodec, createDisplay, createMic, createRing, createSerial, createTouch, sharesClockPins } from './devices.ts';
import { createNatives } from './natives.ts';
import { imageAssets } from './assets.ts';
import { fontsPartition } from './fonts-partition.ts';
import { mergeAssets } from '../../../src/util/asset-pack.ts';
import { createNet } from './net.ts';
import { createWifi } from './wifi.ts';
import { createNvs } from './nvs.ts';
import { createFlash, createSd, deskKeep } from './storage.ts';
import { createSystem } from './system.ts';

/** BLE bond addresses are listed by the firmware; the stack keeps the keys. */
const BOND_NS = 'bleBonds';

function sdBus(d: BoardDescriptor): SdBusConfig {
  const p = d.sd.pins as Record<string, number>;
  return d.sd.bus === 'sdmmc'
    ? { bus: 'sdmmc', clk: p['clk']!, cmd: p['cmd']!, d0: p['d0']! }
    : { bus: 'sdspi', sclk: p['sclk']!, mosi: p['mosi']!, miso: p['miso']!, cs: p['cs']! };
}

export function createDeviceHal(descriptor: BoardDescriptor, build: BuildInfo, log: (line: string) => void): Hal {
  const clock = createClock();
  const nvs = createNvs(deskKeep);
  const bondStore = {
    list: () => nvs.keys(BOND_NS).map((k) => String(nvs.get(BOND_NS, k))),
    add(a: string) {
      const key = a.split(':').join('').slice(-12);
      if (nvs.get(BOND_NS, key) === undefined) nvs.set(BOND_NS, key, a);
    },
    clear: () => nvs.erase(BOND_NS),
  };
  const codec = createCodec(descriptor);
  const audio = createAudio(descriptor, codec);
  return {
    board: toBoardInfo(descriptor),
    build,
    clock,
    system: createSystem(log),
    nvs,
    sd: createSd(sdBus(descriptor)),
    flash: createFlash(),
    net: createNet(clock),
    wifi: createWifi(),
    serial: createSerial(clock),
    ring: createRing(descriptor),
    display: createDisplay(descriptor),
    touch: createTouch(descriptor, clock),
    battery: createBattery(descriptor),
    audio,
    // panel-35: the one ES8311 is both the speaker's DAC and the microphone's ADC, on one pair of clock pins
    mic: createMic(descriptor, drivers.audioIn, { log, ...(codec ? { codec } : {}), ...(sharesClockPins(descriptor) ? { clocks: { take: () => audio.suspend(), give: () => audio.resume() } } : {}) }),
    buttons: createButtons(descriptor, () => clock.monoMs(), log),
    ble: createBle(bondStore),
    natives: createNatives(),
    // the image's data, then the fonts partition's CJK glyphs
    assets: mergeAssets(imageAssets(log), fontsPartition(log)),
  };
}
