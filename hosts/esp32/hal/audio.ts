// Device HAL: the speaker, through the Moddable SDK's AudioOut
// (pins/audioout, $(MODDABLE)/modules/pins/i2s) on an I2S amplifier that
// needs no setup (the MAX98357A of ring-tft, panel-28 and panel-40) or on
// the ES8311 codec of panel-35, set up over I2C by ./es8311.ts (its DAC
// clocked from the I2S bit clock: the SDK's AudioOut drives no MCLK). The I2S
// pins are build-time defines in each board's manifest (audioOut.i2s.*).
//
// The SDK's AudioOut plays buffers it is handed, by reference, from a fixed
// queue of elements per stream (audioOut.queueLength), and its format is
// fixed when it is made. So:
//   start(format)  closes the old output and makes one of that rate and
//                  channel count (16-bit), with the volume set;
//   write(pcm)     copies the samples into a SharedArrayBuffer (a
//                  non-relocatable block, as the SDK requires: XS may move an
//                  ArrayBuffer), waits in our FIFO until two queue elements are
//                  free, then goes out as RawSamples plus a Callback whose id
//                  names the chunk; the callback tells how much was heard
//                  (queued drops by the chunk's frames) and asks for more
//                  (onNeed), as the HAL's AudioOut promises;
//   stop()         flushes, stops and closes, and forgets every chunk.
//
// MP3: openDecoder('mp3') is our decoder (modules/mp3: minimp3, CC0 1.0,
// through mp3mono.c and the natives of desk-native.js), one frame per
// decode() into mono PCM; the music player writes that PCM here like a WAV's.
// The simulator links the same C, so both decode alike.
//
// Volume: on a codec board the codec's DAC volume (REG32), so the samples keep
// their full 16 bits; on an amplifier board the SDK's Volume element.

import type { BoardDescriptor } from '../../../boards/index.ts';
import type { AudioOut, EncodedCodec, FrameDecoder, PcmFormat } from '../../../src/hal/index.ts';

/** The SDK's AudioOut as this module uses it (the class comes from ./drivers.ts). */
export interface SdkAudioOut {
  enqueue(stream: number, kind: number, buffer?: ArrayBufferLike | number, repeat?: number, offset?: number, count?: number): void;
  /** Free queue elements of a stream. */
  length(stream: number): number;
  start(): void;
  stop(): void;
  close(): void;
  callback?: (id: number) => void;
}

export interface SdkAudioOutClass {
  new (options: { sampleRate: number; bitsPerSample: 16; numChannels: 1 | 2; streams: number }): SdkAudioOut;
  readonly RawSamples: number;
  readonly Callback: number;
  readonly Flush: number;
  readonly Volume: number;
}

/** What the speaker needs of a codec (./es8311.ts's Es8311). */
export interface OutputCodec {
  setRate(fs: number): void;
  enableDac(on: boolean): void;
  setVolume(level0to100: number): void;
}

/** Amplifiers driven by plain I2S (no codec registers to set). */
export const I2S_AMPLIFIERS: readonly string[] = ['max98357a'];
/** Codecs set up over I2C by our drivers before their I2S stream plays. */
export const I2S_CODECS: readonly string[] = ['es8311'];

const STREAM = 0;

interface Chunk {
  id: number;
  buffer: SharedArrayBuffer;
  frames: number;
}

/**
 * The HAL's AudioOut on the SDK's. A board has a speaker when its output is a
 * plain I2S amplifier, or a codec whose driver is given (codec), and the SDK
 * module is linked; openMp3, a decoder's opener (modules/mp3), adds MP3.
 */
/**
 * The speaker's side of clock pins shared with the microphone (panel-35: see
 * sharesClockPins): suspend() closes the SDK's AudioOut (its I2S channel lets
 * the pins go) and holds the format; resume() opens it again at that format
 * and asks for samples (onNeed), so what was playing goes on from where the
 * mixer stopped pulling.
 */
export interface SharedClockOut {
  suspend(): void;
  resume(): void;
}

