// Runs ON XS (build/sim/xsim --standalone --assets <pack>): the device
// screen's costs in JavaScript, the display's own time left out (a display
// that takes tiles and does nothing). Per board: building the status screen's
// display list, a full render of it in 4096-pixel tiles, the incremental
// redraw when the minute changes, and the XS heap the full render needs; a
// full-screen reply redraw in the image's fonts beside the same screen in the
// built-in 5 x 9 bitmap font (the screen before real fonts: same renderer,
// its glyphs drawn by whole-pixel runs), for a European and a CJK reply;
// plus one sign-in QR encode. Prints one JSON object per line for bench/run.mjs.
//   npx esbuild bench/xs/ui.ts --bundle --format=iife --target=es2021 --outfile=/tmp/ui.js && build/sim/xsim --standalone --assets build/assets/bench.bin /tmp/ui.js

import { boardInfo } from '../../boards/index.ts';
import type { Clock, DeviceType, Display } from '../../src/hal/index.ts';
import { Fonts } from '../../src/ui/fonts.ts';
import { layoutFor } from '../../src/ui/layout.ts';
import { NO_ASSETS, readAssetPack } from '../../src/util/asset-pack.ts';
import { encodeQr } from '../../src/ui/qr.ts';
import { Renderer } from '../../src/ui/renderer.ts';
import { statusScreen, type StatusView } from '../../src/ui/screens.ts';
import { rgb565, THEMES } from '../../src/ui/theme.ts';

declare const __sim: { print(text: string): void; monoMs(): number; gc(): void; resetPeak(): void; heap(): { now: number; peak: number }; assets?: ArrayBuffer };

const pack = readAssetPack(__sim.assets);
// what the fonts keep in the XS heap: the faces' headers and views (their glyphs stay in the mapped assets)
__sim.gc();
const heapBefore = __sim.heap().now;
const fonts = new Fonts(pack);
__sim.gc();
const fontsHeap = __sim.heap().now - heapBefore;
const bitmap = new Fonts(NO_ASSETS);

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

const LONG_EU =
  'Grüße aus München! Morgen wird es kälter, also nimm eine Jacke mit. Żółw i gęś idą do szkoły; le garçon mange des crêpes près de la forêt. Привет, как дела? Завтра будет солнечно. Καλημέρα, τι κάνεις σήμερα; Der Termin mit Anna ist um 14:30 Uhr, ich habe eine Erinnerung gestellt und sage es dir morgen früh noch einmal.';
const LONG_CJK = '明天上午十点有会议，请记得带上笔记本电脑。今天天气很好，适合出去散步。東京は今日も晴れです。午後三時に駅で会いましょう。안녕하세요, 오늘 날씨가 좋습니다. 내일 회의는 열 시에 시작합니다. 明天见！';

const view = (time: string, ring: boolean, reply = 'Your meeting with Anna is at 14:30 tomorrow. I added it to the calendar and set a reminder 15 minutes before, and I will tell you again in the morning.'): StatusView => ({
  name: 'Desk assistant',
  time,
  date: 'Sun 22 Nov',
  zone: 'UTC+1',
  net: '192.168.1.50',
  battery: '80%',
  state: 'Ready',
  tone: 'ok',
  reply,
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
  const l = layoutFor(info.display.width, info.display.height, info.display.round, fonts);
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
  // A full-screen reply redraw (the whole panel drawn again, reply box full), bitmap beside real fonts.
  const redraw = (set: Fonts, reply: string): { median: number; best: number } => {
    const lay = layoutFor(info.display.width, info.display.height, info.display.round, set);
    r.show(statusScreen(lay, theme, view('09:41', ring, reply)).list);
    r.flush();
    return time(() => {
      r.invalidateAll();
      r.flush();
    }, 20);
  };
  // interleaved, best of three rounds each: a slow moment of the shared machine hits both alike
  const rounds = { bitmap: [] as number[], eu: [] as number[], cjk: [] as number[], cjkBitmap: [] as number[] };
  for (let k = 0; k < 3; k++) {
    rounds.bitmap.push(redraw(bitmap, LONG_EU).median);
    rounds.eu.push(redraw(fonts, LONG_EU).median);
    rounds.cjkBitmap.push(redraw(bitmap, LONG_CJK).median);
    rounds.cjk.push(redraw(fonts, LONG_CJK).median);
  }
  const best = (a: number[]): number => Math.min(...a);
  print({ what: `reply-${type}`, bitmap: best(rounds.bitmap), fonts: best(rounds.eu), cjkBitmap: best(rounds.cjkBitmap), cjk: best(rounds.cjk), cjkFace: fonts.cjk !== null });
}

print({ what: 'fonts-heap', bytes: fontsHeap });

const qr = time(() => encodeQr('http://192.168.1.50/?c=K7M3PQ9X'), 20);
print({ what: 'ui-qr', ...qr });
