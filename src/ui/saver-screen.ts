// The screen saver: a dim clock and date after the idle delay, moved once a
// minute along a fixed pseudo-random walk so no pixel stays lit for long.
// When it shows is the dispatcher's (src/ui/ui.ts): over the status screen
// or the menu, never under a finger.

import type { Built, Screen, ScreenHost } from './screen-kit.ts';
import { saverScreen, type SaverView } from './screens.ts';
import { stringify } from '../util/json.ts';

export class SaverScreen implements Screen {
  constructor(private readonly host: ScreenHost) {}

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const c = this.host.reads.clock();
    // Knuth's multiplicative hash of the minute: neighbouring minutes land far apart.
    const k = (c.minute * 2654435761) >>> 0;
    const v: SaverView = { time: c.time, date: c.date, driftX: (k & 0xff) / 255, driftY: ((k >>> 8) & 0xff) / 255 };
    return { key: `saver|${t.name}|${stringify(v)}`, make: () => saverScreen(l, t, v) };
  }
}