export function createAudioOut(d: BoardDescriptor, Sdk: SdkAudioOutClass | undefined, extras: { codec?: OutputCodec | null; openMp3?: () => FrameDecoder } = {}): AudioOut & SharedClockOut {
  const amp = d.audio.out?.driver;
  const codec = amp && I2S_CODECS.includes(amp) ? (extras.codec ?? null) : null;
  if (!Sdk || !amp || !(I2S_AMPLIFIERS.includes(amp) || codec)) {
    return { present: false, codecs: [], queued: 0, onNeed: null, start: () => undefined, write: () => undefined, stop: () => undefined, setVolume: () => undefined, suspend: () => undefined, resume: () => undefined };
  }
  const openMp3 = extras.openMp3;
  let out: SdkAudioOut | null = null;
  /** The format the speaker was started at (null: stopped), and whether the microphone holds the clock pins. */
  let format: PcmFormat | null = null;
  let suspended = false;
  let channels: 1 | 2 = 1;
  let volume = 256;
  let queued = 0;
  let nextId = 1;
  /** Chunks waiting for queue elements, then chunks the SDK holds, by callback id. */
  let waiting: Chunk[] = [];
  const playing = new Map<number, Chunk>();

  const pump = (): void => {
    // Each chunk takes two elements: its samples and the callback after them.
    while (out && waiting.length && out.length(STREAM) >= 2) {
      const c = waiting.shift()!;
      out.enqueue(STREAM, Sdk.RawSamples, c.buffer, 1, 0, c.frames);
      out.enqueue(STREAM, Sdk.Callback, c.id);
      playing.set(c.id, c);
    }
  };

  const close = (): void => {
    const o = out;
    out = null; // callbacks the flush delivers find no output and are ignored
    waiting = [];
    playing.clear();
    queued = 0;
    if (!o) return;
    o.enqueue(STREAM, Sdk.Flush);
    o.stop();
    o.close();
    codec?.enableDac(false);
  };

  const open = (f: PcmFormat): void => {
    channels = f.channels === 2 ? 2 : 1;
    // The codec's clock dividers follow the rate (its MCLK is the bit clock) before the bit clock starts.
    codec?.setRate(f.sampleRate);
    const o = new Sdk({ sampleRate: f.sampleRate, bitsPerSample: 16, numChannels: channels, streams: 1 });
    o.enqueue(STREAM, Sdk.Volume, codec ? 256 : volume);
    o.callback = (id: number) => {
      if (out !== o) return;
      const c = playing.get(id);
      if (!c) return;
      playing.delete(id);
      queued = Math.max(0, queued - c.frames);
      pump();
      audio.onNeed?.();
    };
    out = o;
    o.start();
    codec?.enableDac(true);
  };

  const audio: AudioOut & SharedClockOut = {
    present: true,
    codecs: openMp3 ? (['mp3'] as const) : [],
    onNeed: null,
    get queued() {
      return queued;
    },
    start(f: PcmFormat) {
      close();
      format = f;
      channels = f.channels === 2 ? 2 : 1;
      // While the microphone holds the clock pins the speaker only remembers the format (resume() opens it).
      if (!suspended) open(f);
    },
    write(pcm: Int16Array) {
      if (!out) return;
      const frames = Math.floor(pcm.length / channels);
      if (frames <= 0) return;
      const buffer = new SharedArrayBuffer(frames * channels * 2);
      new Int16Array(buffer).set(pcm.subarray(0, frames * channels));
      waiting.push({ id: nextId++, buffer, frames });
      queued += frames;
      pump();
    },
    stop() {
      format = null;
      close();
    },
    suspend() {
      if (suspended) return;
      suspended = true;
      close();
    },
    resume() {
      if (!suspended) return;
      suspended = false;
      if (!format) return;
      open(format);
      audio.onNeed?.();
    },
    setVolume(level: number) {
      if (codec) {
        codec.setVolume(Math.max(0, Math.min(100, level)));
        return;
      }
      volume = Math.round((Math.max(0, Math.min(100, level)) / 100) * 256);
      // Applies after what is already queued (at most half a second of music).
      if (out && out.length(STREAM) >= 1) out.enqueue(STREAM, Sdk.Volume, volume);
    },
  };
  if (openMp3) {
    audio.openDecoder = (codecName: EncodedCodec): FrameDecoder => {
      if (codecName !== 'mp3') throw new Error(`no ${String(codecName)} decoder`);
      return openMp3();
    };
  }
  return audio;
}
