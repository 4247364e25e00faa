// MP3 in the simulator is decoded by the Moddable SDK's own decoder (libmad,
// built into the runtime from the SDK's modules/data/mp3: modules/mp3), frame
// by frame as the music player hands frames over. Checked against an
// independent decoder (mpg123, as WebAssembly: mpg123-decoder) on a real MP3
// made by an independent encoder (lamejs).
//
// Tolerance (not sample-exact, and why): the SDK builds libmad with
// FPM_DEFAULT (portable fixed point that drops the low 12 and 16 bits of the
// operands before each multiply) and its ESP fork cuts the synthesis to 16
// bits, while mpg123 decodes in floating point, so they differ in the low
// bits everywhere. Measured on this 3 s signal (about -12 dBFS RMS): an RMS
// difference of 9.3 LSB (54 dB below the signal), the largest 76 LSB. That is
// coarser than ISO/IEC 11172-4's "limited accuracy" (2^-11/sqrt(12) of full
// scale, 4.6 LSB), a property of FPM_DEFAULT, not of our glue: the device
// decodes the same way, bit for bit (the same C, integer arithmetic only).
// The bounds: RMS difference under 16 LSB (-66 dBFS) and at least 50 dB below
// the signal; no single sample off by 1/128 of full scale (256 LSB), so a
// dropped, repeated or shifted frame, or a channel lost in the downmix, fails
// (each of those is thousands of LSB off).
import { describe, expect, it } from 'vitest';
import { MPEGDecoder } from 'mpg123-decoder';
import { decodeOnXs, encodedSignal, xsimHasMp3, xsimOnSdk } from '../support/mp3-xs.ts';

const MAX_RMS_LSB = 16;
const MIN_SNR_DB = 50;
const MAX_LSB = 256;

async function reference(mp3: Uint8Array): Promise<{ mono: Float64Array; rate: number }> {
  const d = new MPEGDecoder();
  await d.ready;
  const r = d.decode(mp3);
  d.free();
  const [l, rr] = r.channelData as [Float32Array, Float32Array];
  const mono = new Float64Array(r.samplesDecoded);
  // The SDK's downmix: (L + R) >> 1 of 16-bit samples.
  for (let i = 0; i < mono.length; i++) mono[i] = ((l[i]! + rr[i]!) / 2) * 32768;
  return { mono, rate: r.sampleRate };
}

/** The lag (ours - reference, in samples) that lines the two up best: decoders differ in the delay they cut. */
function bestLag(ours: Int16Array, ref: Float64Array, span: number): number {
  let best = 0;
  let bestErr = Infinity;
  for (let lag = -span; lag <= span; lag++) {
    let err = 0;
    for (let i = 4000; i < 12000; i++) {
      const d = ours[i + lag]! - ref[i]!;
      err += d * d;
    }
    if (err < bestErr) {
      bestErr = err;
      best = lag;
    }
  }
  return best;
}

describe.skipIf(!xsimOnSdk())("the simulator's MP3 decoder (the SDK's libmad on XS)", () => {
  it('is built into the runtime (the SDK is here, so libmad must be)', () => {
    expect(xsimHasMp3()).toBe(true);
  });

  it('decodes every frame to mono, within 16 LSB RMS (50 dB) of mpg123', async () => {
    const { mp3, rate } = encodedSignal({ seconds: 3 });
    const ours = await decodeOnXs(mp3);
    const ref = await reference(mp3);
    expect(ref.rate).toBe(rate);
    // Every frame decoded, 1152 samples each.
    expect(ours.pcm.length).toBe(ours.frames * 1152);
    expect(ours.frames).toBeGreaterThanOrEqual(Math.floor((3 * rate) / 1152));
    const lag = bestLag(ours.pcm, ref.mono, 2400);
    let sum = 0;
    let power = 0;
    let most = 0;
    let n = 0;
    for (let i = 0; i < ref.mono.length; i++) {
      const j = i + lag;
      if (j < 0 || j >= ours.pcm.length) continue;
      const d = Math.abs(ours.pcm[j]! - ref.mono[i]!);
      sum += d * d;
      power += ref.mono[i]! * ref.mono[i]!;
      most = Math.max(most, d);
      n++;
    }
    const rms = Math.sqrt(sum / n);
    const snr = 10 * Math.log10(power / sum);
    // Nearly all of the signal compared (the lag cuts at most a frame or two at the ends).
    expect(n).toBeGreaterThan(ref.mono.length - 2400);
    console.log(`mp3: ${ours.frames} frames, lag ${lag} samples, rms difference ${rms.toFixed(2)} LSB, ${snr.toFixed(1)} dB below the signal, largest ${most.toFixed(1)} LSB`);
    expect(rms).toBeLessThan(MAX_RMS_LSB);
    expect(snr).toBeGreaterThan(MIN_SNR_DB);
    expect(most).toBeLessThan(MAX_LSB);
    // A frame out of place is far outside the bounds: the check can fail.
    let shifted = 0;
    for (let i = 4000; i < 12000; i++) shifted = Math.max(shifted, Math.abs(ours.pcm[i + lag + 1152]! - ref.mono[i]!));
    expect(shifted).toBeGreaterThan(MAX_LSB * 10);
  }, 120_000);

  it('a damaged frame decodes to no more than its own samples and the stream goes on', async () => {
    const { mp3 } = encodedSignal({ seconds: 1 });
    const clean = await decodeOnXs(mp3);
    const broken = mp3.slice();
    // Garbage in the middle of a frame's payload (headers kept: the framing stays the same).
    for (let i = 0; i < 200; i++) broken[8000 + i] = (i * 97) & 0xff;
    const hurt = await decodeOnXs(broken);
    expect(hurt.pcm.length).toBe(clean.pcm.length);
    // The end of the stream is the clean decode again (the bit reservoir recovers within a few frames).
    const tail = 1152 * 8;
    expect(Array.from(hurt.pcm.subarray(-tail))).toEqual(Array.from(clean.pcm.subarray(-tail)));
  }, 120_000);
});
