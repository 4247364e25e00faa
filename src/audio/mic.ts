// Microphone capture (MICREC): a short clip from hal.mic as 16-bit mono PCM
// at MIC_RATE. Refused while an update installs (spec: voice capture is
// refused then), while another capture runs, and on boards without a
// microphone. A capture ends when it has its samples, or after its length
// plus MIC_GRACE_MS with what arrived (a microphone that stopped delivering).
// A voice turn (src/voice) takes the same microphone through open(), under
// the same lock.

import type { Clock, Microphone } from '../hal/index.ts';

export const MIC_RATE = 16000;
export const DEFAULT_RECORD_MS = 3000;
export const MIN_RECORD_MS = 200;
export const MAX_RECORD_MS = 10_000;
export const MIC_GRACE_MS = 2000;

export type CaptureResult = { ok: true; pcm: Int16Array; rate: number; complete: boolean } | { ok: false; reason: string };

export class Recorder {
  private running = false;

  constructor(
    private readonly mic: Microphone,
    private readonly clock: Clock,
    private readonly installing: () => boolean,
  ) {}

  busy(): boolean {
    return this.running;
  }

  /** Why a capture cannot start now, or null. */
  refusal(): string | null {
    if (!this.mic.present) return 'no-mic: this board has no microphone';
    if (this.installing()) return 'busy: an update is installing; voice capture is refused until it is done';
    if (this.running) return 'busy: a recording is already running';
    return null;
  }

  /**
   * Opens the microphone for a caller that takes the sound as it comes (a
   * voice turn): the same lock as capture(), so MICREC and a voice turn never
   * share it. close() stops the microphone; it is safe to call twice.
   */
  open(onSamples: (pcm: Int16Array) => void): { ok: true; close: () => void } | { ok: false; reason: string } {
    const refused = this.refusal();
    if (refused) return { ok: false, reason: refused };
    this.running = true;
    this.mic.onSamples = (pcm) => {
      if (this.running) onSamples(pcm);
    };
    this.mic.start({ sampleRate: MIC_RATE, channels: 1 });
    let open = true;
    return {
      ok: true,
      close: () => {
        if (!open) return;
        open = false;
        this.running = false;
        this.mic.onSamples = null;
        this.mic.stop();
      },
    };
  }

  capture(ms: number): Promise<CaptureResult> {
    const want = Math.round((MIC_RATE * ms) / 1000);
    const pcm = new Int16Array(want);
    let got = 0;
    return new Promise((resolve) => {
      let done = false;
      let guard: { cancel(): void } | null = null;
      const finish = (): void => {
        if (done) return;
        done = true;
        guard?.cancel();
        if (opened?.ok) opened.close();
        resolve({ ok: true, pcm: got === want ? pcm : pcm.slice(0, got), rate: MIC_RATE, complete: got === want });
      };
      let opened: ReturnType<Recorder['open']> | null = null;
      opened = this.open((samples) => {
        const n = Math.min(samples.length, want - got);
        pcm.set(samples.subarray(0, n), got);
        got += n;
        if (got >= want) finish();
      });
      if (!opened.ok) {
        done = true;
        return resolve({ ok: false, reason: opened.reason });
      }
      if (done) opened.close(); // it filled up while starting
      else guard = this.clock.setTimeout(finish, ms + MIC_GRACE_MS);
    });
  }
}
