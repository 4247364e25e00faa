// The panel probe (PANELPROBE): a test card of edges, corners, colour order
// and centre, with the panel's identity and the last touch, for checking a
// new panel's wiring, mounting and touch mapping. While it is on it shows
// over every other screen.

import { postureName } from './settings.ts';
import type { Built, Screen, ScreenHost } from './screen-kit.ts';
import { probeScreen, type ProbeView } from './screens.ts';
import { stringify } from '../util/json.ts';

export class ProbeScreen implements Screen {
  private on = false;
  private touch: { x: number; y: number } | null = null;

  constructor(private readonly host: ScreenHost) {}

  set(on: boolean): void {
    this.on = on;
    this.touch = null;
  }

  showing(): boolean {
    return this.on;
  }

  press(p: { x: number; y: number }): void {
    this.touch = p;
  }

  build(): Built {
    const l = this.host.layout();
    const { hal } = this.host.dev;
    const info = [
      `${hal.board.display.controller} ${hal.display.width}x${hal.display.height}`,
      `canvas ${l.width}x${l.height} ${postureName(this.host.rotation())}`,
      this.touch ? `touch ${this.touch.x},${this.touch.y}` : 'touch: none yet',
    ];
    const v: ProbeView = { info, touch: this.touch };
    // No theme: the card's colours are the test.
    return { key: `probe|${stringify(v)}`, make: () => probeScreen(l, v) };
  }
}
