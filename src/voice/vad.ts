// The end-of-speech detector: an energy voice-activity detector over 20 ms
// frames of 16 kHz mono PCM. Thresholds (docs/decisions.md "Voice in"):
//
//   a frame is speech when its RMS is at least SPEECH_RMS_MIN and at least
//   SPEECH_OVER_NOISE times the noise floor; the floor follows the RMS of
//   non-speech frames (a slow average, NOISE_ALPHA), starting at NOISE_START;
//   speech starts after START_FRAMES speech frames in a row (60 ms: a click
//   or a knock is shorter); it ends after END_SILENCE_MS without a speech
//   frame (a pause between words is shorter); nothing said within
//   NO_SPEECH_MS ends the capture as no-speech; MAX_UTTERANCE_MS caps it.
//
// Pure arithmetic over the samples it is given: no timers, so tests and the
// bench drive it with recorded sound at any speed.

export const VAD_RATE = 16000;
export const FRAME_MS = 20;
export const FRAME_SAMPLES = (VAD_RATE * FRAME_MS) / 1000;
export const SPEECH_RMS_MIN = 400;
export const SPEECH_OVER_NOISE = 3;
export const NOISE_START = 100;
export const NOISE_ALPHA = 0.05;
export const START_FRAMES = 3;
export const END_SILENCE_MS = 700;
export const NO_SPEECH_MS = 5000;
export const MAX_UTTERANCE_MS = 15_000;

export type VadEvent = 'none' | 'start' | 'end' | 'no-speech' | 'max';

export class Vad {
  private noise = NOISE_START;
  private acc = 0;
  private inFrame = 0;
  private run = 0;
  private silent = 0;
  private frames = 0;
  /** Whether speech has started. */
  speaking = false;
  /** Set once the utterance is over (end, no-speech or max). */
  done: VadEvent | null = null;
  /** Frames seen, and the frame speech started at (-1: not yet). */
  startFrame = -1;
  endFrame = -1;

  /** Feeds samples; returns the first event they caused ('none' when nothing changed). */
  push(pcm: Int16Array): VadEvent {
    let ev: VadEvent = 'none';
    for (let i = 0; i < pcm.length && !this.done; i++) {
      const s = pcm[i]!;
      this.acc += s * s;
      if (++this.inFrame < FRAME_SAMPLES) continue;
      const e = this.frame(Math.sqrt(this.acc / FRAME_SAMPLES));
      this.acc = 0;
      this.inFrame = 0;
      if (ev === 'none') ev = e;
    }
    return ev;
  }

  /** The speech so far in ms (0 before it starts). */
  speechMs(): number {
    if (this.startFrame < 0) return 0;
    return ((this.endFrame >= 0 ? this.endFrame : this.frames) - this.startFrame) * FRAME_MS;
  }

  private frame(rms: number): VadEvent {
    this.frames++;
    const voiced = rms >= SPEECH_RMS_MIN && rms >= SPEECH_OVER_NOISE * this.noise;
    if (!voiced) this.noise += NOISE_ALPHA * (rms - this.noise);
    if (!this.speaking) {
      this.run = voiced ? this.run + 1 : 0;
      if (this.run >= START_FRAMES) {
        this.speaking = true;
        this.startFrame = this.frames - this.run;
        this.silent = 0;
        return 'start';
      }
      if (this.frames * FRAME_MS >= NO_SPEECH_MS) return (this.done = 'no-speech');
      return 'none';
    }
    this.silent = voiced ? 0 : this.silent + 1;
    if (this.silent * FRAME_MS >= END_SILENCE_MS) {
      this.endFrame = this.frames - this.silent;
      return (this.done = 'end');
    }
    if ((this.frames - this.startFrame) * FRAME_MS >= MAX_UTTERANCE_MS) {
      this.endFrame = this.frames;
      return (this.done = 'max');
    }
    return 'none';
  }
}
