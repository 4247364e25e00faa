// Boots the whole device: speech and sounds cross the console, the turn's actions, the chat's voice messages and the speaker.
// Device sound (the console's Audio group, VOICE, the tts action, reply.speak):
// sound effects synthesized as 16-bit PCM (length, peak following the volume
// and the mode's level, silence at 0, themes); the speaker's mixer (effects
// mixed over speech, music held and resumed without losing a sample);
// streaming WAV speech and resampling; text-to-speech against the provider
// emulator (over TLS in Node, and on the in-memory network through the
// firmware's own client); TTSTG to the owner's chat; MICREC, refused while
// an update installs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Audio } from '../../../src/audio/audio.ts';
import { audio as audioSubsystem } from '../../../src/audio/index.ts';
import { mount, ready } from '../../../src/core/subsystem.ts';
import { device as deviceSubsystem } from '../../../src/device/index.ts';
import { boot, type Device } from '../../../src/main.ts';
import { MusicPlayer } from '../../../src/music/player.ts';
import { Card } from '../../../src/storage/index.ts';
import { Log } from '../../../src/log/log.ts';
import { MIC_RATE } from '../../../src/audio/mic.ts';
import { AHEAD, BLOCK, DUCK_GAIN, MAX_EFFECTS, Speaker } from '../../../src/audio/speaker.ts';
import { MIX_RATE, peakOf, rmsOf, SFX_PEAK, SFX_SLUGS, sfxClip, themeOf, toneClip } from '../../../src/audio/synth.ts';
import { streamSpeech, fetchSpeech, ttsEndpoint, type TtsEndpoint } from '../../../src/audio/tts.ts';
import { Resampler, WavReader } from '../../../src/audio/wav.ts';
import { validateAction, type RoundResult } from '../../../src/contracts/index.ts';
import { speechAnswer, speechMs, start, wavBytes as emuWav, speechPcm, type Emulator, type SpeechOptions } from '../../../tools/provider-emulator.mjs';
import { testCaPem } from '../../../tools/test-ca.mjs';
import { wavBytes } from '../../support/audio-files.ts';
import { TestWire, turnResult } from '../../support/test-wire.ts';
import { flushJobs } from '../../support/clock.ts';
import { testKernel } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { nodeClient } from '../../support/node-client.ts';
import { makeKey, simImage, UpdateFeed } from '../../support/ota.ts';
import { fakeTelegram, serveHttp } from '../../support/telegram-net.ts';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';

const decoder = new TextDecoder();
const OWNER = '1001';
const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
const total = (chunks: Int16Array[]): number => chunks.reduce((n, c) => n + c.length, 0);
const joined = (chunks: Int16Array[]): Int16Array => {
  const out = new Int16Array(total(chunks));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
};

describe('sound effects as PCM', () => {
  it('each slug is a short clip of its notes at 24 kHz, peaking near full scale', () => {
    const ms: Record<string, number> = { boot: 490, tap: 30, ding: 400, notify: 320, success: 460, error: 450 };
    for (const slug of SFX_SLUGS) {
      const clip = sfxClip(slug, 'classic');
      expect(clip.length, slug).toBe((ms[slug]! * MIX_RATE) / 1000);
      expect(peakOf(clip), slug).toBeGreaterThan(SFX_PEAK * 0.6);
      expect(peakOf(clip), slug).toBeLessThanOrEqual(SFX_PEAK);
      // it fades out: no click at the end
      expect(Math.abs(clip[clip.length - 1]!), slug).toBeLessThan(200);
    }
  });

  it('themes: soft is an octave lower and longer, retro is square; an unknown theme plays classic', () => {
    const classic = sfxClip('ding', 'classic');
    const soft = sfxClip('ding', 'soft');
    const retro = sfxClip('ding', 'retro');
    expect(soft.length).toBe(Math.round(classic.length * 1.25));
    const crossings = (p: Int16Array, n: number): number => {
      let c = 0;
      for (let i = 1; i < n; i++) if (p[i - 1]! < 0 !== p[i]! < 0) c++;
      return c;
    };
    // 880 Hz for classic, 440 Hz for soft: half the zero crossings in the same time
    expect(Math.abs(crossings(soft, 4800) * 2 - crossings(classic, 4800))).toBeLessThanOrEqual(2);
    // a square wave sits at its level: most samples near the envelope's peak
    const flat = Array.from(retro.subarray(100, 1100)).filter((v) => Math.abs(v) > 0.6 * peakOf(retro)).length;
    expect(flat).toBeGreaterThan(900);
    expect(themeOf('Retro')).toBe('retro');
    expect(themeOf('jazz')).toBe('classic');
    expect(themeOf(undefined)).toBe('classic');
    expect(toneClip(880, 200).length).toBe(4800);
  });
});

