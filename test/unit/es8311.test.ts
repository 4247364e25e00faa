// The ES8311 driver (hosts/esp32/hal/es8311.ts) on a register-level stand-in
// for the chip behind ECMA-419 I2C (write [reg, value]; write [reg] without a
// stop, then read 1): the set-up sequence of Espressif's driver (esp-bsp
// es8311_init: reset, power-on, clocks from BCLK, slave I2S 16-bit, analog and
// DAC power, equalizers bypassed), the clock dividers for MCLK = 32 x fs that
// coeff_div[] lists for 44.1 kHz (and the same rule at 24 and 16 kHz), DAC and
// ADC power, volume and microphone gain.
import { describe, expect, it } from 'vitest';
import { Es8311, REG, type I2cBus } from '../../hosts/esp32/hal/es8311.ts';

class ChipFake implements I2cBus {
  regs = new Uint8Array(256);
  writes: Array<[number, number]> = [];
  private pointer = 0;
  opened: { data: number; clock: number; address: number; hz: number } | null = null;
  constructor() {
    // Power-on defaults the driver reads back before changing some bits [DS].
    this.regs[REG.RESET] = 0x1f;
    this.regs[REG.CLK_MANAGER2] = 0x00;
    this.regs[REG.CLK_MANAGER6] = 0x03;
    this.regs[REG.CLK_MANAGER7] = 0x00;
    this.regs[REG.DAC31] = 0x00;
  }
  write(buffer: ArrayBufferLike | ArrayBufferView, stop = true): void {
    const b = ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
    if (b.length === 1 && stop === false) {
      this.pointer = b[0]!;
      return;
    }
    if (b.length !== 2) throw new Error(`the ES8311 takes [reg, value], got ${b.length} bytes`);
    this.regs[b[0]!] = b[1]!;
    this.writes.push([b[0]!, b[1]!]);
  }
  read(count: number): ArrayBuffer {
    if (count !== 1) throw new Error('one register at a time');
    return Uint8Array.of(this.regs[this.pointer]!).buffer;
  }
}

function codec(): { chip: ChipFake; c: Es8311 } {
  const chip = new ChipFake();
  const c = new Es8311({ sda: 8, scl: 7, open: (o) => ((chip.opened = o), chip) });
  return { chip, c };
}

describe('the ES8311 driver', () => {
  it('opens the bus at the board\'s pins and address 0x18, and sets the codec up as Espressif\'s driver does', () => {
    const { chip, c } = codec();
    expect(chip.opened).toEqual({ data: 8, clock: 7, address: 0x18, hz: 100000 });
    c.init();
    // Reset, then the power-on command, in that order, first.
    expect(chip.writes.slice(0, 3)).toEqual([[0x00, 0x1f], [0x00, 0x00], [0x00, 0x80]]);
    const r = chip.regs;
    expect(r[REG.CLK_MANAGER1]).toBe(0xbf); // all clocks on, MCLK from the BCLK pin
    expect(r[REG.RESET]! & 0x40).toBe(0); // slave serial port
    expect([r[REG.SDP_IN], r[REG.SDP_OUT]]).toEqual([0x0c, 0x0c]); // 16-bit I2S both ways
    expect([r[REG.SYSTEM0D], r[REG.SYSTEM0E], r[REG.SYSTEM12], r[REG.SYSTEM13], r[REG.ADC1C], r[REG.DAC37]]).toEqual([0x01, 0x02, 0x00, 0x10, 0x6a, 0x08]);
    // 44.1 kHz with MCLK = 1411200 Hz: coeff_div[] {1411200, 44100, pre_div 1, x8, 1, 1, ss, 0x00, 0xff, bclk 4, 0x10, 0x10}.
    expect([r[REG.CLK_MANAGER2], r[REG.CLK_MANAGER3], r[REG.CLK_MANAGER4], r[REG.CLK_MANAGER5]]).toEqual([0x18, 0x10, 0x10, 0x00]);
    expect([r[REG.CLK_MANAGER6]! & 0x1f, r[REG.CLK_MANAGER7]! & 0x0f, r[REG.CLK_MANAGER8]]).toEqual([0x03, 0x00, 0xff]);
  });

  it('sets the same dividers at every rate (MCLK follows BCLK) and refuses rates it cannot clock', () => {
    const { chip, c } = codec();
    c.init();
    chip.writes = [];
    c.setRate(44100);
    expect(chip.writes).toEqual([]); // already there
    c.setRate(24000);
    expect(chip.writes.map(([reg]) => reg)).toEqual([0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]);
    expect(chip.regs[REG.CLK_MANAGER2]).toBe(0x18);
    expect(() => c.setRate(96000)).toThrow(RangeError);
    expect(() => c.setRate(4000)).toThrow(RangeError);
  });

  it('DAC and ADC power, volume 0-100 and microphone gain', () => {
    const { chip, c } = codec();
    c.init();
    c.enableDac(false);
    expect([chip.regs[REG.DAC31]! & 0x60, chip.regs[REG.SYSTEM12], chip.regs[REG.SYSTEM13]]).toEqual([0x60, 0x02, 0x00]);
    c.enableDac(true);
    expect([chip.regs[REG.DAC31]! & 0x60, chip.regs[REG.SYSTEM12], chip.regs[REG.SYSTEM13]]).toEqual([0x00, 0x00, 0x10]);
    c.enableAdc(false);
    expect([chip.regs[REG.SYSTEM0E], chip.regs[REG.SYSTEM14], chip.regs[REG.ADC17]]).toEqual([0xff, 0x00, 0x00]);
    c.enableAdc(true);
    expect([chip.regs[REG.SYSTEM0E], chip.regs[REG.SYSTEM14], chip.regs[REG.ADC17]]).toEqual([0x02, 0x1a, 0xbf]);
    const vol = (v: number): number => (c.setVolume(v), chip.regs[REG.DAC32]!);
    expect([vol(0), vol(1), vol(50), vol(75), vol(100), vol(150), vol(-3)]).toEqual([0, 1, 127, 191, 255, 255, 0]);
    const gain = (db: number): number => (c.setMicGain(db), chip.regs[REG.ADC16]!);
    expect([gain(0), gain(6), gain(24), gain(42), gain(60), gain(-6)]).toEqual([0, 1, 4, 7, 7, 0]);
  });
});
