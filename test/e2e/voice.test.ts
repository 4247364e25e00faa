// Voice in on the simulator, the real firmware on XS: the board's
// microphone plays a WAV file (mic.feed) and the owner speaks to the device.
// Bare VOICE listens until the end of speech, sends the recording to the
// transcription API (the provider emulator, which judges the multipart
// body: tools/provider-rules.mjs checkTranscription), writes the transcript
// to the episodic log, runs the turn and speaks the reply (ttsOn); VOICE?
// gives the timings from the end of speech (npm run bench reports them).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { tempDir } from './harness.ts';
import { startProviderRig, type ProviderRig } from './fixtures/provider-rig.ts';

/** A 16 kHz mono WAV: silence, a voiced tone, silence (ms each). */
export function speechWav(path: string, parts: Array<[ms: number, amplitude: number]>): void {
  const samples: number[] = [];
  for (const [ms, amp] of parts) for (let i = 0; i < (16000 * ms) / 1000; i++) samples.push(Math.round(amp * Math.sin((2 * Math.PI * 220 * i) / 16000)));
  const pcm = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => pcm.writeInt16LE(s, i * 2));
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + pcm.length, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(16000, 24);
  head.writeUInt32LE(32000, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(pcm.length, 40);
  writeFileSync(path, Buffer.concat([head, pcm]));
}

let rig: ProviderRig;
let emu: Emulator;

beforeAll(async () => {
  rig = await startProviderRig();
  emu = rig.emu;
  await rig.orch({ priority: 'anthropic,openai,mistral,zai,router' });
  // sttProv and ttsOn are benign config keys a turn may set
  emu.script({ match: { path: '/v1/messages' }, turn: turnObject('Voice is set up.', { device: [{ config: { sttProv: 'openai', ttsOn: true } }] }) });
  expect(await rig.device.command('TURN set up voice', 30_000)).toMatch(/Voice is set up\./);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

describe('voice in on the simulator', () => {
  it('the owner speaks (the board mic plays a WAV): heard, transcribed by the emulator, answered and spoken', async () => {
    const wav = join(tempDir('voice-e2e-'), 'ask.wav');
    speechWav(wav, [
      [300, 0],
      [1200, 4000],
      [1500, 0],
    ]);
    await rig.device.board.request('mic.feed', { wav });
    emu.script([
      { match: { path: '/v1/audio/transcriptions' }, transcript: 'what is the battery level' },
      { match: { path: '/v1/messages' }, turn: turnObject('The battery is fine.') },
    ]);
    const out = await rig.device.command('VOICE', 60_000);
    expect(out).toMatch(/^heard: what is the battery level\nThe battery is fine\.\nspoken: \d+\.\d\d s\nOK$/);
    const req = emu.requests.find((r) => r.path === '/v1/audio/transcriptions')!;
    expect(req.refused).toBeUndefined();
    expect(req.host).toBe('api.openai.com');
    expect(req.form!.fields).toEqual({ model: 'gpt-4o-mini-transcribe', response_format: 'json' });
    // the recording up to the end of speech: 300 ms + 1.2 s of sound + at least the 700 ms of silence that ends it
    const seconds = (req.form!.file!.size - 44) / 32000;
    expect(seconds).toBeGreaterThan(2.1);
    expect(seconds).toBeLessThan(3.5);
    const stats = await rig.device.command('VOICE?');
    expect(stats).toMatch(/^state=idle turns=1 stops=0\nlast: ok heard=\d+ms transcript=\d+ reply=\d+ firstAudio=\d+ xsPeak=\d+ xsStatic=\d+\nOK$/);
    const epi = await rig.device.command('EPIQ what is the battery level');
    expect(epi).toMatch(/transcript/);
  }, 120_000);
});