describe('the speaker mixer', () => {
  function mixer() {
    const mem = createMemHal();
    const log = new Log(mem.clock, mem.system);
    // The in-memory output plays everything at once; tests set how much it still holds.
    const output = { queued: 0 };
    Object.defineProperty(mem.audio, 'queued', { get: () => output.queued });
    const speaker = new Speaker(mem.audio, mem.clock, log);
    return { mem, speaker, output };
  }

  it('mixes an effect over speech (summed, clipped), one stream', async () => {
    const { mem, speaker, output } = mixer();
    const speech = speaker.openSpeech(1, 'speech')!;
    expect(mem.audio.starts).toBe(0); // nothing to play yet: the stream waits for samples
    speech.append(new Int16Array(2400).fill(1000));
    output.queued = AHEAD; // the output is full: what comes next waits, and is mixed
    const sfx = speaker.play(new Int16Array(480).fill(30000), 0.5, 'sfx', 'test')!;
    speech.append(new Int16Array(2400).fill(1000));
    speech.end();
    expect(total(mem.audio.samples)).toBe(2400);
    output.queued = 0;
    await mem.clock.advance(200);
    const out = joined(mem.audio.samples);
    expect(mem.audio.starts).toBe(1);
    expect(mem.audio.format).toBeNull(); // stopped once everything played
    expect(out.length).toBe(4800);
    expect(out[0]).toBe(1000); // the speech's first block went out alone
    expect(out.subarray(2400, 2880).every((v) => v === 16000)).toBe(true); // 1000 + 30000 x 0.5
    expect(out[4799]).toBe(1000);
    await sfx.played();
    await speech.played();
    // clipping instead of wrapping
    const more = speaker.openSpeech(1, 'more')!;
    more.append(new Int16Array(480).fill(-30000));
    output.queued = AHEAD;
    const loud = speaker.play(new Int16Array(480).fill(-30000), 1, 'sfx', 'a')!;
    more.append(new Int16Array(480).fill(-30000));
    more.end();
    output.queued = 0;
    await mem.clock.advance(100);
    expect(joined(mem.audio.samples).subarray(5280).every((v) => v === -32768)).toBe(true);
    await loud.played();
  });

  it('speaks utterances one after another and drops effects beyond four at once', async () => {
    const { mem, speaker } = mixer();
    const a = speaker.openSpeech(1, 'a')!;
    const b = speaker.openSpeech(1, 'b')!;
    b.append(new Int16Array(480).fill(2));
    b.end();
    a.append(new Int16Array(480).fill(1));
    await mem.clock.advance(100);
    expect(joined(mem.audio.samples).every((v) => v === 1)).toBe(true); // b waits for a
    a.end();
    await mem.clock.advance(100);
    expect(Array.from(joined(mem.audio.samples).subarray(470, 490))).toEqual([...new Array(10).fill(1), ...new Array(10).fill(2)]);
    const clips = Array.from({ length: MAX_EFFECTS + 1 }, (_, i) => speaker.play(new Int16Array(5 * MIX_RATE).fill(1), 1, 'sfx', `c${i}`));
    expect(clips.filter((c) => c === null)).toHaveLength(1);
    speaker.stopAll();
    expect(speaker.busy()).toBe(false);
  });

  it('music plays through the same stream at its own rate: ducked under speech and back, effects mixed over it, not a sample lost', async () => {
    const { mem, speaker, output } = mixer();
    const port = speaker.music;
    port.start({ sampleRate: 48000, channels: 2 });
    // Stereo is mixed down as it is written: (L + R) >> 1.
    const stereo = new Int16Array(2 * 19200);
    for (let i = 0; i < 19200; i++) [stereo[2 * i], stereo[2 * i + 1]] = [10000, 0];
    port.write(stereo);
    expect(mem.audio.format).toEqual({ sampleRate: 48000, channels: 1 });
    const written = total(mem.audio.samples);
    expect(written).toBeGreaterThanOrEqual(AHEAD); // the output was filled at once
    output.queued = AHEAD;
    expect(port.queued).toBe(19200 - written + AHEAD); // given and not yet heard: still buffered, and in the output
    // Speech (made at MIX_RATE) comes: resampled to 48 kHz, and the music ducks under it.
    const speech = speaker.openSpeech(1, 'speech')!;
    speech.append(new Int16Array(1200).fill(1000)); // 50 ms at 24 kHz
    speech.end();
    output.queued = 0;
    await mem.clock.advance(300);
    const out = joined(mem.audio.samples);
    expect(out.length).toBe(19200); // every music sample, once; the speech rode on it
    expect(mem.audio.starts).toBe(1);
    expect(out[0]).toBe(5000);
    const ducked = Math.round(5000 * DUCK_GAIN);
    // Where the speech sounds: the ducked music plus the speech (after a one-block ramp down).
    expect(out.subarray(written + BLOCK, written + 2300).every((v) => v === ducked + 1000)).toBe(true);
    expect(out[written - 1]).toBe(5000); // full level up to where the speech came in
    expect(port.gain).toBe(1); // back up once the speech is over
    expect(out[19199]).toBe(5000);
    await speech.played();
    // An effect over the music: summed, and the music does not duck.
    output.queued = AHEAD;
    port.write(new Int16Array(2 * 960).fill(2000));
    const beep = speaker.play(new Int16Array(480).fill(3000), 1, 'sfx', 'beep')!;
    output.queued = 0;
    await mem.clock.advance(100);
    expect(port.gain).toBe(1);
    const after = joined(mem.audio.samples).subarray(19200);
    expect(after.length).toBe(960);
    expect(Math.max(...after)).toBe(2000 + 3000);
    await beep.played();
    // The track ends: the stream stops; a sound after it plays at MIX_RATE again.
    port.stop();
    await mem.clock.advance(100);
    expect(mem.audio.format).toBeNull();
    speaker.play(new Int16Array(480).fill(7), 1, 'sfx', 'late');
    expect(mem.audio.streams.map((s) => s.format.sampleRate)).toEqual([48000, MIX_RATE]);
    expect(joined(mem.audio.streams[1]!.pcm)).toEqual(new Int16Array(480).fill(7));
  });
});

