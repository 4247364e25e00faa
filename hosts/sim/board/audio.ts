// Audio out and the microphone. Each output stream becomes a WAV file under
// <device>/audio/ and is "played" in real time: audio.played {samples} (frames
// per channel) events at the sample rate while queued PCM lasts. MP3 comes as
// PCM: the firmware decodes it in the runtime with minimp3 (modules/mp3),
// the C the device runs. The
// microphone delivers mic.samples at real-time pace from the WAV file set with
// mic.feed (converted to the requested format), then silence.

import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { DeviceFolder } from './device.ts';
import type { Json, Service, Session } from './service.ts';
import { int } from './service.ts';
import { WavWriter } from './wav.ts';

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
