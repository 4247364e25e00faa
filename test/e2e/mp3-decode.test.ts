// MP3 in the simulator is decoded by minimp3 (modules/mp3: mp3mono.c, the C
// the device links), built into the runtime on either of its XS engines, frame
// by frame as the music player hands frames over. Checked against an
// independent decoder (mpg123, as WebAssembly: mpg123-decoder) on real MP3s
// made by an independent encoder (lamejs): stereo at 44.1 kHz (MPEG-1), mono
// at 22.05 kHz (MPEG-2, 576-sample frames) and a quiet stereo one at 32 kHz.
//
// Tolerance (not sample-exact, and why): both decode in floating point, but
// they round differently (minimp3 in float, mpg123 in its own synthesis) and
// we compare our (L + R) >> 1 with the float mean of mpg123's channels, so
// they differ in the lowest bit or two. The bounds (the ones libmad was held
// to, docs/decisions.md): an RMS difference under 16 LSB (-66 dBFS) and at
// least 50 dB below the signal; no single sample off by 1/128 of full scale
// (256 LSB), so a dropped, repeated or shifted frame, or a channel lost in the
// downmix, fails (each of those is thousands of LSB off).
import { describe, expect, it } from 'vitest';
import { MPEGDecoder } from 'mpg123-decoder';
import { existsSync } from 'node:fs';
import { decodeOnXs, encodedSignal, runXs, XSIM, xsimEngine, xsimHasMp3 } from '../support/mp3-xs.ts';

const MAX_RMS_LSB = 16;
const MIN_SNR_DB = 50;
const MAX_LSB = 256;