describe('WAV speech as it streams', () => {
  it('reads a header cut anywhere, stereo as mono, streamed sizes, and refuses what is not 16-bit PCM', () => {
    const pcm = speechPcm(100, 48000, 2);
    const bytes = emuWav(pcm, 48000, 2, true);
    const got: Int16Array[] = [];
    const r = new WavReader((m) => got.push(m));
    for (let at = 0; at < bytes.length; at += 7) expect(r.push(bytes.subarray(at, at + 7))).toBe(true);
    expect(r.format).toEqual({ sampleRate: 48000, channels: 2 });
    const mono = joined(got);
    expect(mono.length).toBe(4800);
    expect(mono[1234]).toBe(pcm[1234 * 2]);
    const eight = new WavReader(() => undefined);
    expect(eight.push(wavBytes({ bits: 8 }))).toBe(false);
    expect(eight.error).toMatch(/not 16-bit PCM/);
    const junk = new WavReader(() => undefined);
    expect(junk.push(new TextEncoder().encode('{"error":"nope"}'))).toBe(false);
    expect(junk.error).toBe('the answer is not a WAV file');
  });

  it('resamples linearly, chunk by chunk, to the same result as at once', () => {
    const src = Int16Array.from({ length: 4800 }, (_, i) => Math.round(10000 * Math.sin(i / 20)));
    const whole = new Resampler(48000, 24000).push(src);
    expect(whole.length).toBe(2400);
    expect(whole[100]).toBe(src[200]);
    const r = new Resampler(48000, 24000);
    const parts = [src.subarray(0, 333), src.subarray(333, 1001), src.subarray(1001)].map((p) => r.push(p));
    expect(Array.from(joined(parts))).toEqual(Array.from(whole));
    const up = new Resampler(16000, 24000).push(Int16Array.from([0, 300, 600, 900]));
    expect(Array.from(up)).toEqual([0, 200, 400, 600, 800]);
  });
});

