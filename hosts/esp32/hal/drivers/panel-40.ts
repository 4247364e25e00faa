// The SDK drivers the panel-40 image links (boards/panel-40/manifest.json); see ../drivers.ts.

import GT911 from 'gt911';
import AudioOut from 'pins/audioout';
import type { Drivers } from '../drivers.ts';

export const drivers: Drivers = { gt911: GT911, audioOut: AudioOut };
