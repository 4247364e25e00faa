// Device HAL: the console (USB Serial/JTAG, desk_console.c), the LED ring
// (WS2812B over RMT, desk_ring.c), the display (Moddable's ili9341 and gc9a01 drivers, our glue
// for the ST7796S and ST7701S), touch (Moddable's ft6206 and gt911 drivers,
// polled), the battery gauge (ADC divider, MAX17048 or AXP2101 over ECMA-419
// I2C), the speaker (./audio.ts) and the microphone (./mic.ts).
//
// The SDK's display and FT6206 drivers take their pins, sizes and clock from
// the build's defines (boards/<type>/manifest.json writes them from
// board.json; test/unit/board-manifests.test.ts holds the two together), not
// from the constructor; the GT911 driver takes its I2C pins in its
// dictionary. Touch drivers fill points in read(points) (state 1 down, 2
// moved, 3 up) in the controller's own orientation.

import Analog from 'embedded:io/analog';
import I2C from 'embedded:io/i2c';
import PWM from 'embedded:io/pwm';
import { consoleOpen, consoleRead, consoleWrite, mp3Close, mp3Decode, mp3Open, panelBegin, panelEnd, panelOpen, panelSend, ringOpen, ringShow } from '../native/desk-native.js';
import type { BoardDescriptor } from '../../../boards/index.ts';
import { encode } from '../../../src/util/utf8.ts';
import { mp3Native } from '../../../modules/mp3/mp3.ts';
import { createAudioOut, type SharedClockOut } from './audio.ts';
import { Es8311 } from './es8311.ts';
import { drivers } from './drivers.ts';
import type { AudioOut, Battery, BatteryReading, Clock, Display, LedRing, Serial as HalSerial, Touch, TouchEvent } from '../../../src/hal/index.ts';

/** How often touch controllers are polled (their INT lines are not wired on every board). */
const TOUCH_POLL_MS = 20;
/** How often the console is read (the USB Serial/JTAG driver has no callback into XS). */
const CONSOLE_POLL_MS = 20;
/** A touch point the driver has not reported: state 0. */
const TOUCH_UP = 3;
const TOUCH_NONE = 0;

/** The serial test console: polled reads, and writes queued for what the driver's buffer does not take at once. */
export function createSerial(clock: Clock): HalSerial {
  consoleOpen();
  const queue: Uint8Array[] = [];
  const flush = (): void => {
    while (queue.length) {
      const head = queue[0]!;
      const n = consoleWrite(head);
      if (n >= head.length) queue.shift();
      else {
        queue[0] = head.subarray(n);
        return;
      }
    }
  };
  const serial: HalSerial = {
    onData: null,
    write(text: string) {
      queue.push(encode(text));
      flush();
    },
  };
  clock.setInterval(() => {
    flush();
    const bytes = consoleRead();
    if (bytes) serial.onData?.(new Uint8Array(bytes));
  }, CONSOLE_POLL_MS);
  return serial;
}

export function createRing(d: BoardDescriptor): LedRing {
  if (!d.ring) return { count: 0, show: () => undefined };
  ringOpen(d.ring.pin, d.ring.leds, d.ring.order === 'RGB' ? 1 : 0);
  return { count: d.ring.leds, show: (rgb: Uint8Array) => ringShow(rgb) };
}

function pin(pins: Record<string, number | number[]>, name: string): number {
  const v = pins[name];
  return typeof v === 'number' ? v : -1;
}

export function createDisplay(d: BoardDescriptor): Display {
  const pins = d.display.pins;
  const backlight = pin(pins, 'backlight') >= 0 ? new PWM({ pin: pin(pins, 'backlight'), hz: 5000 }) : null;
  const setBrightness = (level: number): void => {
    if (!backlight) return;
    const max = (1 << backlight.resolution) - 1;
    backlight.write(Math.round((Math.max(0, Math.min(255, level)) / 255) * max));
  };
  const base = { width: d.display.width, height: d.display.height, setBrightness };
  const c = d.display.controller;
  const Driver = c === 'ili9341' ? drivers.ili9341 : c === 'gc9a01' ? drivers.gc9a01 : undefined;
  if (Driver) {
    // pins, size and clock: the board manifest's ili9341 and spi defines
    const screen = new Driver();
    screen.rotation = d.display.rotation;
    return {
      ...base,
      begin: (x, y, w, h) => screen.begin(x, y, w, h),
      send: (pixels) => screen.send(pixels),
      end: () => screen.end(),
    };
  }
  // st7796s and st7701s: our glue (hosts/esp32/native/desk_panel.c)
  const config: Record<string, number | string> = { controller: c, width: d.display.panelWidth, height: d.display.panelHeight, rotation: d.display.rotation };
  for (const [name, v] of Object.entries(pins)) {
    if (typeof v === 'number') config[name] = v;
    else v.forEach((p, i) => (config[`d${i}`] = p));
  }
  if (d.display.spiHz) config['spiHz'] = d.display.spiHz;
  if (d.display.pclkHz) config['pclkHz'] = d.display.pclkHz;
  panelOpen(config as Parameters<typeof panelOpen>[0]);
  return { ...base, begin: panelBegin, send: panelSend, end: panelEnd };
}