describe('text-to-speech against the provider emulator (TLS)', () => {
  let emu: Emulator;
  let plain: Emulator;
  beforeAll(async () => {
    emu = await start();
    plain = await start({ tls: false });
  });
  afterAll(async () => {
    await emu.close();
    await plain.close();
  });
  const ep: TtsEndpoint = { provider: 'openai', base: 'https://api.openai.com', key: 'sk-openai', model: 'gpt-4o-mini-tts', voice: 'alloy' };

  it('POSTs /v1/audio/speech with the model, input, voice and format, the key as a Bearer token, and streams a WAV back', async () => {
    emu.reset();
    emu.keys.set('api.openai.com', 'sk-openai');
    const client = nodeClient(emu.port, testCaPem());
    const got: Int16Array[] = [];
    const reader = new WavReader((m) => got.push(m));
    const r = await streamSpeech(client, ep, 'Hello from the desk.', 'wav', (c) => reader.push(c));
    expect(r).toMatchObject({ ok: true });
    expect(emu.requests[0]).toMatchObject({ method: 'POST', host: 'api.openai.com', path: '/v1/audio/speech', body: { model: 'gpt-4o-mini-tts', input: 'Hello from the desk.', voice: 'alloy', response_format: 'wav' } });
    expect(emu.requests[0]!.headers['authorization']).toBe('Bearer sk-openai');
    expect(reader.format).toEqual({ sampleRate: 24000, channels: 1 });
    expect(total(got)).toBe((speechMs('Hello from the desk.') * 24000) / 1000);
    const opus = await fetchSpeech(client, ep, 'Hi.', 'opus');
    expect(opus.ok && Buffer.from(opus.body.subarray(0, 4)).toString()).toBe('OggS');
    expect(opus.ok && Buffer.from(opus.body).includes(Buffer.from('OpusHead'))).toBe(true);
  });

  it('a refused key, a provider error and an unreachable host come back as sentences that never echo the key', async () => {
    emu.reset();
    emu.keys.set('api.openai.com', 'the-right-key');
    const client = nodeClient(emu.port, testCaPem());
    const refused = await streamSpeech(client, ep, 'x', 'wav', () => true);
    expect(refused).toEqual({ ok: false, reason: 'tts-refused: the speech provider refused the key (HTTP 401): Incorrect API key provided' });
    emu.keys.clear();
    emu.script({ match: { path: '/v1/audio/speech' }, status: 500, message: 'overloaded' });
    expect(await streamSpeech(client, ep, 'x', 'wav', () => true)).toEqual({ ok: false, reason: 'tts-failed: the speech provider answered HTTP 500: overloaded' });
    const nowhere = nodeClient(1, testCaPem());
    const down = await streamSpeech(nowhere, ep, 'x', 'wav', () => true);
    expect(down.ok).toBe(false);
    expect(!down.ok && down.reason).toMatch(/^tts-unreachable: /);
    expect(JSON.stringify([refused, down])).not.toContain('sk-openai');
  });

  it('a custom endpoint over plain http runs keyless', async () => {
    plain.reset();
    const keys = { key: (p: string) => (p === 'custom' ? 'sk-custom' : null), customFor: () => ({ base: 'http://custom.emulator.test/', model: '' }) };
    const e = ttsEndpoint(keys, 'custom', 'nova');
    expect(e).toEqual({ ok: true, endpoint: { provider: 'custom', base: 'http://custom.emulator.test', key: null, model: 'tts-1', voice: 'nova' } });
    const r = await streamSpeech(nodeClient(plain.port, testCaPem()), (e as { endpoint: TtsEndpoint }).endpoint, 'plain', 'wav', () => true);
    expect(r.ok).toBe(true);
    expect(plain.requests[0]!.headers['authorization']).toBeUndefined();
    expect(ttsEndpoint(keys, 'openai', null)).toMatchObject({ ok: false, reason: expect.stringMatching(/^no-tts-key: /) });
    expect(ttsEndpoint(keys, 'anthropic', null)).toEqual({ ok: false, reason: 'no-tts-provider: ttsProv anthropic has no speech endpoint on this device (openai or custom)' });
  });
});

// ---------------------------------------------------------------------------
// On the device (in-memory HAL and network): the console, the tts action, reply.speak, VOICE


class EchoWire extends TestWire {
  onRound: (() => void) | null = null;
  protected override answer(): RoundResult {
    this.onRound?.();
    return turnResult({ reply: 'It is time for tea.' });
  }
}

interface Rig {
  mem: MemHal;
  device: Device;
  wire: EchoWire;
  speech: Array<{ path: string; headers: Record<string, string>; doc: Record<string, unknown> }>;
  answer: SpeechOptions;
  bot: BotApiFake | null;
}

function rig(options: { openaiKey?: boolean; chat?: boolean; mode?: 0 | 1 } = {}): Rig {
  const mem = createMemHal();
  const r = { mem, speech: [], answer: {}, bot: null } as unknown as Rig;
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  mem.nvs.set('orch', 'priority', 'anthropic');
  if (options.openaiKey !== false) mem.nvs.set('orch', 'key.openai', 'sk-openai-secret');
  if (options.mode === 0) mem.nvs.set('sys', 'mode', 0);
  if (options.chat) {
    mem.nvs.set('chat', 'token', TOKEN);
    mem.nvs.set('chat', 'allow', OWNER);
    r.bot = fakeTelegram(mem.net, () => mem.clock);
  }
  serveHttp(mem.net, 'api.openai.com', async (_method, path, headers, body): Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }> => {
    const doc = JSON.parse(decoder.decode(body)) as Record<string, unknown>;
    r.speech.push({ path, headers, doc });
    const a = path === '/v1/audio/speech' ? speechAnswer(doc, r.answer) : null;
    if (!a) return { status: 404, headers: {}, body: new TextEncoder().encode('{"error":{"message":"no"}}') };
    return { status: 200, headers: { 'Content-Type': a.contentType }, body: new Uint8Array(a.bytes) };
  });
  r.wire = new EchoWire();
  r.device = boot(mem.hal, { wire: r.wire });
  return r;
}

