// Sound out on the simulator (the SDK's XS with the SDK's libmad built in):
// on panel-35 (the ES8311 board), MEDIATEST plays its tone through the mixer
// and decodes a test MP3 frame to silence, TEST speaker passes, and a real
// MP3 (made by lamejs) plays through the mixer at its own rate with an effect
// over it: every sample the same as the SDK decoder gives for the file on its
// own (test/support/mp3-xs.ts), except where the effect was mixed in.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWav } from '../../hosts/sim/board/wav.ts';
import { MIX_RATE, sfxClip } from '../../src/audio/synth.ts';
import { decodeOnXs, encodedSignal, xsimHasMp3, xsimOnSdk } from '../support/mp3-xs.ts';
import { cleanup, startDevice } from './harness.ts';

afterAll(async () => {
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

describe.skipIf(!xsimOnSdk())('sound out on the simulator', () => {
  it('panel-35: MEDIATEST, TEST speaker, and an MP3 decoded by the SDK decoder through the mixer with an effect over it', async () => {
    expect(xsimHasMp3()).toBe(true);
    const device = await startDevice({ board: 'panel-35' });
    expect(await device.command('MEDIATEST', 20_000)).toMatch(/^tone=ok frames=6000 rate=24000 peak=\d+\nmp3=yes decoded=1152 silent\nmusic=0 wav=0 mp3=0 skipped=0\nOK$/);
    expect(await device.command('TEST speaker')).toMatch(/PASS speaker: output present \(the mixer runs at 24000 Hz\); the MP3 decoder turned a test frame into 1152 samples/);

    const { mp3 } = encodedSignal({ seconds: 2 });
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    const fd = new FormData();
    fd.append('file', new Blob([mp3]), 'signal.mp3');
    expect((await device.fetch('/api/music', { token, method: 'POST', body: fd })).status).toBe(200);
    const audioDir = join(device.dir, 'audio');
    const before = new Set(readdirSync(audioDir));
    expect(await device.command('PLAY signal')).toBe('Playing signal.mp3.\nOK');
    await new Promise((r) => setTimeout(r, 300));
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
  }, 120_000);
});
