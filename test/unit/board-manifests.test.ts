// The SDK drivers' build-time configuration in each board manifest agrees
// with the board's descriptor (boards/<type>/board.json): the ili9341 and
// gc9a01 display drivers and the ft6206 touch driver read their pins, sizes
// and clock from the manifest's defines (MODDEF_ILI9341_CS_PIN, MODDEF_SPI_*,
// MODDEF_FT6206_*: modules/drivers/ili9341/modIli9341.c, ft6206/modFt6206.c),
// not from their constructors, so the two must say the same.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BOARD_DESCRIPTORS } from '../../boards/index.ts';
import { DEVICE_TYPES } from '../../src/hal/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Defines = Record<string, Record<string, unknown>>;
const defines = (board: string): Defines =>
  (JSON.parse(readFileSync(join(ROOT, 'boards', board, 'manifest.json'), 'utf8')) as { platforms?: { esp32?: { defines?: Defines } } }).platforms?.esp32?.defines ?? {};

describe('the board manifests configure the SDK drivers as board.json describes', () => {
  for (const board of DEVICE_TYPES) {
    it(`${board}`, () => {
      const d = BOARD_DESCRIPTORS[board];
      const def = defines(board);
      const pins = d.display.pins as Record<string, number>;
      if (d.display.controller === 'ili9341' || d.display.controller === 'gc9a01') {
        const expected: Record<string, number> = { cs_pin: pins['cs']!, dc_pin: pins['dc']!, width: d.display.panelWidth, height: d.display.panelHeight, hz: d.display.spiHz! };
        if ((pins['rst'] ?? -1) >= 0) expected['rst_pin'] = pins['rst']!;
        expect(def['ili9341']).toEqual(expected);
        const spi: Record<string, number> = { mosi_pin: pins['mosi']!, sck_pin: pins['sclk']! };
        if (pins['miso'] !== undefined) spi['miso_pin'] = pins['miso'];
        expect(def['spi']).toEqual(spi);
      } else {
        // our own glue drives the ST7796S and ST7701S from the descriptor at run time
        expect(def['ili9341']).toBeUndefined();
      }
      if (d.touch?.controller === 'ft6206') {
        // raw readings in the controller's orientation: the HAL rotates them (no flips, no scaling)
        expect(def['ft6206']).toEqual({ sda: d.touch.i2c.sda, scl: d.touch.i2c.scl, addr: d.touch.i2c.address, width: d.touch.maxX, height: d.touch.maxY, flipX: false, flipY: false, fitX: 0, fitY: 0 });
      } else expect(def['ft6206']).toBeUndefined();
    });
  }
});
