// The render model and the renderer: the font (its data current, non-ASCII
// as decided), wrapping, the orientation maps, incremental and bounded
// redraw, the PNG stream, and that no frame on the 4.0 inch board (480x480)
// needs a full-screen buffer: every tile the display sees is at most 4096
// pixels and no allocation while drawing frames comes near a frame's size.

import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { FONT_OUT, FONT_SOURCE, fontModule } from '../../../tools/gen-font.mjs';
import { ELLIPSIS, glyphIndex, REPLACEMENT, toGlyphs, NO_GLYPH } from '../../../src/ui/font.ts';
import { Fonts } from '../../../src/ui/fonts.ts';
import { ListBuilder, type DisplayList } from '../../../src/ui/list.ts';
import { PngStream } from '../../../src/ui/png.ts';
import { canvasToDisplay, displayPointToCanvas, displayToCanvas, type Rotation } from '../../../src/ui/raster.ts';
import { Renderer } from '../../../src/ui/renderer.ts';
import { VirtualClock, flushJobs } from '../../support/clock.ts';
import { buildAssets, createMemHal } from '../../support/memhal.ts';
import { HOME_NETWORK, screenRig } from '../../support/screen-rig.ts';
import { CheckedDisplay, rgb888 } from '../../support/ui.ts';

const ROTATIONS: Rotation[] = [0, 90, 180, 270];
const font = new Fonts(buildAssets()).textFont(20);

function sampleList(width: number, height: number, label = 'Hello'): DisplayList {
  const b = new ListBuilder(width, height, 0x0000, 'test');
  b.rect(0, 0, width, 20, 0x001f);
  b.rect(10, 30, 40, 25, 0xf800);
  b.text(60, 30, label, 0xffff, font);
  b.disc(width - 30, height - 30, 20, 0x07e0);
  return b.build();
}

describe('the built-in bitmap font (the stand-in when an image has no fonts)', () => {
  it('is generated from its drawing (run node tools/gen-font.mjs after editing it)', () => {
    expect(readFileSync(FONT_OUT, 'utf8')).toBe(fontModule(readFileSync(FONT_SOURCE, 'utf8')));
  });

  it('shows accented Latin as base letters, look-alike punctuation as ASCII, other characters as one box each', () => {
    expect([...toGlyphs('café Ø ß')].map((g) => String.fromCharCode(g + 32))).toEqual([...'cafe O s']);
    expect(glyphIndex(0x2019)).toBe("'".charCodeAt(0) - 32);
    expect(glyphIndex(0x2014)).toBe('-'.charCodeAt(0) - 32);
    expect(glyphIndex(0x2026)).toBe(ELLIPSIS);
    expect(glyphIndex(0x301)).toBe(NO_GLYPH);
    // A decomposed é is one e; an emoji with its variation selector one box; CJK a box per character.
    expect(toGlyphs('e\u0301')).toEqual(Uint8Array.from([glyphIndex(0x65)]));
    expect(toGlyphs('\u2764\ufe0f')).toEqual(Uint8Array.from([REPLACEMENT]));
    expect(toGlyphs('日本😀')).toEqual(Uint8Array.from([REPLACEMENT, REPLACEMENT, REPLACEMENT]));
    expect(toGlyphs('a\tb')[1]).toBe(0);
  });

});

describe('orientation', () => {
  it('maps rectangles and points both ways for every mount', () => {
    for (const rot of ROTATIONS) {
      const r = { x: 13, y: 7, w: 50, h: 20 };
      expect(displayToCanvas(canvasToDisplay(r, 480, 320, rot), 480, 320, rot)).toEqual(r);
      // A canvas pixel's display position is where a touch there lands back on the canvas.
      const d = canvasToDisplay({ x: 13, y: 7, w: 1, h: 1 }, 480, 320, rot);
      expect(displayPointToCanvas(d.x, d.y, 480, 320, rot)).toEqual({ x: 13, y: 7 });
    }
  });

  it('draws each mount as the upright canvas turned, pixel for pixel', () => {
    for (const rot of ROTATIONS) {
      const display = new CheckedDisplay(480, 320, 4096);
      const r = new Renderer(display, new VirtualClock());
      r.setRotation(rot);
      const c = r.canvas();
      const list = sampleList(c.width, c.height);
      r.show(list);
      r.flush();
      const upright = new CheckedDisplay(c.width, c.height, 4096);
      const u = new Renderer(upright, new VirtualClock());
      u.show(list);
      u.flush();
      for (const [x, y] of [[0, 0], [15, 35], [70, 35], [c.width - 30, c.height - 30], [c.width - 1, c.height - 1]] as const) {
        const d = canvasToDisplay({ x, y, w: 1, h: 1 }, 480, 320, rot);
        expect(display.pixels[d.y * 480 + d.x], `${rot} at ${x},${y}`).toBe(upright.pixels[y * c.width + x]);
      }
      expect(display.violations).toEqual([]);
    }
  });
});

