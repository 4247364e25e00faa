// Voice in on the simulator, the real firmware on XS: the board's
// microphone plays a WAV file (mic.feed) and the owner speaks to the device.
// Bare VOICE listens until the end of speech, sends the recording to the
// transcription API (the provider emulator, which judges the multipart
// body: tools/provider-rules.mjs checkTranscription), writes the transcript
// to the episodic log, runs the turn and speaks the reply (ttsOn); VOICE?
// gives the timings from the end of speech (npm run bench reports them).
// A tap on the screen (panel-35) while the turn's provider call is held by the
// emulator (a barrier) cancels the turn: the emulator sees the connection
// closed, nothing is recorded or applied, and the next turn runs at once.
// Streamed (the default): with the model paced like a hosted one, the reply
// is spoken sentence by sentence, the first sentence's speech asked for while
// the model still writes; the next voice turn opens no connection (the
// transcription, the round and every sentence's speech on kept-alive ones);
// and a tap while it speaks mid-stream closes the stream, stops the speech,
// and leaves nothing recorded.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { speechWav } from '../../bench/voice.mjs';
import { barrier, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { tempDir } from './harness.ts';
import { startProviderRig, type ProviderRig } from './fixtures/provider-rig.ts';

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
    speechWav(wav); // 300 ms of silence, 1.2 s of a voiced tone, 1.5 s of silence
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
    expect(stats).toMatch(/^state=idle turns=1 stops=0\nlast: ok heard=\d+ms transcript=\d+ reply=\d+ sentence=\d+ firstAudio=\d+ xsPeak=\d+ xsStatic=\d+\nOK$/);
    const epi = await rig.device.command('EPIQ what is the battery level');
    expect(epi).toMatch(/transcript/);
  }, 120_000);

  it('a tap on the screen while the provider call is in flight cancels the turn: the connection closes, nothing is recorded or applied, the next turn runs', async () => {
    const held = barrier();
    // The held answer would switch voice replies off: it must never be applied.
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject('It will rain at noon.', { device: [{ config: { ttsOn: false } }] }), barrier: held });
    const asked = rig.device.command('VOICE what is the weather like', 60_000);
    const rec = await held.arrived;
    expect(rec.text).toContain('what is the weather like');
    await rig.device.board.request('touch', { kind: 'down', x: 10, y: 10 });
    await rig.device.board.request('touch', { kind: 'up', x: 10, y: 10 });
    expect(await asked).toBe('ERR stopped');
    // The device closed the provider call's connection; letting the answer go now reaches no one.
    expect((await held.hungUp).hungUp).toBe(true);
    held.open();
    const ctx = await rig.device.command('CTX? voice');
    expect(ctx).not.toMatch(/weather|rain/);
    expect(await rig.device.command('VOICE?')).toMatch(/^state=idle turns=2 stops=1\nlast: /);
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject('Sunny tomorrow.') });
    // Spoken: ttsOn is still on (the cancelled turn's device action was not applied).
    expect(await rig.device.command('VOICE and tomorrow', 60_000)).toMatch(/^Sunny tomorrow\.\nspoken: \d+\.\d\d s\nOK$/);
    const after = await rig.device.command('CTX? voice');
    expect(after).toMatch(/creator: and tomorrow\nassistant: Sunny tomorrow\./);
    expect(after).not.toMatch(/weather|rain/);
  }, 120_000);

  const REPLY = 'The kettle is on. It takes about three minutes to boil. I will tell you when it clicks off.';

  it('streamed: each sentence is asked for as it completes, the first while the model still writes; the next turn opens no connection', async () => {
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject(REPLY), pace: { firstMs: 200, tokensPerS: 40 } });
    const from = emu.requests.length;
    expect(await rig.device.command('VOICE put the kettle on', 60_000)).toMatch(/^The kettle is on\. .*\nspoken: \d+\.\d\d s\nOK$/);
    const round = emu.requests.slice(from).find((r) => r.path === '/v1/messages')!;
    expect(round.streamed).toBe(true);
    const speech = emu.requests.slice(from).filter((r) => r.path === '/v1/audio/speech');
    expect(speech.map((r) => r.body.input)).toEqual(['The kettle is on.', 'It takes about three minutes to boil.', 'I will tell you when it clicks off.']);
    // The stream lasts (tokens / 40) s; the first sentence's speech left long before its end.
    const streamEnds = round.at + 200 + (round.tokens! * 1000) / 40;
    expect(speech[0]!.at).toBeLessThan(streamEnds - 500);
    // The next turn: the round and every speech request on kept-alive connections.
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject(REPLY) });
    const conns = emu.connections();
    expect(await rig.device.command('VOICE and again', 60_000)).toMatch(/spoken: /);
    expect(emu.connections()).toBe(conns);
  }, 120_000);

  it('streamed: a tap while it speaks mid-stream closes the stream and the speech; nothing of the turn is recorded', async () => {
    const long = `${REPLY} ${'Meanwhile the bread should come out of the oven soon, so keep an eye on the timer as well. '.repeat(6)}`;
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject(long, { device: [{ config: { ttsOn: false } }] }), pace: { firstMs: 100, tokensPerS: 20 } });
    const from = emu.requests.length;
    const asked = rig.device.command('VOICE how long for the kettle', 60_000);
    for (let i = 0; i < 300 && !emu.requests.slice(from).some((r) => r.path === '/v1/audio/speech'); i++) await new Promise((r) => setTimeout(r, 20));
    await rig.device.board.request('touch', { kind: 'down', x: 10, y: 10 });
    await rig.device.board.request('touch', { kind: 'up', x: 10, y: 10 });
    expect(await asked).toBe('ERR stopped');
    const round = emu.requests.slice(from).find((r) => r.path === '/v1/messages')!;
    for (let i = 0; i < 100 && !round.hungUp; i++) await new Promise((r) => setTimeout(r, 20));
    expect(round.hungUp).toBe(true);
    const ctx = await rig.device.command('CTX? voice');
    expect(ctx).not.toMatch(/kettle for|how long/);
    // ttsOn is still on: the stopped turn's device action was never applied.
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject('Done.') });
    expect(await rig.device.command('VOICE thanks', 60_000)).toMatch(/^Done\.\nspoken: /);
  }, 120_000);
});
