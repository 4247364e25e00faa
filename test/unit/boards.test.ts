// boards/: one descriptor per frozen device type, complete and consistent.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOARD_DESCRIPTORS, boardInfo, type BoardDescriptor } from '../../boards/index.ts';
import { DEVICE_TYPES } from '../../src/hal/index.ts';

const root = new URL('../../boards/', import.meta.url);

/** Every GPIO a board uses, labelled by what uses it. */
function pinUses(d: BoardDescriptor): Array<{ pin: number; use: string }> {
  const out: Array<{ pin: number; use: string }> = [];
  const add = (prefix: string, pins: Record<string, unknown>): void => {
    for (const [k, v] of Object.entries(pins)) {
      if (typeof v === 'number' && v >= 0) out.push({ pin: v, use: `${prefix}.${k}` });
      if (Array.isArray(v)) v.forEach((p, i) => out.push({ pin: p as number, use: `${prefix}.${k}${i}` }));
    }
  };
  add('display', d.display.pins);
  if (d.touch) add('touch', { ...d.touch.i2c, address: -1, int: d.touch.int });
  if (d.ring) add('ring', { data: d.ring.pin });
  d.buttons.forEach((b) => add(`button-${b.name}`, { pin: b.pin }));
  if (d.battery?.i2c) add('battery', { ...d.battery.i2c, address: -1 });
  if (d.battery?.adcPin !== undefined) add('battery', { adc: d.battery.adcPin });
  add('sd', d.sd.pins);
  if (d.audio.out) add(`audio-${d.audio.out.driver}`, d.audio.out.i2s);
  if (d.audio.mic) add(`audio-${d.audio.mic.driver}`, d.audio.mic.i2s);
  return out;
}

// Signals that may legitimately be shared: a bus (SPI, I2C) or one codec's I2S lines.
const SHARED = /^(sclk|mosi|miso|sda|scl|mclk|bclk|lrclk|ws|din|dout)$/;
const role = (use: string): string => use.split('.').pop()!.replace(/^init/, '').toLowerCase();

describe('boards', () => {
  it('has exactly one folder per frozen device type', () => {
    const folders = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(folders).toEqual([...DEVICE_TYPES].sort());
    for (const t of DEVICE_TYPES) {
      expect(existsSync(new URL(`${t}/board.json`, root))).toBe(true);
      expect(existsSync(new URL(`${t}/manifest.json`, root))).toBe(true);
    }
  });

  for (const type of DEVICE_TYPES) {
    describe(type, () => {
      const d = BOARD_DESCRIPTORS[type];
      it('names its own type and a family matching it', () => {
        expect(d.type).toBe(type);
        expect(d.family).toBe(type.startsWith('ring') ? 'ring' : 'panel');
      });
      it('is an ESP32-S3 with 16 MB flash and 8 MB PSRAM', () => {
        expect(d.module).toMatch(/ESP32-S3/);
        expect(d.flashBytes).toBe(16 * 1024 * 1024);
        expect(d.psramBytes).toBe(8 * 1024 * 1024);
      });
      it('has a display whose logical size follows its rotation', () => {
        const { panelWidth, panelHeight, rotation, width, height } = d.display;
        const swapped = rotation === 90 || rotation === 270;
        expect([width, height]).toEqual(swapped ? [panelHeight, panelWidth] : [panelWidth, panelHeight]);
        expect(d.display.controller).toMatch(/^[a-z0-9]+$/);
      });
      it('has a touch controller on panels and a ring on the ring board', () => {
        if (d.family === 'panel') {
          expect(d.touch?.controller).toMatch(/^(ft6206|gt911|xpt2046)$/);
          expect(d.ring).toBeNull();
        } else {
          expect(d.ring?.leds).toBeGreaterThan(0);
        }
      });
      it('uses each GPIO for one thing (buses and codec lines excepted) within 0-48', () => {
        const byPin = new Map<number, string[]>();
        for (const { pin, use } of pinUses(d)) {
          expect(pin, use).toBeGreaterThanOrEqual(0);
          expect(pin, use).toBeLessThanOrEqual(48);
          byPin.set(pin, [...(byPin.get(pin) ?? []), use]);
        }
        for (const [pin, uses] of byPin) {
          if (uses.length < 2) continue;
          const roles = new Set(uses.map(role));
          const shareable = roles.size === 1 && SHARED.test([...roles][0]!);
          expect(shareable, `GPIO ${pin} used by ${uses.join(', ')}`).toBe(true);
        }
      });
      it('gives the firmware a BoardInfo derived from the descriptor', () => {
        const info = boardInfo(type);
        expect(info.type).toBe(type);
        expect(info.ringLeds).toBe(d.ring?.leds ?? 0);
        expect(info.display.width).toBe(d.display.width);
      });
    });
  }
});
