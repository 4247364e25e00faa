// The speaker's mixer: the one owner of hal.audio for the device's own
// sounds (effects, speech, the self-test tone), as one 16-bit mono PCM
// stream at MIX_RATE. How they share the speaker (decision):
//
//   effects  start at once and are mixed (summed, clipped) over whatever
//            the speaker is saying; at most MAX_EFFECTS at a time, a further
//            one is dropped (a late click is worse than none)
//   speech   one utterance at a time, in order; at most MAX_SPEECH waiting
//            or speaking, a further one is refused (busy)
//   music    held while the mixer has the speaker: the player stops at the
//            sample (or MP3 frame) it reached and goes on from there when
//            the mixer lets go, so music is never dropped, only paused for
//            the length of a sound
//
// Volume is applied here, in the samples (gain 0-1 per voice), so what the
// speaker plays is what was measured. The stream starts when a voice has
// samples (a speech still downloading holds nothing) and stops once every
// voice is done and the output has played what it was given.

import type { AudioOut, Clock, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { MIX_RATE } from './synth.ts';

/** Samples per write (20 ms). */
export const BLOCK = 480;
/** Samples kept queued ahead in the output (0.3 s). */
export const AHEAD = 7200;
export const TICK_MS = 20;
/** Writes per tick at most (an output that reports nothing queued must not spin). */
const MAX_BLOCKS_PER_TICK = 16;
export const MAX_EFFECTS = 4;
export const MAX_SPEECH = 4;

export type VoiceKind = 'sfx' | 'speech' | 'tone';

/** Whoever else uses the output (the music player) steps aside while the mixer plays. */
export interface OutputHolder {
  hold(reason: string): void;
  release(reason: string): void;
}

const NO_HOLDER: OutputHolder = { hold: () => undefined, release: () => undefined };

/** One sound in the mixer: PCM chunks at MIX_RATE, appended until end(). */
export class Voice {
  private chunks: Int16Array[] = [];
  private chunk = 0;
  private pos = 0;
  private ended = false;
  private aborted = false;
  private buffered = 0;
  /** Samples taken into the mix. */
  taken = 0;
  /** Samples appended in all. */
  total = 0;
  /** Loudest sample after the gain. */
  peak = 0;
  /** Where the output stream stood when this voice's last sample was written (set by the mixer). */
  doneAt: number | null = null;
  private waiters: Array<() => void> = [];

  constructor(
    readonly kind: VoiceKind,
    readonly gain: number,
    readonly label: string,
    private readonly kick: () => void,
  ) {}

  append(pcm: Int16Array): void {
    if (this.ended || !pcm.length) return;
    this.chunks.push(pcm);
    this.buffered += pcm.length;
    this.total += pcm.length;
    this.kick();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.kick();
  }

  /** Stops the voice where it is (a failed download, stop()). */
  abort(): void {
    this.aborted = true;
    this.chunks = [];
    this.buffered = 0;
    this.end();
  }

  get isAborted(): boolean {
    return this.aborted;
  }

  available(): number {
    return this.buffered;
  }

  /** Everything appended has been taken and nothing more will come. */
  exhausted(): boolean {
    return this.ended && this.buffered === 0;
  }

  /** Adds up to n samples times the gain into acc; returns how many. */
  mixInto(acc: Float64Array, n: number): number {
    let k = 0;
    while (k < n && this.chunk < this.chunks.length) {
      const c = this.chunks[this.chunk]!;
      const take = Math.min(n - k, c.length - this.pos);
      for (let i = 0; i < take; i++) {
        const v = c[this.pos + i]! * this.gain;
        acc[k + i] = acc[k + i]! + v;
        const a = v < 0 ? -v : v;
        if (a > this.peak) this.peak = a;
      }
      k += take;
      this.pos += take;
      if (this.pos >= c.length) {
        this.chunks[this.chunk] = new Int16Array(0); // let the bytes go
        this.chunk++;
        this.pos = 0;
      }
    }
    this.buffered -= k;
    this.taken += k;
    return k;
  }

  /** Resolves once the speaker has played the voice's last sample (or the voice was dropped). */
  played(): Promise<void> {
    if (this.doneAt === -1) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  settle(): void {
    this.doneAt = -1;
    for (const w of this.waiters.splice(0)) w();
  }
}

export class Speaker {
  private effects: Voice[] = [];
  private speech: Voice[] = [];
  private finishing: Voice[] = [];
  private timer: Timer | null = null;
  private streaming = false;
  /** Samples written since the stream started. */
  private written = 0;
  private holder: OutputHolder = NO_HOLDER;
  /** Streams the mixer opened since boot, and samples and the loudest sample of the last one. */
  streams = 0;
  lastStream = { samples: 0, peak: 0 };

  constructor(
    private readonly audio: AudioOut,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  /** The music player (or any other output user) to hold while the mixer plays. */
  setHolder(holder: OutputHolder): void {
    this.holder = holder;
  }

  /** True while any sound is playing or waiting. */
  busy(): boolean {
    return this.effects.length > 0 || this.speech.length > 0 || this.finishing.length > 0 || this.streaming;
  }

  speaking(): boolean {
    return this.speech.length > 0;
  }

  /** A whole clip (effect or tone), mixed in now; null when MAX_EFFECTS are already sounding. */
  play(pcm: Int16Array, gain: number, kind: 'sfx' | 'tone', label: string): Voice | null {
    if (this.effects.length >= MAX_EFFECTS) {
      this.log.info('audio', `${label}: dropped (${MAX_EFFECTS} effects already sounding)`);
      return null;
    }
    const v = new Voice(kind, gain, label, () => this.kick());
    this.effects.push(v);
    v.append(pcm);
    v.end();
    return v;
  }

  /** An utterance to append PCM to as it arrives; null when MAX_SPEECH are waiting or speaking. */
  openSpeech(gain: number, label: string): Voice | null {
    if (this.speech.length >= MAX_SPEECH) return null;
    const v = new Voice('speech', gain, label, () => this.kick());
    this.speech.push(v);
    return v;
  }

  /** Silences everything at once (speech and effects are dropped; music resumes). */
  stopAll(): void {
    for (const v of [...this.effects, ...this.speech, ...this.finishing]) {
      v.abort();
      v.settle();
    }
    this.effects = [];
    this.speech = [];
    this.finishing = [];
    this.close();
  }

  private kick(): void {
    if (!this.timer) this.timer = this.clock.setInterval(() => this.tick(), TICK_MS);
    this.tick();
  }

  private active(): Voice[] {
    const out = this.effects.filter((v) => v.available() > 0);
    const s = this.speech[0];
    if (s && s.available() > 0) out.push(s);
    return out;
  }

  private open(): void {
    if (this.streaming) return;
    this.holder.hold('speaker');
    this.audio.start({ sampleRate: MIX_RATE, channels: 1 });
    this.audio.onNeed = () => this.tick();
    this.streaming = true;
    this.written = 0;
    this.streams++;
    this.lastStream = { samples: 0, peak: 0 };
  }

  private close(): void {
    this.timer?.cancel();
    this.timer = null;
    if (!this.streaming) return;
    this.audio.onNeed = null;
    this.audio.stop();
    this.streaming = false;
    this.holder.release('speaker');
  }

  private tick(): void {
    this.fill();
    // Voices whose every sample was written move to finishing; they settle once the output has played them.
    const played = this.written - this.audio.queued;
    const retire = (v: Voice): boolean => {
      if (!v.exhausted()) return false;
      v.doneAt = this.written;
      this.finishing.push(v);
      return true;
    };
    this.effects = this.effects.filter((v) => !retire(v));
    while (this.speech.length && retire(this.speech[0]!)) this.speech.shift();
    this.finishing = this.finishing.filter((v) => {
      if (v.doneAt !== null && v.doneAt >= 0 && played < v.doneAt) return true;
      v.settle();
      return false;
    });
    const waiting = this.effects.length > 0 || this.speech.length > 0;
    if (!waiting && this.finishing.length === 0 && this.audio.queued === 0) this.close();
  }

  /** The mix of one block, reused (the PCM handed to the output is a fresh array: the output may keep it). */
  private readonly acc = new Float64Array(BLOCK);

  private fill(): void {
    for (let blocks = 0; blocks < MAX_BLOCKS_PER_TICK; blocks++) {
      const room = AHEAD - (this.streaming ? this.audio.queued : 0);
      if (room <= 0) return;
      const voices = this.active();
      if (!voices.length) return;
      let most = 0;
      for (const v of voices) most = Math.max(most, v.available());
      const n = Math.min(BLOCK, room, most);
      this.open();
      const acc = this.acc;
      acc.fill(0, 0, n);
      for (const v of voices) v.mixInto(acc, n);
      const out = new Int16Array(n);
      let peak = this.lastStream.peak;
      for (let i = 0; i < n; i++) {
        const s = Math.round(acc[i]!);
        const c = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
        out[i] = c;
        const a = c < 0 ? -c : c;
        if (a > peak) peak = a;
      }
      this.audio.write(out);
      this.written += n;
      this.lastStream = { samples: this.lastStream.samples + n, peak };
    }
  }
}
