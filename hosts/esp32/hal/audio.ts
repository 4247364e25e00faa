// Device HAL: the speaker, through the Moddable SDK's AudioOut
// (pins/audioout, $(MODDABLE)/modules/pins/i2s) on an I2S amplifier that
// needs no setup (the MAX98357A of ring-tft, panel-28 and panel-40). The I2S
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
// MP3: the SDK's only MP3 decoder (modules/data/mp3) is libmad under the GPL,
// which this firmware does not link; the output lists no codecs, so the
// music player skips MP3 files here and says why (docs/decisions.md).
//
// The ES8311 codec of panel-35 needs its registers set over I2C and a master
// clock the SDK's AudioOut does not drive: that board reports no speaker
// until our glue does both.

import type { BoardDescriptor } from '../../../boards/index.ts';
import type { AudioOut, PcmFormat } from '../../../src/hal/index.ts';

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

/** Amplifiers driven by plain I2S (no codec registers to set). */
export const I2S_AMPLIFIERS: readonly string[] = ['max98357a'];

const STREAM = 0;

interface Chunk {
  id: number;
  buffer: SharedArrayBuffer;
  frames: number;
}

/** The HAL's AudioOut on the SDK's; a board without a plain I2S amplifier (or without the module) has none. */
export function createAudioOut(d: BoardDescriptor, Sdk: SdkAudioOutClass | undefined): AudioOut {
  const amp = d.audio.out?.driver;
  if (!Sdk || !amp || !I2S_AMPLIFIERS.includes(amp)) {
    return { present: false, codecs: [], queued: 0, onNeed: null, start: () => undefined, write: () => undefined, stop: () => undefined, setVolume: () => undefined };
  }
  let out: SdkAudioOut | null = null;
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
  };

  const audio: AudioOut = {
    present: true,
    codecs: [],
    onNeed: null,
    get queued() {
      return queued;
    },
    start(format: PcmFormat) {
      close();
      channels = format.channels === 2 ? 2 : 1;
      const o = new Sdk({ sampleRate: format.sampleRate, bitsPerSample: 16, numChannels: channels, streams: 1 });
      o.enqueue(STREAM, Sdk.Volume, volume);
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
      close();
    },
    setVolume(level: number) {
      volume = Math.round((Math.max(0, Math.min(100, level)) / 100) * 256);
      // Applies after what is already queued (at most half a second of music).
      if (out && out.length(STREAM) >= 1) out.enqueue(STREAM, Sdk.Volume, volume);
    },
  };
  return audio;
}
