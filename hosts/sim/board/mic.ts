// The simulated microphone. It hears the WAV file set with the control op
// mic.feed (converted to the format the firmware asks for: nearest sample,
// channels mixed or copied), then silence, and delivers it as mic.samples
// events at real-time pace. Each event carries at most CHUNK_MS of sound, as
// an I2S driver hands over one DMA buffer at a time: a board that fell behind
// (a busy machine) catches up in several small events, never one large one,
// so a firmware that stops after N samples receives about N.
// status() says how much of the fed file the firmware has been sent (heard,
// fedFrames, done): tests wait on that instead of on wall-clock time.

import type { DeviceFolder } from './device.ts';
import type { Json, Service, Session } from './service.ts';
import { int } from './service.ts';
import { readWav, type WavData } from './wav.ts';

const TICK_MS = 20;
/** The longest stretch of sound one mic.samples event carries. */
export const CHUNK_MS = 20;

/** Converts interleaved PCM to another rate and channel count (nearest sample; enough for tests). */
export function convertPcm(src: WavData, rate: number, channels: number): Int16Array {
  const srcFrames = Math.floor(src.samples.length / src.channels);
  const frames = Math.floor((srcFrames * rate) / src.sampleRate);
  const out = new Int16Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    const j = Math.min(srcFrames - 1, Math.floor((i * src.sampleRate) / rate));
    for (let c = 0; c < channels; c++) {
      let v: number;
      if (src.channels === channels) v = src.samples[j * src.channels + c]!;
      else if (channels === 1) v = Math.round((src.samples[j * 2]! + src.samples[j * 2 + 1]!) / 2);
      else v = src.samples[j]!;
      out[i * channels + c] = v;
    }
  }
  return out;
}

interface Run {
  session: Session;
  rate: number;
  channels: number;
  pcm: Int16Array;
  /** Samples of pcm delivered. */
  at: number;
  started: number;
  /** Frames delivered since start. */
  sent: number;
}

export class MicIn implements Service {
  private run: Run | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Frames of the current feed delivered, across captures (reset by mic.feed). */
  private heard = 0;

  constructor(private readonly device: DeviceFolder) {}

  status(): Json {
    const r = this.run;
    const fedFrames = r ? r.pcm.length / r.channels : null;
    return { listening: r !== null, wav: this.device.config.mic.wav, heard: this.heard, fedFrames, done: r !== null && r.at >= r.pcm.length };
  }

  /** Sets the file the microphone hears next (null: silence); applies to a running capture at once. */
  feed(wav: string | null): void {
    if (wav !== null) readWav(wav); // fail now, not on the next start
    this.device.update((c) => (c.mic.wav = wav));
    this.heard = 0;
    const r = this.run;
    if (r) {
      r.pcm = this.source(r.rate, r.channels);
      r.at = 0;
    }
  }

  private source(rate: number, channels: number): Int16Array {
    const wav = this.device.config.mic.wav;
    if (!wav) return new Int16Array(0);
    try {
      return convertPcm(readWav(wav), rate, channels);
    } catch {
      return new Int16Array(0);
    }
  }

  private tick(): void {
    const r = this.run;
    if (!r) return;
    let due = Math.floor(((performance.now() - r.started) * r.rate) / 1000) - r.sent;
    const chunk = Math.max(1, Math.floor((r.rate * CHUNK_MS) / 1000));
    while (due > 0 && this.run === r) {
      const frames = Math.min(due, chunk);
      const out = new Int16Array(frames * r.channels);
      const left = r.pcm.length - r.at;
      if (left > 0) {
        const n = Math.min(left, out.length);
        out.set(r.pcm.subarray(r.at, r.at + n));
        r.at += n;
        this.heard += n / r.channels;
      }
      r.sent += frames;
      due -= frames;
      r.session.emit('mic.samples', {}, new Uint8Array(out.buffer));
    }
  }

  private end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.run = null;
  }

  stop(): void {
    this.end();
  }

  shutdown(): void {
    this.end();
  }

  readonly ops = {
    'mic.start': (args: Json, _bin: Buffer, session: Session) => {
      const sampleRate = int(args, 'sampleRate', 1000, 192000);
      const channels = int(args, 'channels', 1, 2);
      this.end();
      this.run = { session, rate: sampleRate, channels, pcm: this.source(sampleRate, channels), at: 0, started: performance.now(), sent: 0 };
      this.timer = setInterval(() => this.tick(), TICK_MS);
    },
    'mic.stop': () => {
      this.end();
    },
  };
}
