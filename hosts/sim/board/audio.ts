// Audio out and the microphone. Each output stream becomes a WAV file under
// <device>/audio/ and is "played" in real time: audio.played {samples} (frames
// per channel) events at the sample rate while queued PCM lasts. MP3 comes as
// PCM: the firmware decodes it in the runtime with the SDK's libmad
// (modules/mp3), as the device does. The
// microphone delivers mic.samples at real-time pace from the WAV file set with
// mic.feed (converted to the requested format), then silence.

import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { DeviceFolder } from './device.ts';
import type { Json, Service, Session } from './service.ts';
import { int } from './service.ts';
import { readWav, WavWriter, type WavData } from './wav.ts';

const TICK_MS = 20;
const KEEP_FILES = 32;

function format(args: Json): { sampleRate: number; channels: 1 | 2 } {
  const sampleRate = int(args, 'sampleRate', 1000, 192000);
  const channels = int(args, 'channels', 1, 2) as 1 | 2;
  return { sampleRate, channels };
}

export class AudioOut implements Service {
  private stream: { wav: WavWriter; queued: number; last: number; session: Session } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private counter = 0;
  volume = 100;
  files: string[] = [];

  constructor(private readonly device: DeviceFolder) {}

  status(): Json {
    const s = this.stream;
    return { playing: s !== null, volume: this.volume, file: s?.wav.path ?? this.files.at(-1) ?? null, queuedFrames: s?.queued ?? 0 };
  }

  private tick(): void {
    const s = this.stream;
    if (!s) return;
    const now = performance.now();
    const due = Math.floor(((now - s.last) * s.wav.sampleRate) / 1000);
    const n = Math.min(due, s.queued);
    if (n > 0) {
      s.queued -= n;
      s.last += (n * 1000) / s.wav.sampleRate;
      s.session.emit('audio.played', { samples: n });
    }
    // an empty queue does not bank time: playback resumes when PCM comes
    if (s.queued === 0) s.last = now;
  }

  private end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.stream) {
      this.stream.wav.close();
      this.stream = null;
    }
  }

  private prune(): void {
    const dir = this.device.path('audio');
    const wavs = readdirSync(dir)
      .filter((f) => f.endsWith('.wav'))
      .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => a.t - b.t);
    for (const old of wavs.slice(0, Math.max(0, wavs.length - KEEP_FILES))) unlinkSync(join(dir, old.f));
  }

  stop(): void {
    this.end();
  }

  shutdown(): void {
    this.end();
  }

  readonly ops = {
    'audio.start': (args: Json, _bin: Buffer, session: Session) => {
      const f = format(args);
      this.end();
      const path = this.device.path('audio', `boot${session.boot}-${++this.counter}.wav`);
      this.stream = { wav: new WavWriter(path, f.sampleRate, f.channels), queued: 0, last: performance.now(), session };
      this.files.push(path);
      this.prune();
      this.timer = setInterval(() => this.tick(), TICK_MS);
    },
    'audio.write': (_args: Json, bin: Buffer) => {
      const s = this.stream;
      if (!s) return;
      const frameBytes = 2 * s.wav.channels;
      const usable = bin.subarray(0, bin.length - (bin.length % frameBytes));
      if (s.queued === 0) s.last = performance.now();
      s.wav.write(usable);
      s.queued += usable.length / frameBytes;
    },
    'audio.stop': () => {
      this.end();
    },
    'audio.volume': (args: Json) => {
      this.volume = int(args, 'level', 0, 100);
    },
  };
}

/** Converts interleaved PCM to another rate and channel count (nearest sample; enough for tests). */
function convert(src: WavData, rate: number, channels: number): Int16Array {
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

export class MicIn implements Service {
  private run: { session: Session; rate: number; channels: number; pcm: Int16Array; at: number; started: number; sent: number } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly device: DeviceFolder) {}

  status(): Json {
    return { listening: this.run !== null, wav: this.device.config.mic.wav };
  }

  /** Sets the file the microphone hears next (null: silence); applies to a running capture at once. */
  feed(wav: string | null): void {
    if (wav !== null) readWav(wav); // fail now, not on the next start
    this.device.update((c) => (c.mic.wav = wav));
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
      return convert(readWav(wav), rate, channels);
    } catch {
      return new Int16Array(0);
    }
  }

  private tick(): void {
    const r = this.run;
    if (!r) return;
    const due = Math.floor(((performance.now() - r.started) * r.rate) / 1000) - r.sent;
    if (due <= 0) return;
    const out = new Int16Array(due * r.channels);
    const left = r.pcm.length - r.at;
    if (left > 0) {
      const n = Math.min(left, out.length);
      out.set(r.pcm.subarray(r.at, r.at + n));
      r.at += n;
    }
    r.sent += due;
    r.session.emit('mic.samples', {}, new Uint8Array(out.buffer));
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
      const f = format(args);
      this.end();
      this.run = { session, rate: f.sampleRate, channels: f.channels, pcm: this.source(f.sampleRate, f.channels), at: 0, started: performance.now(), sent: 0 };
      this.timer = setInterval(() => this.tick(), TICK_MS);
    },
    'mic.stop': () => {
      this.end();
    },
  };
}