async function reference(mp3: Uint8Array): Promise<{ mono: Float64Array; rate: number }> {
  const d = new MPEGDecoder();
  await d.ready;
  const r = d.decode(mp3);
  d.free();
  const [l, rr] = r.channelData as [Float32Array, Float32Array | undefined];
  const mono = new Float64Array(r.samplesDecoded);
  // Our downmix: (L + R) / 2 (a mono file has one channel).
  for (let i = 0; i < mono.length; i++) mono[i] = (rr ? (l[i]! + rr[i]!) / 2 : l[i]!) * 32768;
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

const FILES = [
  { name: 'stereo 44.1 kHz 128 kbit/s (MPEG-1)', options: { seconds: 3 } },
  { name: 'mono 22.05 kHz 48 kbit/s (MPEG-2)', options: { seconds: 3, rate: 22050, kbps: 48, channels: 1 } },
  { name: 'stereo 32 kHz 96 kbit/s at -26 dBFS', options: { seconds: 3, rate: 32000, kbps: 96, gain: 0.2 } },
] as const;

describe.skipIf(!existsSync(XSIM))(`the simulator's MP3 decoder (minimp3 on XS, ${xsimEngine()})`, () => {
  it('is built into the runtime, on either XS', () => {
    expect(xsimHasMp3()).toBe(true);
  });

  for (const file of FILES) {
    it(`decodes every frame to mono, within 16 LSB RMS (50 dB) of mpg123: ${file.name}`, async () => {
      const { mp3, rate, frameSamples } = encodedSignal(file.options);
      const ours = await decodeOnXs(mp3);
      const ref = await reference(mp3);
      expect(ref.rate).toBe(rate);
      // Every frame decoded, all of its samples.
      expect(ours.pcm.length).toBe(ours.frames * frameSamples);
      expect(ours.frames).toBeGreaterThanOrEqual(Math.floor((3 * rate) / frameSamples));
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
      console.log(`mp3 ${file.name}: ${ours.frames} frames, lag ${lag} samples, rms difference ${rms.toFixed(2)} LSB, ${snr.toFixed(1)} dB below the signal, largest ${most.toFixed(1)} LSB`);
      expect(rms).toBeLessThan(MAX_RMS_LSB);
      expect(snr).toBeGreaterThan(MIN_SNR_DB);
      expect(most).toBeLessThan(MAX_LSB);
      // A frame out of place is far outside the bounds: the check can fail.
      let shifted = 0;
      for (let i = 4000; i < 12000; i++) shifted = Math.max(shifted, Math.abs(ours.pcm[i + lag + frameSamples]! - ref.mono[i]!));
      expect(shifted).toBeGreaterThan(MAX_LSB * 10);
    }, 120_000);
  }

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

  it('the binding refuses what is not a decoder, a closed one, and an output too small or unaligned, and takes any bytes', () => {
    // xs_mp3.c's own checks, on XS (XS 13.3 puts the function's name before the message): each misuse a
    // clear JavaScript error (never a crash), and 3000 inputs of
    // random bytes (some starting with a Layer III header) each give -1, 0, 576 or 1152.
    const out = runXs(`
      const n = __native;
      const errors = [];
      const attempt = (what, f) => { try { f(); errors.push(what + ': no error'); } catch (e) { errors.push(what + ': ' + e.name + ': ' + e.message); } };
      const d = n.mp3Open();
      const frame = new Uint8Array(425); frame.set([0xff, 0xfb, 0x90, 0x00]);
      attempt('not a decoder', () => n.mp3Decode({}, frame, new Int16Array(1152)));
      attempt('a number', () => n.mp3Decode(7, frame, new Int16Array(1152)));
      attempt('another host object', () => n.mp3Decode(n.mp3Open, frame, new Int16Array(1152)));
      attempt('output too small', () => n.mp3Decode(d, frame, new Int16Array(1151)));
      attempt('output unaligned', () => n.mp3Decode(d, frame, new Uint8Array(2305).subarray(1)));
      attempt('input not bytes', () => n.mp3Decode(d, 'text', new Int16Array(1152)));
      const silent = n.mp3Decode(d, frame, new Int16Array(1152));
      let seed = 38;
      const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
      const seen = {};
      for (let i = 0; i < 3000; i++) {
        const b = new Uint8Array(rnd() * 8 + (i % 3 ? 0 : 420));
        for (let k = 0; k < b.length; k++) b[k] = rnd();
        if (i % 2 && b.length >= 4) b.set([0xff, [0xfb, 0xf3, 0xe3, 0xfa][i % 4], rnd() & 0xfd, rnd()]);
        const got = n.mp3Decode(d, b, new Int16Array(1152));
        seen[got] = (seen[got] || 0) + 1;
      }
      n.mp3Close(d);
      attempt('closed', () => n.mp3Decode(d, frame, new Int16Array(1152)));
      attempt('closed twice', () => n.mp3Close(d));
      __sim.print(JSON.stringify({ errors, silent, seen }));
    `);
    const r = JSON.parse(out.trim().split('\n').pop()!) as { errors: string[]; silent: number; seen: Record<string, number> };
    expect(r.errors).toEqual([
      expect.stringMatching(/^not a decoder: SyntaxError: (mp3Decode: )?C: xsGetHostData: (not a host object|no host object)/),
      expect.stringMatching(/^a number: TypeError: (mp3Decode: )?mp3: not a decoder/),
      expect.stringMatching(/^another host object: SyntaxError: (mp3Decode: )?C: xsGetHostData: /),
      expect.stringMatching(/^output too small: RangeError: (mp3Decode: )?mp3: output too small/),
      expect.stringMatching(/^output unaligned: RangeError: (mp3Decode: )?mp3: output not 16-bit aligned/),
      expect.stringMatching(/^input not bytes: TypeError/),
      expect.stringMatching(/^closed: TypeError: (mp3Decode: )?mp3: not an open decoder/),
      expect.stringMatching(/^closed twice: TypeError: (mp3Close: )?mp3: not an open decoder/),
    ]);
    expect(r.silent).toBe(1152);
    expect(Object.keys(r.seen).every((k) => ['-1', '0', '576', '1152'].includes(k)), JSON.stringify(r.seen)).toBe(true);
    expect(Object.values(r.seen).reduce((a, b) => a + b, 0)).toBe(3000);
  }, 120_000);
});