/**
 * The audio subsystem alone, for effects and the mixer: a test kernel with the
 * device actions and ring it reads (mounted), the music player over its
 * speaker, the card; no speech provider, chat or network.
 */
interface SoundRig {
  mem: MemHal;
  audio: Audio;
  music: MusicPlayer;
  /** A config device action, as device.control applies it. */
  config(values: Record<string, unknown>): void;
}

function soundRig(options: { mode?: 0 | 1 } = {}): SoundRig {
  const { kernel, mem } = testKernel({ mode: options.mode ?? 1 });
  const { hal, log } = kernel;
  const { actions, ring } = mount(kernel, deviceSubsystem, {});
  const audio = mount(kernel, audioSubsystem, {
    providers: { key: () => null, customFor: () => ({ base: '', model: '' }) },
    actions,
    updates: { installing: () => false, addBusyProbe: () => undefined },
    client: { request: () => Promise.reject(new Error('no network in this test')) },
    chat: ready({ settings: { token: () => '' }, people: { ownerChat: () => null }, sendVoice: () => Promise.resolve({ ok: false, error: 'no chat in this test' }) }),
    ring,
    card: new Card(hal.sd),
  });
  const music = new MusicPlayer({ sd: hal.sd, audio: audio.speaker.music, clock: hal.clock, log });
  kernel.console.start();
  const config = (values: Record<string, unknown>): void => {
    const v = validateAction({ config: values });
    if (!v.ok) throw new Error(`bad config ${v.reason}`);
    const r = actions.apply(v.action);
    if (!r.ok) throw new Error(r.note);
  };
  return { mem, audio, music, config };
}

async function consoleLine(r: { mem: MemHal }, line: string, ms = 10_000): Promise<string> {
  const serial = r.mem.serial;
  serial.take();
  serial.type(`${line}\r\n`);
  if (!(await r.mem.clock.until(() => /(^|\n)(OK|ERR[^\n]*)\r?\n$/.test(serial.output), ms, 20))) throw new Error(`no answer to ${line}: ${serial.output}`);
  return serial.take().replace(/\r/g, '');
}

const config = (r: Rig, values: Record<string, unknown>) => r.device.ctx.tools.call('device.control', { action: { config: values } }, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });

