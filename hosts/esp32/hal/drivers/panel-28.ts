// The SDK drivers the panel-28 image links (boards/panel-28/manifest.json); see ../drivers.ts.

import ILI9341 from 'ili9341';
import FT6206 from 'ft6206';
import AudioOut from 'pins/audioout';
import type { Drivers } from '../drivers.ts';

export const drivers: Drivers = { ili9341: ILI9341, ft6206: FT6206, audioOut: AudioOut };
