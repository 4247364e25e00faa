// The SDK drivers the panel-35 image links (boards/panel-35/manifest.json); see ../drivers.ts.

import FT6206 from 'ft6206';
import AudioIn from 'embedded:io/audio/in';
import AudioOut from 'pins/audioout';
import type { Drivers } from '../drivers.ts';

export const drivers: Drivers = { audioIn: AudioIn, ft6206: FT6206, audioOut: AudioOut };
