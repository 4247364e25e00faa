// The speaker's mixer: the one owner of hal.audio. Music, speech, effects
// and the self-test tone are mixed into one 16-bit mono stream. How they
// share the speaker (decision; spec: music is never dropped when busy):
//
//   music    the player writes into the mixer's music port (`speaker.music`,
//            an AudioOut), decoded MP3 or WAV, mono; the stream runs at the
//            track's rate while music plays (MIX_RATE otherwise), so music
//            is never resampled; under speech it is ducked to DUCK_GAIN
//            (about -10 dB), ramped over one block, and comes back after;
//            effects do not duck it. Nothing pauses or drops the music.
//   effects  start at once and are mixed (summed, clipped) over whatever
//            sounds; at most MAX_EFFECTS at a time, a further one is dropped
//            (a late click is worse than none)
//   speech   one utterance at a time, in order; at most MAX_SPEECH waiting
//            or speaking, a further one is refused (busy)
//
// Effects and speech are made at MIX_RATE and resampled (linear) as they
// are appended when the stream runs at a track's rate. A track starting or
// ending at another rate restarts the output at the new rate: what the
// output still held (at most AHEAD samples of an effect or speech) is lost.
//
// Volume is applied here, in the samples (gain 0-1 per voice), so what the
// speaker plays is what was measured. The stream starts when a voice has
// samples (a speech still downloading holds nothing) and stops once every
// voice is done, the music port is closed, and the output has played what
// it was given.

