// Sound out on the simulator (minimp3 built into the runtime, on either XS):
// on panel-35 (the ES8311 board), MEDIATEST plays its tone through the mixer
// and decodes a test MP3 frame to silence, TEST speaker passes, and a real
// MP3 (made by lamejs) plays through the mixer at its own rate with an effect
// over it: every sample the same as the decoder gives for the file on its
// own (test/support/mp3-xs.ts), except where the effect was mixed in; then
// SPKSAY over a playing MP3: one stream, the music ducked to DUCK_GAIN under
// the speech, sample for sample (the speech from the provider emulator,
// resampled to the track's rate as the mixer does), and back after.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWav } from '../../hosts/sim/board/wav.ts';
import { DUCK_GAIN } from '../../src/audio/speaker.ts';
import { MIX_RATE, sfxClip } from '../../src/audio/synth.ts';
import { Resampler } from '../../src/audio/wav.ts';
import { routeArgs, speechMs, speechPcm, start, type Emulator } from '../../tools/provider-emulator.mjs';
import { decodeOnXs, encodedSignal, XSIM, xsimHasMp3 } from '../support/mp3-xs.ts';
import { cleanup, startDevice } from './harness.ts';

let emu: Emulator | null = null;
afterAll(async () => {
  await emu?.close();
  await cleanup();
});

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!existsSync(XSIM))('sound out on the simulator', () => {
  it('panel-35: MEDIATEST, TEST speaker, an MP3 decoded by minimp3 through the mixer with an effect over it, and SPKSAY over music (ducked, sample for sample)', async () => {
    expect(xsimHasMp3()).toBe(true);
    emu = await start();
    const device = await startDevice({ board: 'panel-35', args: routeArgs(emu.port) });
    expect(await device.command('MEDIATEST', 20_000)).toMatch(/^tone=ok frames=6000 rate=24000 peak=\d+\nmp3=yes decoded=1152 silent\nmusic=0 wav=0 mp3=0 skipped=0\nOK$/);
    expect(await device.command('TEST speaker')).toMatch(/PASS speaker: output present \(the mixer runs at 24000 Hz\); the MP3 decoder turned a test frame into 1152 samples/);

    const { mp3 } = encodedSignal({ seconds: 2 });
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    const fd = new FormData();
    fd.append('file', new Blob([mp3]), 'signal.mp3');
    expect((await device.fetch('/api/music', { token, method: 'POST', body: fd })).status).toBe(200);
    const audioDir = join(device.dir, 'audio');
    // A barrier on what the player has really played (not a wall-clock wait): under load the track's stream
    // can start late, and a sound queued before it would be made at the mixer's rate and converted after.
    const playedFor = (seconds: number) =>
      until(`the track played ${seconds} s`, async () => {
        const s = ((await (await device.fetch('/api/music', { token })).json()) as { player: { state: string; position: number } }).player;
        return s.state === 'playing' && s.position >= seconds;
      });
    const before = new Set(readdirSync(audioDir));
    expect(await device.command('PLAY signal')).toBe('Playing signal.mp3.\nOK');
    await playedFor(0.2);
    expect(await device.command('SFX ding')).toMatch(/^sfx=ding .* peak=\d+\nOK$/);
    await until('the track played', async () => {
      const s = ((await (await device.fetch('/api/music', { token })).json()) as { player: { state: string; played: number } }).player;
      return s.state === 'idle' && s.played === 1;
    });
    const made = readdirSync(audioDir).filter((f) => !before.has(f));
    expect(made).toHaveLength(1); // one stream: the effect rode on the music's
    const out = readWav(join(audioDir, made[0]!));
    expect(out).toMatchObject({ sampleRate: 44100, channels: 1 });
    const ref = (await decodeOnXs(mp3)).pcm;
    expect(out.samples.length).toBe(ref.length);
    // Where the output differs from the decoder's own samples: one stretch, no longer than the effect at 44.1 kHz.
    const diff: number[] = [];
    for (let i = 0; i < ref.length; i++) if (out.samples[i] !== ref[i]) diff.push(i);
    expect(diff.length).toBeGreaterThan(0);
    const span = diff.at(-1)! - diff[0]! + 1;
    expect(span).toBeLessThanOrEqual(Math.ceil((sfxClip('ding', 'classic').length * 44100) / MIX_RATE) + 2);
    expect(diff[0]).toBeGreaterThan(0);

    // SPKSAY over the music (sfxVol 50): the speech rides on the track's stream, the music ducked under it.
    const orch = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_openai: 'sk-e2e-openai' }) });
    expect(orch.status).toBe(200);
    const long = encodedSignal({ seconds: 8 }).mp3;
    const fd2 = new FormData();
    fd2.append('file', new Blob([long]), 'long.mp3');
    expect((await device.fetch('/api/music', { token, method: 'POST', body: fd2 })).status).toBe(200);
    const before2 = new Set(readdirSync(audioDir));
    expect(await device.command('PLAY long')).toBe('Playing long.mp3.\nOK');
    await playedFor(0.5);
    const text = 'The music goes on under me.';
    const ms = speechMs(text);
    expect(await device.command(`SPKSAY ${text}`, 30_000)).toMatch(new RegExp(`^speech ${(ms / 1000).toFixed(2)} s at 24000 Hz, volume 50\\nspoken \\(peak \\d+\\)\\nOK$`));
    await until('the long track played', async () => {
      const s = ((await (await device.fetch('/api/music', { token })).json()) as { player: { state: string; played: number } }).player;
      return s.state === 'idle' && s.played === 2;
    });
    const made2 = readdirSync(audioDir).filter((f) => !before2.has(f));
    expect(made2).toHaveLength(1);
    const mixed = readWav(join(audioDir, made2[0]!)).samples;
    const ref2 = (await decodeOnXs(long)).pcm;
    expect(mixed.length).toBe(ref2.length); // not a sample of music dropped
    const speech = new Resampler(24000, 44100).push(speechPcm(ms));
    let k = 0;
    while (k < ref2.length && mixed[k] === ref2[k]) k++;
    // The speech's first sample is 0 and the ramp starts at full level: the output first differs one sample later.
    const at = k - 1;
    expect(at).toBeGreaterThan(44100 * 0.3);
    // Away from the ramps at its two ends: music x DUCK_GAIN + speech x 0.5, rounded.
    let off = 0;
    for (let i = at + 1000; i < at + speech.length - 1000; i++) {
      const want = Math.max(-32768, Math.min(32767, Math.round(ref2[i]! * DUCK_GAIN + speech[i - at]! * 0.5)));
      if (Math.abs(mixed[i]! - want) > 1) off++;
    }
    expect(off).toBe(0);
    // After the speech (and its ramp up), the music at full level again, sample for sample.
    const back = at + speech.length + 1000;
    expect(back).toBeLessThan(ref2.length);
    expect(Array.from(mixed.subarray(back))).toEqual(Array.from(ref2.subarray(back)));
  }, 180_000);
});
