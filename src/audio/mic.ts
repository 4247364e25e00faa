// Microphone capture (MICREC): a short clip from hal.mic as 16-bit mono PCM
// at MIC_RATE. Refused while an update installs (spec: voice capture is
// refused then), while another capture runs, and on boards without a
// microphone. A capture ends when it has its samples, or after its length
// plus MIC_GRACE_MS with what arrived (a microphone that stopped delivering).

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

  capture(ms: number): Promise<CaptureResult> {
    const refused = this.refusal();
    if (refused) return Promise.resolve({ ok: false, reason: refused });
    const want = Math.round((MIC_RATE * ms) / 1000);
    const pcm = new Int16Array(want);
    let got = 0;
    this.running = true;
    return new Promise((resolve) => {
      const finish = (): void => {
        if (!this.running) return;
        this.running = false;
        guard.cancel();
        this.mic.onSamples = null;
        this.mic.stop();
        resolve({ ok: true, pcm: got === want ? pcm : pcm.slice(0, got), rate: MIC_RATE, complete: got === want });
      };
      const guard = this.clock.setTimeout(finish, ms + MIC_GRACE_MS);
      this.mic.onSamples = (samples) => {
        const n = Math.min(samples.length, want - got);
        pcm.set(samples.subarray(0, n), got);
        got += n;
        if (got >= want) finish();
      };
      this.mic.start({ sampleRate: MIC_RATE, channels: 1 });
    });
  }
}
