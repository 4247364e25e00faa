// Runs ON XS (build/sim/xsim --standalone): the device screen's costs in
// JavaScript, the display's own time left out (a display that takes tiles and
// does nothing). Per board: building the status screen's display list, a full
// render of it in 4096-pixel tiles, the incremental redraw when the minute
// changes, and the XS heap the full render needs; plus one sign-in QR encode.
// Prints one JSON object per line for bench/run.mjs.
//   npx esbuild bench/xs/ui.ts --bundle --format=iife --target=es2021 --outfile=/tmp/ui.js && build/sim/xsim --standalone /tmp/ui.js

import { boardInfo } from '../../boards/index.ts';
import type { Clock, DeviceType, Display } from '../../src/hal/index.ts';
import { layoutFor } from '../../src/ui/layout.ts';
import { encodeQr } from '../../src/ui/qr.ts';
import { Renderer } from '../../src/ui/renderer.ts';
import { statusScreen, type StatusView } from '../../src/ui/screens.ts';
import { rgb565, THEMES } from '../../src/ui/theme.ts';

declare const __sim: { print(text: string): void; monoMs(): number; gc(): void; resetPeak(): void; heap(): { now: number; peak: number } };

const clock: Clock = {
  monoMs: () => __sim.monoMs(),
  wallMs: () => 0,
  synced: () => true,
  setWall: () => {},
  setTimeout: () => ({ cancel() {} }),
  setInterval: () => ({ cancel() {} }),
};

function nullDisplay(width: number, height: number): Display & { px: number } {
  return {
    width,
    height,
    px: 0,
    begin() {},
    send(p: Uint16Array) {
      this.px += p.length;
    },
    end() {},
    setBrightness() {},
  };
}

const view = (time: string, ring: boolean): StatusView => ({
  name: 'Desk assistant',
  time,
  date: 'Sun 22 Nov',
  zone: 'UTC+1',
  net: '192.168.1.50',
  battery: '80%',
  state: 'Ready',
  tone: 'ok',
  reply: 'Your meeting with Anna is at 14:30 tomorrow. I added it to the calendar and set a reminder 15 minutes before, and I will tell you again in the morning.',
  replyDim: false,
  indicator: ring ? null : { dots: [rgb565(0, 80, 255)] },
});

/** Median and best milliseconds of f over `reps` runs. */
function time(f: () => void, reps: number): { median: number; best: number } {
  const t: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = __sim.monoMs();
    f();
    t.push(__sim.monoMs() - t0);
  }
  t.sort((a, b) => a - b);
  return { median: t[Math.floor(t.length / 2)]!, best: t[0]! };
}

const print = (obj: unknown): void => __sim.print(JSON.stringify(obj));

for (const type of ['ring-tft', 'panel-28', 'panel-35', 'panel-40'] as DeviceType[]) {
  const info = boardInfo(type);
  const d = nullDisplay(info.display.width, info.display.height);
  const r = new Renderer(d, clock, { tickPx: Infinity, tickMs: Infinity });
  const l = layoutFor(info.display.width, info.display.height, info.display.round);
  const theme = THEMES['dark']!;
  const ring = info.ringLeds > 0;
  const build = time(() => statusScreen(l, theme, view('09:41', ring)), 20);
  r.show(statusScreen(l, theme, view('09:41', ring)).list);
  r.flush();
  // The heap one full render needs on top of what was live before it (its garbage included).
  __sim.gc();
  __sim.resetPeak();
  const before = __sim.heap().now;
  r.invalidateAll();
  r.flush();
  const peak = __sim.heap().peak - before;
  const full = time(() => {
    r.invalidateAll();
    r.flush();
  }, 20);
  let minute = 0;
  const incremental = time(() => {
    minute = (minute + 1) % 60;
    r.show(statusScreen(l, theme, view(`09:${minute < 10 ? '0' : ''}${minute}`, ring)).list);
    r.flush();
  }, 20);
  print({ what: `ui-${type}`, width: d.width, height: d.height, items: r.current()!.items.length, build, full, incremental, heapPeak: peak, tile: r.tilePx });
}

const qr = time(() => encodeQr('http://192.168.1.50/?c=K7M3PQ9X'), 20);
print({ what: 'ui-qr', ...qr });