describe('SFX and SFXVOL on the device', () => {
  it('plays at sfxVol (default 50) times the mode level; the peak follows the volume; silent at 0', async () => {
    const r = soundRig();
    const peakOfOutput = async (line: string): Promise<{ out: string; peak: number; samples: number }> => {
      const before = r.mem.audio.samples.length;
      const out = await consoleLine(r, line);
      await r.mem.clock.advance(1000);
      const written = joined(r.mem.audio.samples.slice(before));
      return { out, peak: peakOf(written), samples: written.length };
    };
    const clip = sfxClip('ding', 'classic');
    const half = await peakOfOutput('SFX ding');
    expect(half.out).toBe(`sfx=ding theme=classic volume=50 sfxLvlO=100 gain=0.50 samples=9600 ms=400 peak=${Math.round(peakOf(clip) * 0.5)}\nOK\n`);
    expect(half.samples).toBe(9600);
    expect(Math.abs(half.peak - peakOf(clip) * 0.5)).toBeLessThanOrEqual(1);
    expect(await consoleLine(r, 'SFXVOL 100')).toBe('sfxVol=100\nOK\n');
    const full = await peakOfOutput('SFX ding');
    expect(full.peak).toBe(peakOf(clip));
    r.config({ sfxLvlO: 25 });
    const quarter = await peakOfOutput('SFX ding');
    expect(Math.abs(quarter.peak - peakOf(clip) * 0.25)).toBeLessThanOrEqual(1);
    expect(await consoleLine(r, 'SFXVOL 0')).toBe('sfxVol=0 (silent)\nOK\n');
    const silent = await peakOfOutput('SFX ding');
    expect(silent.out).toBe('sfx=ding theme=classic volume=0 sfxLvlO=25 gain=0.00 samples=9600 ms=400 silent (sfxVol is 0): nothing played\nOK\n');
    expect(silent.samples).toBe(0);
    expect(await consoleLine(r, 'SFX kazoo')).toBe('ERR unknown sound effect \'kazoo\' (boot, tap, ding, notify, success, error)\n');
    expect(await consoleLine(r, 'SFXVOL 101')).toBe('ERR usage: SFXVOL <0-100>\n');
    expect(await consoleLine(r, 'SFXVOL')).toBe('sfxVol=0\nOK\n');
    r.config({ sfxVol: 80, sfxTheme: 'retro' });
    expect(await consoleLine(r, 'SFX tap')).toMatch(/^sfx=tap theme=retro volume=80 sfxLvlO=25 gain=0\.20 samples=720 ms=30 peak=\d+\n/);
  });

  it('Notifier mode uses sfxLvlN', async () => {
    const r = soundRig({ mode: 0 });
    r.config({ sfxLvlN: 0, sfxLvlO: 100 });
    expect(await consoleLine(r, 'SFX notify')).toMatch(/sfxLvlN=0 gain=0\.00 .* silent \(sfxLvlN is 0\): nothing played\nOK\n$/);
  });

  it('music keeps playing under an effect, in one stream at its rate: no sample lost or repeated', async () => {
    const r = soundRig();
    const track = wavBytes({ rate: 16000, seconds: 2 });
    r.mem.sd.mkdir('/music');
    const f = r.mem.sd.open('/music/song.wav', 'w');
    f.write(track);
    f.close();
    // The output plays in real time: 320 samples (16 kHz) each 20 ms.
    let played = 0;
    Object.defineProperty(r.mem.audio, 'queued', { get: () => Math.max(0, total(r.mem.audio.samples) - played), configurable: true });
    expect(r.music.play(null).ok).toBe(true);
    const clip = sfxClip('success', 'classic');
    const before = total(r.mem.audio.samples);
    expect(r.audio.sfx('success')).toMatchObject({ ok: true, played: true });
    expect(r.music.status()).toMatchObject({ state: 'playing', held: false });
    for (let i = 0; i < 400 && r.music.status().state !== 'idle'; i++) {
      played += 320;
      await r.mem.clock.advance(20);
    }
    expect(r.music.status()).toMatchObject({ state: 'idle', held: false });
    expect(r.music.played).toBe(1);
    // One stream at the track's rate, as long as the track (the in-memory output plays at once).
    expect(r.mem.audio.streams.map((s) => s.format)).toEqual([{ sampleRate: 16000, channels: 1 }]);
    const out = joined(r.mem.audio.streams[0]!.pcm);
    expect(out.length).toBe(32000);
    // Outside the effect (made at 24 kHz, 2/3 as many samples at 16 kHz), the track sample for sample.
    const song = new Int16Array(track.buffer.slice(44));
    const effectEnd = before + Math.ceil((clip.length * 16000) / MIX_RATE) + 1;
    expect(Array.from(out.subarray(0, before))).toEqual(Array.from(song.subarray(0, before)));
    expect(Array.from(out.subarray(effectEnd))).toEqual(Array.from(song.subarray(effectEnd)));
    expect(out.subarray(before, effectEnd).some((v, i) => v !== song[before + i])).toBe(true); // the effect was mixed in
  });
});

