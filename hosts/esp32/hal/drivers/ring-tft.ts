// The SDK drivers the ring-tft image links (boards/ring-tft/manifest.json); see ../drivers.ts.

import GC9A01 from 'gc9a01';
import AudioOut from 'pins/audioout';
import AudioIn from 'embedded:io/audio/in';
import type { Drivers } from '../drivers.ts';

export const drivers: Drivers = { audioIn: AudioIn, gc9a01: GC9A01, audioOut: AudioOut };