import type { AudioOut, Clock, EncodedCodec, FrameDecoder, PcmFormat, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { MIX_RATE } from './synth.ts';
import { Resampler } from './wav.ts';

/** Samples per write (20 ms). */
export const BLOCK = 480;
/** Samples kept queued ahead in the output (0.3 s). */
export const AHEAD = 7200;
export const TICK_MS = 20;
/** Writes per tick at most (an output that reports nothing queued must not spin). */
const MAX_BLOCKS_PER_TICK = 16;
export const MAX_EFFECTS = 4;
export const MAX_SPEECH = 4;
/** Music's gain under speech (about -10 dB). */
export const DUCK_GAIN = 0.3;

export type VoiceKind = 'sfx' | 'speech' | 'tone' | 'music';

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
  /** MIX_RATE to the stream's rate, when they differ. */
  private resampler: Resampler | null = null;

  constructor(
    readonly kind: VoiceKind,
    public gain: number,
    readonly label: string,
    private readonly kick: () => void,
  ) {}

  /** The rate this voice's buffered PCM is at (the stream's, for all but music). */
  rate = MIX_RATE;

  /** Converts what is buffered, and what comes next, from MIX_RATE to the stream's new rate. */
  retarget(rate: number): void {
    if (this.kind === 'music' || rate === this.rate) return;
    const rest = this.drainBuffered();
    const back = this.rate === MIX_RATE ? rest : new Resampler(this.rate, MIX_RATE).push(rest);
    this.rate = rate;
    this.resampler = rate === MIX_RATE ? null : new Resampler(MIX_RATE, rate);
    if (back.length) this.push(this.resampler ? this.resampler.push(back) : back);
  }

  private drainBuffered(): Int16Array {
    const out = new Int16Array(this.buffered);
    let at = 0;
    for (let i = this.chunk; i < this.chunks.length; i++) {
      const c = i === this.chunk ? this.chunks[i]!.subarray(this.pos) : this.chunks[i]!;
      out.set(c, at);
      at += c.length;
    }
    this.chunks = [];
    this.chunk = 0;
    this.pos = 0;
    this.buffered = 0;
    return out;
  }

  private push(pcm: Int16Array): void {
    if (!pcm.length) return;
    this.chunks.push(pcm);
    this.buffered += pcm.length;
  }

  append(pcm: Int16Array): void {
    if (this.ended || !pcm.length) return;
    this.total += pcm.length;
    this.push(this.resampler ? this.resampler.push(pcm) : pcm);
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

/**
 * The mixer's music port: what the music player sees as its AudioOut. start()
 * opens the music voice at the track's rate (stereo is mixed down to mono as
 * it is written), queued counts music samples given and not yet heard, and
 * onNeed asks for more when less than AHEAD is buffered.
 */
export interface MusicPort extends AudioOut {
  /** The music voice's gain now (1, or DUCK_GAIN under speech), for status and tests. */
  readonly gain: number;
}

export class Speaker {
  private effects: Voice[] = [];
  private speech: Voice[] = [];
  private finishing: Voice[] = [];
  private musicVoice: Voice | null = null;
  private musicChannels: 1 | 2 = 1;
  /** Output position just after the last block that held music. */
  private musicEnd = 0;
  private musicGain = 1;
  private timer: Timer | null = null;
  private streaming = false;
  /** The stream's rate: the track's while music plays, MIX_RATE otherwise. */
  private rate = MIX_RATE;
  /** Samples written since the stream started. */
  private written = 0;
  /** Streams the mixer opened since boot, and samples and the loudest sample of the last one. */
  streams = 0;
  lastStream = { samples: 0, peak: 0 };
  readonly music: MusicPort;

  constructor(
    private readonly audio: AudioOut,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {
    this.music = this.musicPort();
  }

  /** True while any sound is playing or waiting (music included). */
  busy(): boolean {
    return this.effects.length > 0 || this.speech.length > 0 || this.finishing.length > 0 || this.streaming || this.musicVoice !== null;
  }

  speaking(): boolean {
    return this.speech.length > 0;
  }

  /** The rate the stream runs at (or would start at). */
  streamRate(): number {
    return this.rate;
  }

  /** A whole clip (effect or tone), mixed in now; null when MAX_EFFECTS are already sounding. */
  play(pcm: Int16Array, gain: number, kind: 'sfx' | 'tone', label: string): Voice | null {
    if (this.effects.length >= MAX_EFFECTS) {
      this.log.info('audio', `${label}: dropped (${MAX_EFFECTS} effects already sounding)`);
      return null;
    }
    const v = new Voice(kind, gain, label, () => this.kick());
    v.retarget(this.rate);
    this.effects.push(v);
    v.append(pcm);
    v.end();
    return v;
  }

  /** An utterance to append PCM (at MIX_RATE) to as it arrives; null when MAX_SPEECH are waiting or speaking. */
  openSpeech(gain: number, label: string): Voice | null {
    if (this.speech.length >= MAX_SPEECH) return null;
    const v = new Voice('speech', gain, label, () => this.kick());
    v.retarget(this.rate);
    this.speech.push(v);
    return v;
  }

  /** Silences speech and effects at once (the music plays on). */
  stopAll(): void {
    for (const v of [...this.effects, ...this.speech, ...this.finishing]) {
      v.abort();
      v.settle();
    }
    this.effects = [];
    this.speech = [];
    this.finishing = [];
    if (!this.musicVoice) this.close();
  }

  /** Music samples given to the port and not yet heard. */
  private musicQueued(): number {
    const v = this.musicVoice;
    if (!v) return 0;
    const heard = this.written - (this.streaming ? this.audio.queued : 0);
    return v.available() + Math.max(0, this.musicEnd - heard);
  }

  /** True inside the player's write: asking it for more then would re-enter it before it has moved on. */
  private musicWriting = false;

  private musicWrite(pcm: Int16Array): void {
    const v = this.musicVoice;
    if (!v) return;
    this.musicWriting = true;
    try {
      if (this.musicChannels === 1) v.append(pcm.slice());
      else {
        const mono = new Int16Array(pcm.length >> 1);
        for (let i = 0; i < mono.length; i++) mono[i] = (pcm[2 * i]! + pcm[2 * i + 1]!) >> 1;
        v.append(mono);
      }
    } finally {
      this.musicWriting = false;
    }
  }

  private musicPort(): MusicPort {
    const out = this.audio;
    const queued = (): number => this.musicQueued();
    const gain = (): number => this.musicGain;
    const port: MusicPort = {
      present: out.present,
      codecs: out.codecs ?? [],
      onNeed: null,
      get gain() {
        return gain();
      },
      get queued() {
        return queued();
      },
      start: (format: PcmFormat) => this.openMusic(format),
      write: (pcm: Int16Array) => this.musicWrite(pcm),
      stop: () => this.closeMusic(),
      setVolume: () => undefined,
    };
    if (out.openDecoder) port.openDecoder = (codec: EncodedCodec): FrameDecoder => out.openDecoder!(codec);
    return port;
  }

  private openMusic(format: PcmFormat): void {
    this.closeMusic(false);
    const v = new Voice('music', 1, 'music', () => this.kick());
    v.rate = format.sampleRate;
    this.musicVoice = v;
    this.musicChannels = format.channels === 2 ? 2 : 1;
    this.musicGain = this.speech.length ? DUCK_GAIN : 1;
    this.setRate(format.sampleRate);
    this.musicEnd = this.written;
  }

  private closeMusic(settle = true): void {
    const v = this.musicVoice;
    if (!v) return;
    v.abort();
    this.musicVoice = null;
    this.musicEnd = 0;
    if (!settle) return;
    if (this.effects.length || this.speech.length) this.setRate(MIX_RATE);
    else {
      this.close();
      this.rate = MIX_RATE;
    }
  }

  /** Moves the stream to rate: voices convert what they hold, and a running output restarts. */
  private setRate(rate: number): void {
    if (rate === this.rate) return;
    this.rate = rate;
    for (const v of [...this.effects, ...this.speech]) v.retarget(rate);
    if (this.streaming) {
      // What the output still held was for the old rate; the voices it came from go on.
      for (const v of this.finishing) v.settle();
      this.finishing = [];
      this.close();
    }
    this.kick();
  }

  private kick(): void {
    if (!this.timer) this.timer = this.clock.setInterval(() => this.tick(), TICK_MS);
    this.tick();
  }

  private active(): Voice[] {
    const out = this.effects.filter((v) => v.available() > 0);
    const s = this.speech[0];
    if (s && s.available() > 0) out.push(s);
    if (this.musicVoice && this.musicVoice.available() > 0) out.push(this.musicVoice);
    return out;
  }

  private open(): void {
    if (this.streaming) return;
    this.audio.start({ sampleRate: this.rate, channels: 1 });
    this.audio.onNeed = () => this.tick();
    this.streaming = true;
    this.written = 0;
    this.musicEnd = 0;
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
    this.written = 0;
    this.musicEnd = 0;
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
    const m = this.musicVoice;
    if (m && !this.musicWriting && m.available() < AHEAD) this.music.onNeed?.();
    const waiting = this.effects.length > 0 || this.speech.length > 0 || this.musicVoice !== null;
    if (!waiting && this.finishing.length === 0 && this.audio.queued === 0) {
      this.close();
      if (this.rate !== MIX_RATE) this.rate = MIX_RATE;
    }
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
      const music = this.musicVoice;
      // Ducking: music follows speech, ramped over the block so the change does not click.
      const target = this.speech.length && this.speech[0]!.available() > 0 ? DUCK_GAIN : 1;
      const from = this.musicGain;
      for (const v of voices) {
        if (v !== music) v.mixInto(acc, n);
        else if (from === target) {
          v.gain = target;
          v.mixInto(acc, n);
        } else this.mixRamped(v, from, target, n);
      }
      if (music) this.musicGain = target;
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
      if (music && voices.includes(music)) this.musicEnd = this.written;
      this.lastStream = { samples: this.lastStream.samples + n, peak };
    }
  }

  private readonly ramp = new Float64Array(BLOCK);

  /** Mixes v's next n samples with its gain going from `from` to `to` across them. */
  private mixRamped(v: Voice, from: number, to: number, n: number): void {
    const tmp = this.ramp;
    tmp.fill(0, 0, n);
    v.gain = 1;
    const k = v.mixInto(tmp, n);
    for (let i = 0; i < k; i++) this.acc[i] = this.acc[i]! + tmp[i]! * (from + ((to - from) * i) / n);
    v.gain = to;
  }
}