describe('the renderer', () => {
  it('draws again only what changed, and a bounded amount per tick', () => {
    const display = new CheckedDisplay(480, 480, 4096);
    const clock = new VirtualClock();
    const r = new Renderer(display, clock, { tickPx: 16384 });
    r.show(sampleList(480, 480));
    let ticks = 0;
    while (r.busy()) {
      const before = display.sent;
      r.tick();
      expect(display.sent - before).toBeLessThanOrEqual(16384 + 4096);
      ticks++;
    }
    expect(ticks).toBeGreaterThanOrEqual(Math.ceil((480 * 480) / (16384 + 4096)));
    const full = display.sent;
    r.show(sampleList(480, 480, 'Hellp'));
    r.flush();
    const text = display.sent - full;
    expect(text).toBeGreaterThan(0);
    expect(text).toBeLessThanOrEqual(5 * 12 * 18 * 2);
    // Nothing changed: nothing is drawn.
    r.show(sampleList(480, 480, 'Hellp'));
    expect(r.busy()).toBe(false);
    expect(display.largestTile).toBeLessThanOrEqual(4096);
    expect(display.violations).toEqual([]);
  });

  it('keeps a failed tile pending and draws it after a back-off', async () => {
    const display = new CheckedDisplay(240, 240, 4096);
    const clock = new VirtualClock();
    const r = new Renderer(display, clock);
    r.show(sampleList(240, 240));
    r.injectFaults(2);
    r.tick();
    expect(r.stats()).toMatchObject({ errors: 1, tiles: 0 });
    r.tick(); // still backing off
    expect(r.stats().errors).toBe(1);
    await clock.advance(60);
    r.tick();
    expect(r.stats().errors).toBe(2);
    await clock.advance(200);
    while (r.busy()) r.tick();
    expect(r.stats().pendingPx).toBe(0);
    expect(display.sent).toBe(240 * 240);
  });
});

describe('PNG export', () => {
  it('streams a valid PNG band by band with the exact announced length', () => {
    const display = new CheckedDisplay(320, 240, 4096);
    const r = new Renderer(display, new VirtualClock());
    r.show(sampleList(320, 240));
    r.flush();
    const png = new PngStream(320, 240);
    const parts: Uint8Array[] = [png.header()];
    r.eachBand(false, (px, _y, rows) => parts.push(png.band(px, rows)));
    parts.push(png.end());
    const bytes = Buffer.concat(parts);
    expect(bytes.length).toBe(PngStream.size(320, 240, r.bandRows()));
    const decoded = PNG.sync.read(bytes);
    expect([decoded.width, decoded.height]).toEqual([320, 240]);
    for (let i = 0; i < 320 * 240; i += 97) expect([...decoded.data.subarray(i * 4, i * 4 + 3)]).toEqual(rgb888(display.pixels[i]!));
  });
});

describe('no full-screen buffer on the 4.0 inch board', () => {
  it('every tile is at most 4096 pixels and no allocation while drawing frames comes near a frame', async () => {
    const mem = createMemHal({ board: 'panel-40' });
    const display = new CheckedDisplay(480, 480, 4096);
    mem.hal.display = display;
    // The screen alone on a test kernel, on a home network (the sign-in QR needs an address).
    const device = screenRig({ mem, network: HOME_NETWORK });
    await mem.clock.advance(1500);
    const cmd = async (line: string): Promise<string> => {
      mem.serial.take();
      mem.serial.type(line + '\r\n');
      for (let i = 0; i < 6; i++) await flushJobs();
      return mem.serial.take();
    };
    // Allocation sizes of every typed array and buffer made while frames are drawn.
    const sizes: number[] = [];
    const names = ['ArrayBuffer', 'Uint8Array', 'Uint16Array', 'Uint32Array', 'Int32Array', 'Uint8ClampedArray', 'Float64Array'] as const;
    const saved = names.map((n) => globalThis[n]);
    const bytesOf = (n: string, args: unknown[]): number => {
      const a = args[0];
      const per = n === 'ArrayBuffer' || n.startsWith('Uint8') ? 1 : n === 'Uint16Array' ? 2 : n === 'Float64Array' ? 8 : 4;
      if (typeof a === 'number') return a * per;
      if (a && typeof a === 'object' && !(a instanceof saved[0]!) && 'length' in (a as object)) return (a as { length: number }).length * per;
      return 0;
    };
    names.forEach((n, i) => {
      (globalThis as Record<string, unknown>)[n] = new Proxy(saved[i]!, {
        construct(target, args, newTarget) {
          sizes.push(bytesOf(n, args));
          return Reflect.construct(target, args, newTarget) as object;
        },
      });
    });
    try {
      for (const screen of ['status', 'menu', 'signin', 'probe', 'saver']) {
        if (screen === 'menu') await cmd('TAP 240 240');
        if (screen === 'signin') device.ui.showSignIn();
        if (screen === 'probe') await cmd('PANELPROBE 1');
        if (screen === 'saver') {
          await cmd('PANELPROBE 0');
          await cmd('SAVER now');
        }
        device.ui.renderer.invalidateAll();
        expect(device.ui.flush()).toBe(true);
        expect(device.ui.screen()).toBe(screen);
      }
      expect(await cmd('RENDER?')).toMatch(/OK\r\n$/);
      expect(await cmd('RAWFRAME?')).toMatch(/OK\r\n$/);
    } finally {
      names.forEach((n, i) => ((globalThis as Record<string, unknown>)[n] = saved[i]));
    }
    expect(display.violations).toEqual([]);
    expect(display.largestTile).toBeLessThanOrEqual(4096);
    expect(sizes.length).toBeGreaterThan(0);
    const frameBytes = 480 * 480 * 2;
    expect(Math.max(...sizes)).toBeLessThanOrEqual(16 * 1024);
    expect(Math.max(...sizes)).toBeLessThan(frameBytes / 16);
  });
});
