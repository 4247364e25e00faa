// Boots the whole device: voice runs from the microphone through transcription and the turn to the speaker.
// Voice in: the end-of-speech detector on synthetic speech; the transcription
// request (multipart/form-data streamed by the firmware's own HTTP client)
// judged by the provider emulator's rules and by the openai and Mistral
// SDKs' request types; a spoken turn on the in-memory device (VOICE bare:
// listen, transcribe, episodic transcript row, the turn, the reply spoken);
// push to talk from the screen and the stop while the transcription is in
// flight; refusal while an update installs; chat voice notes.
import { AudioTranscriptionRequest$outboundSchema } from '@mistralai/mistralai/models/components';
import ts from 'typescript';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boot, type Device } from '../../../src/main.ts';
import { HttpClient } from '../../../src/net/http/client.ts';
import { sttEndpoint, transcribe, bytesSource } from '../../../src/stt/index.ts';
import { type SttEndpoint } from '../../../src/stt/transcribe.ts';
import { multipart } from '../../../src/stt/multipart.ts';
import { END_SILENCE_MS, MAX_UTTERANCE_MS, NO_SPEECH_MS, Vad } from '../../../src/voice/vad.ts';
import { FRAME_SAMPLES } from '../../../src/voice/vad.ts';
import { checkTranscription, wavProblem } from '../../../tools/provider-rules.mjs';
import { speechAnswer, transcriptionBody, DEMO_TRANSCRIPT } from '../../../tools/provider-emulator.mjs';
import { VirtualClock } from '../../support/clock.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { MemNet } from '../../support/memnet.ts';
import { TestWire, turnResult } from '../../support/test-wire.ts';
import { fakeTelegram, serveHttp } from '../../support/telegram-net.ts';
import type { RoundResult } from '../../../src/contracts/provider-wire.ts';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const RATE = 16000;

/** ms of a voiced sound (a 220 Hz tone at amplitude 3000) or of silence. */
const tone = (ms: number, amp = 3000): Int16Array => Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * 220 * i) / RATE)));
const silence = (ms: number): Int16Array => new Int16Array((RATE * ms) / 1000);
const cat = (...parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('the end-of-speech detector', () => {
  it('starts on 60 ms of voice, ends after 700 ms of silence, ignores a click and the pauses between words', () => {
    const v = new Vad();
    expect(v.push(silence(500))).toBe('none');
    expect(v.push(tone(40))).toBe('none'); // a click: shorter than three frames
    expect(v.push(silence(200))).toBe('none');
    expect(v.speaking).toBe(false);
    expect(v.push(tone(400))).toBe('start');
    expect(v.push(silence(400))).toBe('none'); // a pause between words
    expect(v.push(tone(300))).toBe('none');
    expect(v.push(silence(END_SILENCE_MS - 20))).toBe('none');
    expect(v.push(silence(20))).toBe('end');
    expect(v.done).toBe('end');
    expect(v.speechMs()).toBe(400 + 400 + 300);
  });

  it('sound under the threshold is not speech; nothing said in 5 s ends as no-speech; a loud steady hum is speech until the 15 s cap', () => {
    const quiet = new Vad();
    expect(quiet.push(tone(NO_SPEECH_MS - 20, 300))).toBe('none');
    expect(quiet.push(tone(20, 300))).toBe('no-speech');
    const hum = new Vad();
    expect(hum.push(tone(MAX_UTTERANCE_MS + 1000, 900))).toBe('start');
    expect(hum.done).toBe('max');
    expect(hum.speechMs()).toBe(MAX_UTTERANCE_MS);
    expect(FRAME_SAMPLES).toBe(320);
  });
});

/** The emulator's judgement and answer as an in-memory server (the firmware's own client talks to it). */
function serveStt(net: MemNet, host: string, seen: Array<{ fields: Record<string, string>; file: { name: string; type: string; size: number; bytes: Uint8Array } | null; refused?: { status: number; message: string } }>, answer: { text?: string; hold?: boolean } = {}) {
  const family = host === 'api.mistral.ai' ? 'mistral' : 'openai';
  serveHttp(net, host, async (_method, path, headers, body): Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }> => {
    if (path === '/v1/audio/speech') {
      const a = speechAnswer(JSON.parse(decoder.decode(body)) as Record<string, unknown>, {})!;
      return { status: 200, headers: { 'Content-Type': a.contentType }, body: new Uint8Array(a.bytes) };
    }
    const judged = await checkTranscription({ headers }, Buffer.from(body), family);
    if (judged.refused) {
      seen.push({ fields: {}, file: null, refused: judged.refused });
      return { status: judged.refused.status, headers: {}, body: encoder.encode(JSON.stringify({ error: { message: judged.refused.message } })) };
    }
    seen.push(judged.form);
    if (answer.hold) await new Promise(() => {});
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: encoder.encode(JSON.stringify(transcriptionBody(family, judged.form.fields.model, answer.text ?? DEMO_TRANSCRIPT, 1))) };
  });
}