describe('speech on the device', () => {
  it('SPKSAY speaks through provider A at sfxVol; refuses without a key, at volume 0, and empty', async () => {
    const none = rig({ openaiKey: false });
    expect(await consoleLine(none, 'SPKSAY hello')).toBe('ERR no-tts-key: speech uses provider A (openai), and no openai key is set; add it on the web page (Assistant > Models), or set ttsProv custom\n');
    expect(none.speech).toEqual([]);
    const r = rig();
    const out = await consoleLine(r, 'SPKSAY Hello there, desk.');
    const ms = speechMs('Hello there, desk.');
    expect(out).toBe(`speech ${(ms / 1000).toFixed(2)} s at 24000 Hz, volume 50\nspoken (peak ${Math.round(peakOf(speechPcm(ms)) * 0.5)})\nOK\n`);
    expect(r.speech[0]!.doc).toEqual({ model: 'gpt-4o-mini-tts', input: 'Hello there, desk.', voice: 'alloy', response_format: 'wav' });
    expect(r.speech[0]!.headers['authorization']).toBe('Bearer sk-openai-secret');
    expect(total(r.mem.audio.samples)).toBe((ms * MIX_RATE) / 1000);
    // another voice and a 48 kHz stereo answer: resampled to the speaker's rate
    await config(r, { ttsVoice: 'nova', sfxVol: 100 });
    r.answer = { sampleRate: 48000, channels: 2, streamSizes: true, ms: 500 };
    const before = total(r.mem.audio.samples);
    expect(await consoleLine(r, 'SPKSAY again')).toMatch(/^speech 0\.50 s at 24000 Hz, volume 100\n/);
    expect(r.speech[1]!.doc['voice']).toBe('nova');
    expect(total(r.mem.audio.samples) - before).toBeGreaterThanOrEqual(11999);
    await config(r, { sfxVol: 0 });
    expect(await consoleLine(r, 'SPKSAY quiet')).toBe('ERR silent: the volume (sfxVol) is 0\n');
    expect(await consoleLine(r, 'SPKSAY')).toBe('ERR usage: SPKSAY <text>\n');
    expect(r.speech).toHaveLength(2);
  });

  it('the tts action and reply.speak speak only while voice replies are on (ttsOn); reply.speak degrades otherwise', async () => {
    const r = rig();
    const turnCaller = { via: 'turn' as const, admin: true, scheduled: false, unattended: false, person: null };
    expect(r.device.ctx.tools.list(turnCaller).map((t) => t.name)).toContain('reply.speak');
    expect(r.device.ctx.tools.list({ ...turnCaller, via: 'mcp' }).map((t) => t.name)).not.toContain('reply.speak');
    const off = await r.device.ctx.tools.call('reply.speak', { text: 'Tea time.' }, turnCaller);
    expect(off).toMatchObject({ success: true, output: 'Not spoken: voice replies are off (ttsOn). Give the answer in your reply text instead.' });
    const action = await r.device.ctx.tools.call('device.control', { action: { tts: { text: 'Tea time.' } } }, { ...turnCaller, via: 'mcp' });
    expect(action).toMatchObject({ success: false, error_type: 'unavailable', error: 'tts: not spoken (off: voice replies are off (ttsOn))' });
    expect(r.speech).toEqual([]);
    await config(r, { ttsOn: true });
    expect(await r.device.ctx.tools.call('reply.speak', { text: 'Tea time.' }, turnCaller)).toMatchObject({ success: true, output: 'Speaking aloud (9 characters).' });
    expect((await r.device.ctx.tools.call('device.control', { action: { tts: { text: 'Kettle on.' } } }, { ...turnCaller, via: 'mcp' })).output).toBe('tts: speaking');
    await r.mem.clock.until(() => r.speech.length === 2 && !r.device.ctx.audio.speaker.busy(), 10_000, 20);
    expect(r.speech.map((s) => s.doc['input'])).toEqual(['Tea time.', 'Kettle on.']);
    expect(total(r.mem.audio.samples)).toBe(((speechMs('Tea time.') + speechMs('Kettle on.')) * MIX_RATE) / 1000);
    await config(r, { sfxVol: 0 });
    expect((await r.device.ctx.tools.call('reply.speak', { text: 'x' }, turnCaller)).output).toMatch(/^Not spoken: the volume \(sfxVol\) is 0\./);
    const none = rig({ openaiKey: false });
    expect(none.device.ctx.tools.list(turnCaller).map((t) => t.name)).not.toContain('reply.speak');
  });

  it('VOICE runs a turn with origin voice (the ring thinking meanwhile) and speaks the reply while ttsOn', async () => {
    const r = rig();
    let ringDuring = '';
    r.wire.onRound = () => (ringDuring = r.device.ctx.ring.view().name);
    expect(await consoleLine(r, 'VOICE is it tea time')).toBe('It is time for tea.\nnot spoken: off: voice replies are off (ttsOn)\nOK\n');
    expect(ringDuring).toBe('thinking');
    expect(r.device.ctx.ring.view().name).toBe('off');
    const rows = r.device.ctx.memory.episodic.query({ session: 'voice', kind: 'message', limit: 10 }).rows.map((row) => `${row.role}: ${row.text}`);
    expect(rows).toEqual(['assistant: It is time for tea.', 'creator: is it tea time']);
    await config(r, { ttsOn: true });
    expect(await consoleLine(r, 'VOICE and now')).toBe(`It is time for tea.\nspoken: ${(speechMs('It is time for tea.') / 1000).toFixed(2)} s\nOK\n`);
    expect(r.speech.map((s) => s.doc['input'])).toEqual(['It is time for tea.']);
    // bare VOICE listens on the microphone, which needs speech to text (sttProv; off by default)
    expect(await consoleLine(r, 'VOICE')).toBe('ERR stt-off: speech to text is off; set sttProv to openai, mistral or custom\n');
  });

  it("TTSTG sends the speech to the owner's chat as an Ogg Opus voice message", async () => {
    const r = rig({ chat: true });
    await r.mem.clock.advance(100); // the chat client starts
    expect(await consoleLine(r, 'TTSTG Your tea is ready.')).toMatch(/^voice message of \d+ bytes sent to chat 1001\nOK\n$/);
    expect(r.speech[0]!.doc).toMatchObject({ input: 'Your tea is ready.', response_format: 'opus' });
    const sent = r.bot!.sent.find((s) => s.method === 'sendVoice')!;
    expect(sent.chat).toBe(OWNER);
    expect(sent.file!.name).toBe('speech.ogg');
    expect(Buffer.from(sent.file!.bytes).subarray(0, 4).toString()).toBe('OggS');
    const lonely = rig();
    expect(await consoleLine(lonely, 'TTSTG hi')).toBe('ERR no-chat: the chat messenger is not set up (no bot token)\n');
    expect(lonely.speech).toEqual([]);
  });

  it('reply.telegram with voice: the text, then the same as a voice message while voice replies are on', async () => {
    const r = rig({ chat: true });
    await r.mem.clock.advance(100);
    const caller = { via: 'turn' as const, admin: true, scheduled: false, unattended: false, person: null };
    const off = await r.device.ctx.tools.call('reply.telegram', { text: 'Tea is ready.', voice: true }, caller);
    expect(off.output).toBe('queued for chat 1001 as text (voice replies are off)');
    await config(r, { ttsOn: true });
    const on = await r.device.ctx.tools.call('reply.telegram', { text: 'Biscuits too.', voice: true }, caller);
    expect(on.output).toBe('queued for chat 1001, and a voice message of it follows');
    await r.mem.clock.until(() => r.bot!.sent.some((s) => s.method === 'sendVoice'), 10_000, 20);
    expect(r.bot!.sent.map((s) => [s.method, s.method === 'sendMessage' ? s.text.split('\n')[0] : s.file!.name])).toEqual([
      ['sendMessage', 'Tea is ready.'],
      ['sendMessage', 'Biscuits too.'],
      ['sendVoice', 'speech.ogg'],
    ]);
    expect(r.speech.map((s) => [s.doc['input'], s.doc['response_format']])).toEqual([['Biscuits too.', 'opus']]);
  });
});

