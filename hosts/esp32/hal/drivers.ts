// Device HAL: the display, touch and audio drivers of the SDK, by name (the
// LED ring is our own, desk_ring.c). Each
// board's image links only the drivers its manifest includes, so
// tools/build-device.mjs replaces this module with drivers/<type>.ts when it
// bundles; this file (every driver) is what the typecheck sees.

import FT6206 from 'ft6206';
import GC9A01 from 'gc9a01';
import GT911 from 'gt911';
import ILI9341 from 'ili9341';
import AudioIn from 'embedded:io/audio/in';
import AudioOut from 'pins/audioout';
import type { SdkAudioOutClass } from './audio.ts';
import type { SdkAudioInClass } from './mic.ts';

export interface Drivers {
  ili9341?: typeof ILI9341;
  gc9a01?: typeof GC9A01;
  ft6206?: typeof FT6206;
  gt911?: typeof GT911;
  /** pins/audioout: boards with a plain I2S amplifier ($(MODDABLE)/modules/pins/i2s). */
  audioOut?: SdkAudioOutClass;
  /** embedded:io/audio/in: boards with a microphone ($(MODDABLE)/modules/io/audioin). */
  audioIn?: SdkAudioInClass;
}

export const drivers: Drivers = { ili9341: ILI9341, gc9a01: GC9A01, ft6206: FT6206, gt911: GT911, audioOut: AudioOut, audioIn: AudioIn };
