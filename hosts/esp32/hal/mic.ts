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

/** A codec whose ADC must be switched on for its microphone (panel-35's ES8311). */
export interface MicCodec {
  enableAdc(on: boolean): void;
}

/** Microphones on plain I2S (no registers to set). */
export const I2S_MICROPHONES: readonly string[] = ['inmp441'];
/** Microphones behind a codec (its ADC set up over I2C by the codec's driver). */
export const CODEC_MICROPHONES: readonly string[] = ['es8311'];

export interface MicOptions {
  codec?: MicCodec;
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
      try {
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
      }
    },
  };
  return mic;
}