function wav(pcm: Int16Array): Uint8Array {
  const out = Buffer.alloc(44 + pcm.byteLength);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + pcm.byteLength, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(RATE, 24);
  out.writeUInt32LE(RATE * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(pcm.byteLength, 40);
  Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).copy(out, 44);
  return new Uint8Array(out);
}

/** Type-checks generated files in one program (the SDK's types load once); the diagnostics of each. */
function typecheck(files: Record<string, string>): Record<string, string[]> {
  const dir = join(ROOT, 'build/sdk-wire');
  mkdirSync(dir, { recursive: true });
  const paths = Object.entries(files).map(([name, source]) => {
    writeFileSync(join(dir, name), source);
    return join(dir, name);
  });
  const program = ts.createProgram(paths, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [] });
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(files).map((n) => [n, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = d.file ? d.file.fileName.slice(dir.length + 1) : '';
    (out[name] ??= []).push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  return out;
}

describe('the transcription request', () => {
  const keys = { key: (p: string) => `sk-${p}`, customFor: () => ({ base: 'http://custom.emulator.test/', model: '' }) };
  const send = async (host: string, ep: SttEndpoint, upload: { filename: string; mime: string; bytes: Uint8Array }) => {
    const net = new MemNet();
    const clock = new VirtualClock();
    const client = new HttpClient(net, clock, { verify: () => false, caBundle: () => '' });
    const seen: Parameters<typeof serveStt>[2] = [];
    serveStt(net, host, seen);
    if (host !== 'custom.emulator.test') net.serve(host, 80, () => {});
    let random = 7;
    const r = await transcribe(client, ep, { filename: upload.filename, mime: upload.mime, source: bytesSource(upload.bytes, 1000) }, (b) => b.fill(random++));
    return { r, seen, sent: net };
  };

  it('OpenAI, Mistral and the custom endpoint each take the streamed multipart body and answer the text', async () => {
    const audio = wav(tone(500));
    const openai = sttEndpoint(keys, 'openai');
    expect(openai).toMatchObject({ ok: true, endpoint: { provider: 'openai', base: 'https://api.openai.com', model: 'gpt-4o-mini-transcribe' } });
    const a = await send('api.openai.com', openai.ok ? openai.endpoint : (null as never), { filename: 'speech.wav', mime: 'audio/wav', bytes: audio });
    expect(a.r).toEqual({ ok: true, text: DEMO_TRANSCRIPT, provider: 'openai', model: 'gpt-4o-mini-transcribe' });
    expect(a.seen[0]!.fields).toEqual({ model: 'gpt-4o-mini-transcribe', response_format: 'json' });
    expect(a.seen[0]!.file).toMatchObject({ name: 'speech.wav', type: 'audio/wav', size: audio.length });
    expect(Buffer.from(a.seen[0]!.file!.bytes).equals(Buffer.from(audio))).toBe(true);

    const mistral = sttEndpoint(keys, 'mistral');
    const m = await send('api.mistral.ai', mistral.ok ? mistral.endpoint : (null as never), { filename: 'speech.wav', mime: 'audio/wav', bytes: audio });
    expect(m.r).toEqual({ ok: true, text: DEMO_TRANSCRIPT, provider: 'mistral', model: 'voxtral-mini-latest' });
    expect(m.seen[0]!.fields).toEqual({ model: 'voxtral-mini-latest' });

    const custom = sttEndpoint(keys, 'custom');
    expect(custom).toMatchObject({ ok: true, endpoint: { provider: 'custom', base: 'http://custom.emulator.test', key: null, model: 'whisper-1' } });
    expect(sttEndpoint(keys, 'off')).toMatchObject({ ok: false, reason: expect.stringMatching(/^stt-off: /) });
    expect(sttEndpoint({ key: () => null, customFor: () => ({ base: '', model: '' }) }, 'mistral')).toMatchObject({ ok: false, reason: expect.stringMatching(/^no-stt-key: /) });
  });

  it('the emulator refuses what the services refuse: a torn body, an unknown field, no model, a wrong extension, a WAV whose sizes lie, not-Ogg', async () => {
    const head = { headers: { 'content-type': 'multipart/form-data; boundary=XyZ' } };
    const part = (name: string, value: string) => `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const file = (name: string, bytes: Uint8Array) => Buffer.concat([Buffer.from(`--XyZ\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: audio/wav\r\n\r\n`), Buffer.from(bytes), Buffer.from('\r\n')]);
    const body = (...p: Array<string | Buffer>) => Buffer.concat([...p.map((x) => (typeof x === 'string' ? Buffer.from(x) : x)), Buffer.from('--XyZ--\r\n')]);
    const good = wav(tone(100));
    expect((await checkTranscription(head, body(part('model', 'whisper-1'), file('a.wav', good)), 'openai')).form?.fields).toEqual({ model: 'whisper-1' });
    const refusal = async (raw: Buffer, family = 'openai') => (await checkTranscription(head, raw, family)).refused;
    expect(await refusal(Buffer.concat([Buffer.from(part('model', 'whisper-1')), file('a.wav', good)]))).toMatchObject({ status: 400, message: expect.stringMatching(/^Could not parse multipart form/) });
    expect(await refusal(body(part('model', 'whisper-1'), part('voice', 'x'), file('a.wav', good)))).toMatchObject({ message: 'Unrecognized request argument supplied: voice' });
    expect(await refusal(body(file('a.wav', good)))).toMatchObject({ message: "Missing required parameter: 'model'." });
    expect(await refusal(body(file('a.wav', good)), 'mistral')).toMatchObject({ status: 422, message: 'model: Field required' });
    expect(await refusal(body(part('model', 'whisper-1'), file('a.pcm', good)))).toMatchObject({ message: expect.stringMatching(/^Invalid file format/) });
    const liar = good.slice();
    new DataView(liar.buffer).setUint32(40, 999999, true);
    expect(wavProblem(liar)).toMatch(/data chunk says 999999/);
    expect(await refusal(body(part('model', 'whisper-1'), file('a.wav', liar)))).toMatchObject({ message: expect.stringMatching(/corrupted/) });
    expect(await refusal(body(part('model', 'whisper-1'), file('a.ogg', good)))).toMatchObject({ message: expect.stringMatching(/no Ogg page/) });
    expect(await refusal(body(part('model', 'gpt-4o-mini-transcribe'), part('response_format', 'srt'), file('a.wav', good)))).toMatchObject({ message: expect.stringMatching(/not compatible/) });
    expect(await checkTranscription({ headers: { 'content-type': 'application/json' } }, Buffer.from('{}'), 'openai')).toMatchObject({ refused: { status: 400 } });
  });

  it("what the firmware sends type-checks as the openai SDK's TranscriptionCreateParams and passes Mistral's AudioTranscriptionRequest schema unchanged", async () => {
    const audio = wav(tone(200));
    const o = await send('api.openai.com', { provider: 'openai', base: 'https://api.openai.com', key: 'k', model: 'gpt-4o-mini-transcribe' }, { filename: 'speech.wav', mime: 'audio/wav', bytes: audio });
    const c = await send('custom.emulator.test', { provider: 'custom', base: 'https://custom.emulator.test', key: 'k', model: 'whisper-1' }, { filename: 'voice.ogg', mime: 'audio/ogg', bytes: new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2]) });
    const lit = (f: Record<string, string>) => `{ ...${JSON.stringify(f)}, file: FILE }`;
    const head = "import type { TranscriptionCreateParamsNonStreaming as T } from 'openai/resources/audio/transcriptions';\nimport type { Uploadable } from 'openai/uploads';\ndeclare const FILE: Uploadable;\n";
    const good = `${head}export const a: T = ${lit(o.seen[0]!.fields)};\nexport const b: T = ${lit(c.seen[0]!.fields)};\n`;
    // with the negative control: a response format the SDK does not know, and a field it does not have
    const checked = typecheck({
      'stt-openai.ts': good,
      'stt-openai-bad.ts': `${head}export const a: T = { model: 'whisper-1', response_format: 'ogg', file: FILE };\n`,
      'stt-openai-bad2.ts': `${head}export const a: T = { model: 'whisper-1', voice: 'x', file: FILE };\n`,
    });
    expect(checked['stt-openai.ts']).toEqual([]);
    expect(checked['stt-openai-bad.ts']!.length).toBeGreaterThan(0);
    expect(checked['stt-openai-bad2.ts']!.length).toBeGreaterThan(0);

    const m = await send('api.mistral.ai', { provider: 'mistral', base: 'https://api.mistral.ai', key: 'k', model: 'voxtral-mini-latest' }, { filename: 'speech.wav', mime: 'audio/wav', bytes: audio });
    const sent = m.seen[0]!;
    const out = AudioTranscriptionRequest$outboundSchema.parse({ ...sent.fields, file: new Blob([Buffer.from(sent.file!.bytes)], { type: sent.file!.type }) }) as Record<string, unknown>;
    // the SDK adds its defaults (stream false, diarize false), which the service assumes when absent
    const { file: _file, stream, diarize, ...rest } = out;
    expect([stream, diarize]).toEqual([false, false]);
    expect(rest).toEqual(sent.fields);
    expect(() => AudioTranscriptionRequest$outboundSchema.parse({ file: new Blob([]) })).toThrow();
  }, 120_000); // tsc loads the SDK's types: seconds, more on a busy machine

  it('the multipart body is streamed: the client never asks the source for more than it can queue', () => {
    let pulled = 0;
    const big = { length: 100_000, next: () => (pulled >= 100_000 ? null : ((pulled += 4000), new Uint8Array(4000))) };
    const body = multipart('B', [['model', 'm']], { field: 'file', filename: 'a.wav', mime: 'audio/wav', source: big });
    expect(body.contentType).toBe('multipart/form-data; boundary=B');
    let total = 0;
    for (let c = body.source.next(); c; c = body.source.next()) total += c.length;
    expect(total).toBe(body.source.length);
  });
});

class ReplyWire extends TestWire {
  reply = 'Everything is fine.';
  hold = false;
  protected override answer(): RoundResult | Promise<RoundResult> {
    if (this.hold) return new Promise(() => {});
    return turnResult({ reply: this.reply });
  }
}

interface Rig {
  mem: MemHal;
  device: Device;
  wire: ReplyWire;
  seen: Parameters<typeof serveStt>[2];
  answer: { text?: string; hold?: boolean };
  bot: BotApiFake | null;
}

function rig(options: { stt?: string; chat?: boolean; board?: 'ring-tft' } = {}): Rig {
  const mem = createMemHal(options.board ? { board: options.board } : {});
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  mem.nvs.set('orch', 'priority', 'anthropic');
  mem.nvs.set('orch', 'key.openai', 'sk-openai-secret');
  if (options.stt) mem.nvs.set('cfg', 'sttProv', options.stt);
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]); // provisioned: the home screen shows
  const seen: Rig['seen'] = [];
  const answer: Rig['answer'] = {};
  serveStt(mem.net, 'api.openai.com', seen, answer);
  let bot: BotApiFake | null = null;
  if (options.chat) {
    mem.nvs.set('chat', 'token', '123456789:AAH-fake-token-for-tests-0123456789abc');
    mem.nvs.set('chat', 'allow', '1001');
    bot = fakeTelegram(mem.net, () => mem.clock);
  }
  const wire = new ReplyWire();
  const device = boot(mem.hal, { wire });
  return { mem, device, wire, seen, answer, bot };
}

async function feed(r: Rig, pcm: Int16Array): Promise<void> {
  for (let at = 0; at < pcm.length && r.mem.mic.running; at += 320) {
    r.mem.mic.onSamples?.(pcm.subarray(at, at + 320));
    if (at % 3200 === 0) await r.mem.clock.advance(100);
  }
}

const config = (r: Rig, values: Record<string, unknown>) => r.device.ctx.tools.call('device.control', { action: { config: values } }, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });

describe('a spoken turn on the device', () => {
  it('VOICE listens until the end of speech, transcribes (episodic transcript row), runs the turn and speaks the reply while ttsOn', async () => {
    const r = rig({ stt: 'openai' });
    expect((await config(r, { ttsOn: true })).success).toBe(true);
    const serial = r.mem.serial;
    serial.take();
    serial.type('VOICE\r\n');
    await r.mem.clock.advance(10);
    expect(r.mem.mic.running).toBe(true);
    expect(r.device.ctx.ring.view().name).toBe('listening');
    await feed(r, cat(silence(300), tone(1200), silence(800)));
    expect(r.mem.mic.running).toBe(false);
    expect(await r.mem.clock.until(() => /(OK|ERR[^\n]*)\r\n$/.test(serial.output), 20_000, 20)).toBe(true);
    const out = serial.take().replace(/\r/g, '');
    expect(out).toMatch(new RegExp(`^heard: ${DEMO_TRANSCRIPT.replace('?', '\\?')}\nEverything is fine\\.\nspoken: \\d+\\.\\d\\d s\nOK\n$`));
    // the WAV the provider got: the 16 kHz recording up to the end of speech (300 + 1200 + 700 ms at least)
    const file = r.seen[0]!.file!;
    expect(file.name).toBe('speech.wav');
    expect(Buffer.from(file.bytes).readUInt32LE(24)).toBe(16000);
    expect((file.size - 44) / 32).toBeGreaterThanOrEqual(2200);
    const rows = r.device.ctx.memory.episodic.query({ session: 'voice', limit: 10 }).rows.map((x) => `${x.kind} ${x.role}: ${x.text}`);
    expect(rows).toContain(`transcript creator: ${DEMO_TRANSCRIPT}`);
    expect(rows).toContain(`message creator: ${DEMO_TRANSCRIPT}`);
    expect(r.device.ctx.ring.view().name).toBe('off');
    serial.type('VOICE?\r\n');
    await r.mem.clock.until(() => /OK\r\n$/.test(serial.output), 1000, 10);
    expect(serial.take()).toMatch(/state=idle turns=1 stops=0\r\nlast: ok heard=\d+ms transcript=\d+ reply=\d+ sentence=\d+ firstAudio=\d+ xsPeak=\d+ xsStatic=\d+\r\n/);
  });

  it('push to talk on the screen: hold listens, release ends it; a tap while the transcription is in flight stops it at once', async () => {
    const r = rig({ stt: 'openai' });
    expect(r.device.ui.screen()).toBe('status');
    const ui = r.device.ui as unknown as { touch: { onGesture: (g: { kind: string; x?: number; y?: number }) => void } };
    ui.touch.onGesture({ kind: 'press', x: 10, y: 10 });
    ui.touch.onGesture({ kind: 'hold', x: 10, y: 10 });
    await r.mem.clock.advance(10);
    expect(r.mem.mic.running).toBe(true);
    // panel-35 has no ring: the screen's state line says what voice does
    const stateLine = (): string => {
      r.device.ui.tick();
      return r.device.ui.frame()!.list.items.map((i) => (i.kind === 'text' ? i.text : '')).join('|');
    };
    expect(stateLine()).toContain('Listening...');
    r.answer.hold = true;
    await feed(r, tone(800));
    ui.touch.onGesture({ kind: 'release', x: 10, y: 10 });
    await r.mem.clock.until(() => r.seen.length > 0, 2000, 10);
    expect(r.mem.mic.running).toBe(false);
    expect(r.device.ctx.ring.view().name).toBe('thinking');
    expect(stateLine()).toContain('Thinking...');
    ui.touch.onGesture({ kind: 'press', x: 10, y: 10 });
    ui.touch.onGesture({ kind: 'tap', x: 10, y: 10 });
    ui.touch.onGesture({ kind: 'release', x: 10, y: 10 });
    expect(r.device.ctx.ring.view().name).toBe('off');
    expect(stateLine()).not.toContain('Thinking...');
    const serial = r.mem.serial;
    serial.take();
    serial.type('VOICE?\r\n');
    await r.mem.clock.until(() => /OK\r\n$/.test(serial.output), 1000, 10);
    expect(serial.take()).toMatch(/^state=idle turns=1 stops=1\r\n/);
    // the turn never ran
    expect(r.wire.seen).toHaveLength(0);
  });

  it("ring-tft's main button: held, it listens; released, the turn runs; pressed again while it speaks, it stops", async () => {
    const r = rig({ stt: 'openai', board: 'ring-tft' });
    expect(r.mem.buttons.names).toEqual(['main']);
    await config(r, { ttsOn: true });
    r.mem.buttons.press('main', true);
    await r.mem.clock.advance(10);
    expect(r.mem.mic.running).toBe(true);
    expect(r.device.ctx.ring.view().name).toBe('listening');
    await feed(r, tone(600));
    r.mem.buttons.press('main', false);
    expect(await r.mem.clock.until(() => r.device.ctx.ring.view().name === 'success', 10_000, 5)).toBe(true); // speaking
    expect(r.wire.seen).toHaveLength(1);
    r.mem.buttons.press('main', true);
    expect(r.device.ctx.ring.view().name).toBe('off');
    r.mem.buttons.press('main', false);
    await r.mem.clock.advance(50);
    expect(r.mem.mic.running).toBe(false);
    const rows = r.device.ctx.memory.episodic.query({ session: 'voice', kind: 'transcript', limit: 5 }).rows;
    expect(rows).toHaveLength(1);
  });

  it('a tap while the provider call of the turn is in flight stops it at once, and its late reply is not spoken', async () => {
    const r = rig({ stt: 'openai' });
    r.wire.hold = true;
    const face = r.device.ctx; // VOICE <text> through the console, then a tap
    r.mem.serial.take();
    r.mem.serial.type('VOICE what is up\r\n');
    await r.mem.clock.until(() => r.wire.seen.length > 0, 2000, 10);
    expect(face.ring.view().name).toBe('thinking');
    const ui = r.device.ui as unknown as { touch: { onGesture: (g: { kind: string; x?: number; y?: number }) => void } };
    ui.touch.onGesture({ kind: 'press', x: 1, y: 1 });
    expect(face.ring.view().name).toBe('off');
    await r.mem.clock.until(() => /ERR[^\n]*\r\n$/.test(r.mem.serial.output), 2000, 10);
    expect(r.mem.serial.take()).toBe('ERR stopped\r\n');
  });

  it('voice capture is refused while an update installs; without sttProv bare VOICE says what to set', async () => {
    const r = rig();
    r.mem.serial.take();
    r.mem.serial.type('VOICE\r\n');
    await r.mem.clock.until(() => /\r\n$/.test(r.mem.serial.output), 1000, 10);
    expect(r.mem.serial.take()).toBe('ERR stt-off: speech to text is off; set sttProv to openai, mistral or custom\r\n');
    const busy = rig({ stt: 'openai' });
    (busy.device.ctx.ota as unknown as { installing: () => boolean }).installing = () => true;
    busy.mem.serial.take();
    busy.mem.serial.type('VOICE\r\n');
    await busy.mem.clock.until(() => /\r\n$/.test(busy.mem.serial.output), 1000, 10);
    expect(busy.mem.serial.take()).toBe('ERR busy: an update is installing; voice capture is refused until it is done\r\n');
    expect(busy.mem.mic.running).toBe(false);
  });
});

describe('chat voice notes', () => {
  it('a voice note is transcribed through sttProv and becomes the chat turn; with speech to text off it is declined with what to set', async () => {
    const r = rig({ stt: 'openai', chat: true });
    await r.mem.clock.advance(100);
    r.answer.text = 'remind me to water the plants';
    const ogg = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 1, 2, 3, 4]);
    r.bot!.say('1001', '', { voice: ogg });
    expect(await r.mem.clock.until(() => r.bot!.to('1001').length > 0, 20_000, 20)).toBe(true);
    expect(r.bot!.to('1001')[0]!.text).toContain('Everything is fine.');
    expect(r.seen[0]!.file).toMatchObject({ name: 'voice.ogg', type: 'audio/ogg', size: ogg.length });
    const rows = r.device.ctx.memory.episodic.query({ session: '1001', limit: 10 }).rows.map((x) => `${x.kind}: ${x.text}`);
    expect(rows).toContain('transcript: remind me to water the plants');
    const off = rig({ chat: true });
    await off.mem.clock.advance(100);
    off.bot!.say('1001', '', { voice: ogg });
    expect(await off.mem.clock.until(() => off.bot!.to('1001').length > 0, 20_000, 20)).toBe(true);
    expect(off.bot!.to('1001')[0]!.text).toMatch(/^I can't listen to voice messages: speech to text is off on this device \(the owner can set sttProv/);
    expect(off.bot!.calls.filter((c) => c.method === 'getFile')).toHaveLength(0);
  });
});
