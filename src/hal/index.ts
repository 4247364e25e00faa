// The hardware abstraction layer: everything src/ may touch outside itself.
// Hosts (hosts/sim, hosts/esp32, test/support) implement it and pass one Hal
// into boot(). Types only: no host code lives under src/.

import type { Assets } from './assets.ts';
import type { Ble } from './ble.ts';
import type { BoardInfo } from './board.ts';
import type { Clock } from './clock.ts';
import type { AudioOut, Battery, Buttons, Display, LedRing, Microphone, Serial, Touch } from './devices.ts';
import type { Net, Wifi } from './net.ts';
import type { Flash, Nvs, SdCard } from './storage.ts';
import type { System } from './system.ts';

export type * from './assets.ts';
export type * from './ble.ts';
export type * from './board.ts';
export type * from './clock.ts';
export type * from './devices.ts';
export type * from './net.ts';
export type * from './storage.ts';
export type * from './system.ts';
export { HalError, NVS_KEY_MAX, NVS_STR_MAX, NVS_BLOB_MAX } from './storage.ts';
export { DEVICE_TYPES } from './board.ts';
export { FRAME_SAMPLES_MAX, FRAME_GUARD } from './devices.ts';

/** Native hot loops a host may provide; src/ falls back to TypeScript without them. */
export interface Natives {
  vecdot?: import('../../modules/vecdot/vecdot.ts').VecdotApi;
  /** BM25 over the memory store's term lists. */
  lexical?: import('../../modules/lexical/lexical.ts').LexicalApi;
  sha256?: import('../../modules/sha256/sha256.ts').Sha256Api;
  /** u1*G + u2*Q on P-256 for signature checks (the SDK's crypt arithmetic in C). */
  p256?: import('../../modules/p256/p256.ts').P256Api;
  /** Routed into src/util/utf8.ts once at boot (useNativeUtf8). */
  utf8?: import('../../modules/utf8/utf8.ts').Utf8Api;
}

export interface BuildInfo {
  /** Firmware version, vX.Y.Z. */
  version: string;
  /** Commit or content id of this build. */
  buildId: string;
  /** Test builds carry the serial test console. */
  testBuild: boolean;
}

export interface Hal {
  board: BoardInfo;
  build: BuildInfo;
  clock: Clock;
  system: System;
  nvs: Nvs;
  sd: SdCard;
  flash: Flash;
  net: Net;
  wifi: Wifi;
  serial: Serial;
  ring: LedRing;
  display: Display;
  touch: Touch;
  battery: Battery;
  audio: AudioOut;
  mic: Microphone;
  /** Push buttons; absent on a host that reads none. */
  buttons?: Buttons;
  ble: Ble;
  natives: Natives;
  /** Read-only data that ships in the firmware image (src/hal/assets.ts). */
  assets: Assets;
}