export function createTouch(d: BoardDescriptor, clock: Clock): Touch {
  if (!d.touch) return { present: false, onTouch: null };
  const t = d.touch;
  // ft6206: pins and address are the board manifest's ft6206 defines; gt911 takes them here
  const driver = t.controller === 'gt911' ? (drivers.gt911 ? new drivers.gt911({ sda: t.i2c.sda, scl: t.i2c.scl, address: t.i2c.address }) : null) : drivers.ft6206 ? new drivers.ft6206() : null;
  if (!driver) return { present: false, onTouch: null };
  const touch: Touch = { present: true, onTouch: null };
  const points: SdkTouchPoint[] = [{ state: TOUCH_NONE, x: 0, y: 0 }];
  // Raw readings are in the panel's own orientation; rotate to the logical screen.
  const rotate = (x: number, y: number): [number, number] => {
    switch (d.display.rotation) {
      case 90:
        return [y, t.maxX - 1 - x];
      case 180:
        return [t.maxX - 1 - x, t.maxY - 1 - y];
      case 270:
        return [t.maxY - 1 - y, x];
      default:
        return [x, y];
    }
  };
  let down: { x: number; y: number; rawX: number; rawY: number } | null = null;
  clock.setInterval(() => {
    if (!touch.onTouch) return;
    driver.read(points);
    const p = points[0]!;
    const state = p.state & 0x7f;
    if (state === TOUCH_NONE || state === TOUCH_UP) {
      // The lift is where the finger last was, raw reading included (TCAL maps raw points).
      if (down) touch.onTouch({ kind: 'up', x: down.x, y: down.y, rawX: down.rawX, rawY: down.rawY });
      down = null;
      return;
    }
    const [x, y] = rotate(p.x, p.y);
    const event: TouchEvent = { kind: down ? 'move' : 'down', x, y, rawX: p.x, rawY: p.y };
    if (down && down.x === x && down.y === y) return;
    down = { x, y, rawX: p.x, rawY: p.y };
    touch.onTouch(event);
  }, TOUCH_POLL_MS);
  return touch;
}

const NO_BATTERY: BatteryReading = { present: false, levelPct: null, healthPct: null, millivolts: null, external: true, charging: false };

export function createBattery(d: BoardDescriptor): Battery {
  const b = d.battery;
  if (!b) return { read: () => ({ ...NO_BATTERY }) };
  if (b.gauge === 'adc' && b.adcPin !== undefined) {
    const adc = new Analog({ pin: b.adcPin });
    const ratio = b.dividerRatio ?? 2;
    return {
      read() {
        // 12-bit ADC at 11 dB attenuation reads about 0-3100 mV
        const mv = Math.round((adc.read() / ((1 << adc.resolution) - 1)) * 3100 * ratio);
        const pct = Math.max(0, Math.min(100, Math.round(((mv - 3300) / (4150 - 3300)) * 100)));
        // A divider cannot tell health or charging; above 4.25 V USB is feeding the pack.
        return { present: true, levelPct: pct, healthPct: null, millivolts: mv, external: mv > 4250, charging: mv > 4250 };
      },
    };
  }
  if (b.i2c) {
    const bus = new I2C({ data: b.i2c.sda, clock: b.i2c.scl, address: b.i2c.address, hz: 100000 });
    const reg16 = (reg: number): number => {
      bus.write(Uint8Array.of(reg), false);
      const r = new Uint8Array(bus.read(2));
      return (r[0]! << 8) | r[1]!;
    };
    const reg8 = (reg: number): number => {
      bus.write(Uint8Array.of(reg), false);
      return new Uint8Array(bus.read(1))[0]!;
    };
    return {
      read(): BatteryReading {
        try {
          if (b.gauge === 'max17048') {
            // VCELL 78.125 uV per bit; SOC in 1/256 %
            const mv = Math.round((reg16(0x02) * 78.125) / 1000);
            const pct = Math.min(100, Math.round(reg16(0x04) / 256));
            const crate = reg16(0x16);
            const charging = crate < 0x8000 && crate > 0;
            return { present: true, levelPct: pct, healthPct: null, millivolts: mv, external: charging, charging };
          }
          // AXP2101: 0xA4 battery percentage, 0x00 status (bit 5: VBUS good), 0x01 bits 5-6 charge direction
          const pct = reg8(0xa4);
          const external = (reg8(0x00) & 0x20) !== 0;
          const charging = ((reg8(0x01) >> 5) & 3) === 1;
          return { present: true, levelPct: pct <= 100 ? pct : null, healthPct: null, millivolts: null, external, charging };
        } catch {
          return { present: true, levelPct: null, healthPct: null, millivolts: null, external: false, charging: false };
        }
      },
    };
  }
  return { read: () => ({ ...NO_BATTERY }) };
}

/**
 * The board's audio codec (the ES8311 of panel-35), reset and set up over
 * I2C once at boot, or null (no codec, or it did not answer: then the board
 * has no speaker). The speaker and the microphone share it: the microphone
 * calls enableAdc/setMicGain on the same instance.
 */
export function createCodec(d: BoardDescriptor): Es8311 | null {
  const out = d.audio.out;
  if (out?.driver !== 'es8311' || !out.i2c) return null;
  let codec: Es8311 | null = null;
  try {
    codec = new Es8311({ sda: out.i2c.sda, scl: out.i2c.scl, address: out.i2c.address, open: (o) => new I2C(o) });
    codec.init();
    return codec;
  } catch {
    codec?.close();
    return null;
  }
}

/** The speaker: the SDK's AudioOut on a plain I2S amplifier or the board's codec, with our MP3 decoder (modules/mp3, ./audio.ts). */
export function createAudio(d: BoardDescriptor, codec: Es8311 | null): AudioOut & SharedClockOut {
  return createAudioOut(d, drivers.audioOut, { codec, openMp3: mp3Native({ mp3Open, mp3Decode, mp3Close }) });
}

/** The microphone: ./mic.ts (the SDK's ECMA-419 audio input). */
export { createMic, sharesClockPins } from './mic.ts';
