// The ES8311 audio codec (panel-35) over the SDK's ECMA-419 I2C
// (embedded:io/i2c, opened by ./devices.ts and passed in as `open`): the register set-up that makes its DAC play the I2S
// stream the SDK's AudioOut sends, and its ADC record the microphone.
//
// Sources, cited register by register below:
//   [DS]  Everest Semiconductor, ES8311 datasheet (register map: 0x00 reset
//         and serial-port mode, 0x01-0x08 clock manager, 0x09/0x0A serial
//         data port formats, 0x0D-0x14 system/power, 0x16-0x17 ADC gain and
//         volume, 0x1C ADC equalizer/DC, 0x31-0x32 DAC mute and volume, 0x37
//         DAC ramp and equalizer bypass);
//   [EB]  Espressif's driver, esp-bsp components/es8311/es8311.c (es8311_init,
//         es8311_clock_config, es8311_sample_frequency_config, coeff_div[],
//         es8311_voice_volume_set, es8311_microphone_config);
//   [CD]  esp_codec_dev's es8311_codec.c, which follows [EB] for the set-up
//         and powers the paths down in es8311_suspend (0E=FF ADC path off,
//         12=02 DAC off, 14=00 PGA off, 17=00 ADC volume off).
//
// Clocking: the SDK's AudioOut leaves the I2S master clock pin unused
// (modules/pins/i2s/audioout.c sets gpio_cfg.mclk = I2S_GPIO_UNUSED), so the
// codec takes its internal MCLK from the bit clock (REG01 bit 7, [DS], [EB]'s
// "MCLK from SCLK pin"). 16-bit stereo-slot I2S makes BCLK = 32 x fs; every
// row of [EB]'s coeff_div[] with mclk = 32 x fs (22.05, 32, 44.1 and 48 kHz)
// is the same: pre_div 1, pre_multi x8 (so 256 x fs inside), adc_div = dac_div
// = 1, single speed, LRCK divider 0x0FF + 1 = 256, BCLK divider 4, OSR 0x10.
// That rule is applied at every rate the firmware plays (8-48 kHz).
//
// The ES8311 is a slave on the serial port ([EB] es8311_fmt_config: REG00
// bit 6 cleared) at I2C address 0x18 (CE pin low, [DS]).

/** The ECMA-419 I2C instance (embedded:io/i2c) as this driver uses it; ./devices.ts opens it, tests give a fake. */
export interface I2cBus {
  write(buffer: ArrayBufferLike | ArrayBufferView, stop?: boolean): void;
  read(count: number, stop?: boolean): ArrayBuffer;
  /** ECMA-419 has it; the SDK 8.2.3's typings (embedded_io/i2c.d.ts) leave it out. */
  close?(): void;
}

export interface Es8311Options {
  sda: number;
  scl: number;
  /** 7-bit address: 0x18 with CE low, 0x19 with CE high [DS]. */
  address?: number;
  hz?: number;
  /** Opens the bus: new I2C(o) of embedded:io/i2c on the device (the ECMA-419 option names). */
  open: (o: { data: number; clock: number; address: number; hz: number }) => I2cBus;
}

export const ES8311_ADDRESS = 0x18;

/** Registers [DS]. */
export const REG = {
  RESET: 0x00,
  CLK_MANAGER1: 0x01,
  CLK_MANAGER2: 0x02,
  CLK_MANAGER3: 0x03,
  CLK_MANAGER4: 0x04,
  CLK_MANAGER5: 0x05,
  CLK_MANAGER6: 0x06,
  CLK_MANAGER7: 0x07,
  CLK_MANAGER8: 0x08,
  SDP_IN: 0x09,
  SDP_OUT: 0x0a,
  SYSTEM0D: 0x0d,
  SYSTEM0E: 0x0e,
  SYSTEM12: 0x12,
  SYSTEM13: 0x13,
  SYSTEM14: 0x14,
  ADC16: 0x16,
  ADC17: 0x17,
  ADC1C: 0x1c,
  DAC31: 0x31,
  DAC32: 0x32,
  DAC37: 0x37,
  CHIP_ID1: 0xfd,
} as const;

export class Es8311 {
  private readonly bus: I2cBus;
  private rate = 0;

  constructor(o: Es8311Options) {
    this.bus = o.open({ data: o.sda, clock: o.scl, address: o.address ?? ES8311_ADDRESS, hz: o.hz ?? 100000 });
  }

  write(reg: number, value: number): void {
    this.bus.write(Uint8Array.of(reg, value & 0xff));
  }

  read(reg: number): number {
    this.bus.write(Uint8Array.of(reg), false);
    return new Uint8Array(this.bus.read(1))[0]!;
  }

