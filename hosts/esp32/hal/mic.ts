// Device HAL: the microphone, through the SDK's ECMA-419 audio input
// (embedded:io/audio/in, $(MODDABLE)/modules/io/audioin: an I2S RX channel
// whose pins, port and slot are build-time defines, audioIn.i2s.* in each
// board's manifest, taken from board.json's audio.mic).
//
//   ring-tft   INMP441, a plain I2S MEMS microphone: nothing to set up; its
//              L/R pin is tied low, so it talks in the left slot
//   panel-35   the ES8311 codec's ADC on the codec's I2S lines: the codec's
//              registers are set over I2C by hosts/esp32/hal/es8311.ts (the
//              speaker's driver); this module only asks it to turn its ADC
//              on and off (options.codec.enableAdc). Without a codec object
//              the board reports no microphone.
//
// start(format) opens an input at the asked rate (16-bit, mono: the HAL
// promises what src/audio/mic.ts asks, 16 kHz mono) and starts it; each
// onReadable hands over what the driver holds, read into one ArrayBuffer
// and passed on as Int16Array (whole samples only). stop() stops and closes
// it. A failure to open (the port taken, a bad define) leaves the microphone
// stopped and is logged, not thrown: a capture then ends by its own guard
// with what arrived (nothing), as src/audio/mic.ts expects of a silent mic.
//
// Where the microphone and the speaker share their I2S clock pins (panel-35:
// the ES8311's one BCLK/LRCK pair, pins 13 and 15), the SDK cannot run both:
// AudioIn and AudioOut each open a simplex I2S channel as master (audioin.c
// and audioout-esp32.c, I2S_ROLE_MASTER, no slave or full-duplex option), and
// a pin's output comes from one peripheral signal in the GPIO matrix. The
// codec's ADC and DAC also run on that one LRCK, so they could not take
// 16 kHz in and the mixer's rate out at once anyway. So a capture takes the
// pins (clocks.take(): the speaker closes and waits) and gives them back
// after (docs/decisions.md, "panel-35's shared I2S clock pins").

import type { BoardDescriptor } from '../../../boards/index.ts';
import type { Microphone, PcmFormat } from '../../../src/hal/index.ts';

/** The SDK's AudioIn as this module uses it (the class comes from ./drivers.ts). */
export interface SdkAudioIn {
  read(byteLength?: number): ArrayBuffer;
  start(): void;
  stop(): void;
  close(): void;
}

export interface SdkAudioInClass {
  new (options: { sampleRate: number; channels: 1 | 2; bitsPerSample: 16; onReadable?: (this: SdkAudioIn, byteLength: number) => void }): SdkAudioIn;
}

/** A codec whose ADC must be switched on for its microphone (panel-35's ES8311); its clock dividers follow the rate. */
export interface MicCodec {
  enableAdc(on: boolean): void;
  setRate?(fs: number): void;
}

/**
 * The clock pins the microphone shares with the speaker (panel-35): the SDK's
 * AudioIn and AudioOut each open their own I2S channel as master on the pins
 * their defines name, so only one may run at a time. take() before the input
 * opens (the speaker lets the pins go), give() after it closes.
 */
export interface SharedClocks {
  take(): void;
  give(): void;
}

/** Microphones on plain I2S (no registers to set). */
export const I2S_MICROPHONES: readonly string[] = ['inmp441'];
/** Microphones behind a codec (its ADC set up over I2C by the codec's driver). */
export const CODEC_MICROPHONES: readonly string[] = ['es8311'];

/** Whether the board's microphone and speaker share a clock pin (BCLK or LRCK): then only one may run at a time. */
export function sharesClockPins(d: BoardDescriptor): boolean {
  const mic = d.audio?.mic?.i2s;
  const out = d.audio?.out?.i2s;
  if (!mic || !out) return false;
  return (mic['bclk'] !== undefined && mic['bclk'] === out['bclk']) || (mic['lrclk'] !== undefined && mic['lrclk'] === out['lrclk']);
}

export interface MicOptions {
  codec?: MicCodec;
  clocks?: SharedClocks;
  log?: (message: string) => void;
}

export function createMic(d: BoardDescriptor, AudioIn: SdkAudioInClass | undefined, options: MicOptions = {}): Microphone {
  const driver = d.audio?.mic?.driver ?? null;
  const wired = driver !== null && AudioIn !== undefined && (I2S_MICROPHONES.includes(driver) || (CODEC_MICROPHONES.includes(driver) && options.codec !== undefined));
  let input: SdkAudioIn | null = null;
  const mic: Microphone = {
    present: wired,
    onSamples: null,
    start(format: PcmFormat): void {
      if (!wired || !AudioIn) return;
      mic.stop();
      options.clocks?.take();
      try {
        options.codec?.setRate?.(format.sampleRate);
        options.codec?.enableAdc(true);
        const opened = new AudioIn({
          sampleRate: format.sampleRate,
          channels: format.channels,
          bitsPerSample: 16,
          onReadable() {
            if (input !== opened) return;
            // read() without a size takes all the driver holds, counted in the mono samples it returns
            // (the count onReadable reports is of the stereo frames it strips: audioin.c xs_audioin_read)
            const bytes = this.read() as ArrayBuffer | undefined;
            if (bytes && bytes.byteLength >= 2) mic.onSamples?.(new Int16Array(bytes, 0, bytes.byteLength >> 1));
          },
        });
        input = opened;
        opened.start();
      } catch (e) {
        input = null;
        options.codec?.enableAdc(false);
        options.clocks?.give();
        options.log?.(`microphone: the audio input did not open (${String(e)})`);
      }
    },
    stop(): void {
      const i = input;
      input = null;
      if (!i) return;
      try {
        i.stop();
        i.close();
      } finally {
        options.codec?.enableAdc(false);
        options.clocks?.give();
      }
    },
  };
  return mic;
}