describe('MICREC', () => {
  it('records from the microphone (the ring listening meanwhile) and saves a WAV on the card', async () => {
    const r = rig();
    const serial = r.mem.serial;
    serial.take();
    serial.type('MICREC 500\r\n');
    await flushJobs();
    expect(r.mem.mic.running).toBe(true);
    expect(r.device.ctx.ring.view().name).toBe('listening');
    const tone = Int16Array.from({ length: 4000 }, (_, i) => Math.round(12000 * Math.sin(i / 5)));
    r.mem.mic.onSamples!(tone);
    r.mem.mic.onSamples!(tone);
    await r.mem.clock.until(() => /OK\r\n$/.test(serial.output), 1000, 10);
    expect(serial.take().replace(/\r/g, '')).toBe(`recorded 0.50 s at ${MIC_RATE} Hz: samples=8000 peak=${peakOf(tone)} rms=${rmsOf(tone)}\nsaved /mem/rec/micrec.wav\nOK\n`);
    expect(r.mem.mic.running).toBe(false);
    expect(r.device.ctx.ring.view().name).toBe('off');
    const st = r.mem.sd.stat('/mem/rec/micrec.wav')!;
    expect(st.size).toBe(44 + 16000);
    const saved = r.mem.sd.read('/mem/rec/micrec.wav', 0, 44);
    expect(Buffer.from(saved.subarray(0, 4)).toString()).toBe('RIFF');
    expect(Buffer.from(saved).readUInt32LE(24)).toBe(MIC_RATE);
    expect(await consoleLine(r, 'MICREC 50')).toMatch(/^ERR usage: MICREC \[ms\]/);
  });

  it('a microphone that stops delivering ends the recording with what came', async () => {
    const r = rig();
    r.mem.serial.take();
    r.mem.serial.type('MICREC\r\n');
    await flushJobs();
    r.mem.mic.onSamples!(new Int16Array(1600));
    await r.mem.clock.advance(5100);
    expect(r.mem.serial.take().replace(/\r/g, '')).toMatch(/^recorded 0\.10 s at 16000 Hz: samples=1600 peak=0 rms=0 \(the microphone stopped early\)\nsaved/);
  });

  it('voice capture (MICREC, VOICE) is refused while an update installs', async () => {
    const r = rig();
    const key = makeKey();
    r.mem.flash.slots[0] = simImage('v0.1.0');
    r.device.ctx.ota.keys = [key.trusted];
    const feed = new UpdateFeed();
    feed.attach(r.mem.net);
    feed.publish({ version: 'v2.0.0', key, image: simImage('v2.0.0', 100_000), types: ['panel-35'] });
    feed.files.get('/releases/v2.0.0/desk-v2.0.0.img')!.stallAt = 20_000;
    expect(r.device.ctx.ota.apply({ source: 'web', force: true }).ok).toBe(true);
    expect(await r.mem.clock.until(() => r.device.ctx.ota.installing(), 5000, 10)).toBe(true);
    expect(await consoleLine(r, 'MICREC')).toBe('ERR busy: an update is installing; voice capture is refused until it is done\n');
    expect(await consoleLine(r, 'VOICE hello')).toBe('ERR busy: an update is installing; voice is refused until it is done\n');
    expect(r.mem.mic.running).toBe(false);
    r.device.stop();
  });
});