  /** Resets the codec and sets it up as an I2S slave, 16-bit in and out, DAC and ADC powered, at 44.1 kHz until setRate. */
  init(): void {
    // [EB] es8311_init: reset everything, release, then the power-on command (REG00 bit 7, CSM on).
    this.write(REG.RESET, 0x1f);
    this.write(REG.RESET, 0x00);
    this.write(REG.RESET, 0x80);
    // [EB] es8311_clock_config: all clocks on (0x3F) with the internal MCLK from the BCLK pin (bit 7).
    this.write(REG.CLK_MANAGER1, 0x3f | 0x80);
    // REG06 bit 5: BCLK not inverted.
    this.write(REG.CLK_MANAGER6, this.read(REG.CLK_MANAGER6) & ~0x20);
    this.setRate(44100);
    // [EB] es8311_fmt_config: slave serial port (REG00 bit 6 = 0); 16-bit I2S on both data ports (bits 4:2 = 3).
    this.write(REG.RESET, this.read(REG.RESET) & 0xbf);
    this.write(REG.SDP_IN, 3 << 2);
    this.write(REG.SDP_OUT, 3 << 2);
    // [EB] es8311_init, the rest: analog power up (0D=01), PGA and ADC modulator on (0E=02),
    // DAC powered (12=00), output to the HP drive (13=10), ADC equalizer bypass and DC offset
    // cancel (1C=6A), DAC equalizer bypassed (37=08).
    this.write(REG.SYSTEM0D, 0x01);
    this.write(REG.SYSTEM0E, 0x02);
    this.write(REG.SYSTEM12, 0x00);
    this.write(REG.SYSTEM13, 0x10);
    this.write(REG.ADC1C, 0x6a);
    this.write(REG.DAC37, 0x08);
    // [EB] es8311_microphone_config: analog microphone, PGA at its maximum (14=1A); ADC volume 0 dB (17=BF [DS]).
    this.write(REG.SYSTEM14, 0x1a);
    this.write(REG.ADC17, 0xbf);
  }

  /** The clock dividers for fs with MCLK = BCLK = 32 x fs (see the header). */
  setRate(fs: number): void {
    if (fs === this.rate) return;
    if (fs < 8000 || fs > 48000) throw new RangeError(`es8311: ${fs} Hz is outside 8-48 kHz`);
    this.rate = fs;
    // REG02: pre_div - 1 in bits 7:5 (0), pre_multi in bits 4:3 (3: x8); bits 2:0 kept.
    this.write(REG.CLK_MANAGER2, (this.read(REG.CLK_MANAGER2) & 0x07) | (0 << 5) | (3 << 3));
    // REG03: single speed (bit 6 = 0), ADC OSR 0x10. REG04: DAC OSR 0x10.
    this.write(REG.CLK_MANAGER3, 0x10);
    this.write(REG.CLK_MANAGER4, 0x10);
    // REG05: adc_div - 1 (bits 7:4) and dac_div - 1 (bits 3:0): both 1.
    this.write(REG.CLK_MANAGER5, 0x00);
    // REG06 bits 4:0: BCLK divider 4 (written as 4 - 1); bits 7:5 kept.
    this.write(REG.CLK_MANAGER6, (this.read(REG.CLK_MANAGER6) & 0xe0) | (4 - 1));
    // REG07 bits 3:0 and REG08: LRCK divider 0x0FF (256 MCLK per frame); REG07 bits 7:6 kept.
    this.write(REG.CLK_MANAGER7, (this.read(REG.CLK_MANAGER7) & 0xc0) | 0x00);
    this.write(REG.CLK_MANAGER8, 0xff);
  }

  /** Unmutes (REG31 bits 6:5 clear) and powers the DAC and its output, or mutes and powers them down. */
  enableDac(on: boolean): void {
    const mute = this.read(REG.DAC31);
    this.write(REG.DAC31, on ? mute & ~0x60 : mute | 0x60);
    // REG12: DAC power (0x00 up [EB], 0x02 down [CD]); REG13 bit 4: the HP drive [EB].
    this.write(REG.SYSTEM12, on ? 0x00 : 0x02);
    this.write(REG.SYSTEM13, on ? 0x10 : 0x00);
  }

  /** Powers the microphone path up ([EB] es8311_init/es8311_microphone_config values) or down ([CD] es8311_suspend values). */
  enableAdc(on: boolean): void {
    this.write(REG.SYSTEM0E, on ? 0x02 : 0xff);
    this.write(REG.SYSTEM14, on ? 0x1a : 0x00);
    this.write(REG.ADC17, on ? 0xbf : 0x00);
  }

  /** DAC volume, 0-100 mapped as [EB]'s es8311_voice_volume_set: 0 mute, else level x 256 / 100 - 1 (0xBF is 0 dB, 0xFF +32 dB) into REG32. */
  setVolume(level0to100: number): void {
    const v = Math.max(0, Math.min(100, Math.round(level0to100)));
    this.write(REG.DAC32, v === 0 ? 0 : Math.floor((v * 256) / 100) - 1);
  }

  /** Microphone PGA gain in 6 dB steps, 0-42 dB (REG16 bits 2:0 [DS]; [EB] es8311_mic_gain_t: 0 = 0 dB ... 7 = 42 dB). */
  setMicGain(db: number): void {
    const step = Math.max(0, Math.min(7, Math.round(db / 6)));
    this.write(REG.ADC16, step);
  }

  close(): void {
    this.bus.close?.();
  }
}
