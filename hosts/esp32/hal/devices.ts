// Device HAL: the console (USB serial), the LED ring (NeoPixel), the display
// (Moddable's ili9341 and gc9a01 drivers, our glue for the ST7796S and
// ST7701S), touch (Moddable's ft6206 and gt911 drivers, polled), the battery
// gauge (ADC divider, MAX17048 or AXP2101 over ECMA-419 I2C), the speaker
// (./audio.ts) and the microphone.

import Analog from 'embedded:io/analog';
import I2C from 'embedded:io/i2c';
import PWM from 'embedded:io/pwm';
import Serial from 'embedded:io/serial';
import { panelBegin, panelEnd, panelOpen, panelSend } from '../native/desk-native.js';
import type { BoardDescriptor } from '../../../boards/index.ts';
import { encode } from '../../../src/util/utf8.ts';
import { createAudioOut } from './audio.ts';
import { drivers } from './drivers.ts';
import type { AudioOut, Battery, BatteryReading, Clock, Display, LedRing, Microphone, Serial as HalSerial, Touch, TouchEvent } from '../../../src/hal/index.ts';

/** How often touch controllers are polled (their INT lines are not wired on every board). */
const TOUCH_POLL_MS = 20;

export function createSerial(): HalSerial {
  const serial: HalSerial = {
    onData: null,
    write(text: string) {
      io.write(encode(text));
    },
  };
  const io = new Serial({
    baud: 115200,
    format: 'buffer',
    onReadable(count) {
      const bytes = this.read(count);
      if (bytes) serial.onData?.(new Uint8Array(bytes));
    },
  });
  return serial;
}

export function createRing(d: BoardDescriptor): LedRing {
  const NeoPixel = drivers.neopixel;
  if (!d.ring || !NeoPixel) return { count: 0, show: () => undefined };
  const pixels = new NeoPixel({ length: d.ring.leds, pin: d.ring.pin, order: d.ring.order === 'RGB' ? 'RGB' : 'GRB' });
  return {
    count: d.ring.leds,
    show(rgb: Uint8Array) {
      for (let i = 0; i < pixels.length; i++) pixels.setPixel(i, pixels.makeRGB(rgb[3 * i] ?? 0, rgb[3 * i + 1] ?? 0, rgb[3 * i + 2] ?? 0));
      pixels.update();
    },
  };
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
    const screen = new Driver({
      width: d.display.panelWidth,
      height: d.display.panelHeight,
      hz: d.display.spiHz,
      cs: pin(pins, 'cs'),
      dc: pin(pins, 'dc'),
      rst: pin(pins, 'rst'),
      spi: { sclk: pin(pins, 'sclk'), mosi: pin(pins, 'mosi'), miso: pin(pins, 'miso') },
    });
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
  const options = { sda: t.i2c.sda, scl: t.i2c.scl, address: t.i2c.address };
  const Driver = t.controller === 'gt911' ? drivers.gt911 : drivers.ft6206;
  if (!Driver) return { present: false, onTouch: null };
  const driver = new Driver(options);
  const touch: Touch = { present: true, onTouch: null };
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
    const p = driver.sample()?.[0];
    if (!p) {
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

/** The speaker: the SDK's AudioOut on a plain I2S amplifier (./audio.ts). */
export function createAudio(d: BoardDescriptor): AudioOut {
  return createAudioOut(d, drivers.audioOut);
}

/** The microphone is not driven yet on the device (see docs/device.md). */

export function createMic(): Microphone {
  return { present: false, onSamples: null, start: () => undefined, stop: () => undefined };
}
