// Music on the in-memory HAL: format recognition (16-bit PCM WAV, MP3 frames;
// the rest skipped), the player's rules (a bare play queues the folder in name
// order, play replaces the queue, queue true appends, pause holds the
// position, stop halts and clears, holds never drop the music), the upload
// route, the media tools and the console's PLAY and MEDIATEST.

import { describe, expect, it } from 'vitest';
import { Audio } from '../../../src/audio/audio.ts';
import { mount } from '../../../src/core/subsystem.ts';
import type { ToolRegistry } from '../../../src/core/tools/registry.ts';
import type { MusicPlayer } from '../../../src/music/player.ts';
import { music as musicSubsystem } from '../../../src/music/index.ts';
import { HttpServer } from '../../../src/net/http/server.ts';
import { Card } from '../../../src/storage/index.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { frameHeader, parseMp3, parseWav, recognise } from '../../../src/music/formats.ts';
import { flushJobs } from '../../support/clock.ts';
import { exchange, parseResponses } from '../../support/http.ts';
import { mp3Bytes, wavBytes } from '../../support/audio-files.ts';
import { testKernel } from '../../support/kernel.ts';
import type { MemHal, MemHalOptions } from '../../support/memhal.ts';

const OWNER: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };

function put(mem: MemHal, name: string, bytes: Uint8Array): void {
  mem.sd.mkdir('/music');
  const f = mem.sd.open(`/music/${name}`, 'w');
  f.write(bytes);
  f.sync();
}

const HTTP_PORT = 80;

/** The music subsystem alone: mounted on a test kernel over the speaker's music port, a card, the console and HTTP. */
interface MusicRig {
  music: MusicPlayer;
  tools: ToolRegistry;
  stop(): void;
}

function start(options: MemHalOptions = {}, existing?: MemHal): { mem: MemHal; device: MusicRig } {
  const { kernel, mem } = testKernel(existing ? { mem: existing } : { hal: options });
  const audio = new Audio(mem.hal, kernel.log);
  const music = mount(kernel, musicSubsystem, { card: new Card(mem.hal.sd), audio });
  kernel.console.start();
  const http = new HttpServer(mem.hal.net, mem.hal.clock, kernel.router);
  http.listen(HTTP_PORT);
  return {
    mem,
    device: {
      music,
      tools: kernel.tools,
      stop() {
        audio.stop();
        http.close();
      },
    },
  };
}

const reader = (b: Uint8Array) => (o: number, l: number) => b.subarray(o, o + l);

async function consoleLine(mem: MemHal, line: string): Promise<string> {
  mem.serial.take();
  mem.serial.type(line + '\r\n');
  await mem.clock.advance(1);
  await flushJobs();
  return mem.serial.take();
}

function pcmFrames(mem: MemHal): number {
  return mem.audio.samples.reduce((n, s) => n + s.length, 0);
}

async function upload(mem: MemHal, filename: string, data: Uint8Array) {
  const boundary = 'b0undary';
  const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  const body = new Uint8Array(head.length + data.length + tail.length);
  body.set(head);
  body.set(data, head.length);
  body.set(tail, head.length + data.length);
  const req = new TextEncoder().encode(
    `POST /api/music HTTP/1.1\r\nHost: d\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  const raw = new Uint8Array(req.length + body.length);
  raw.set(req);
  raw.set(body, req.length);
  const { responses } = await exchange(mem.net, HTTP_PORT, raw, 1);
  const r = responses[0]!;
  return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
}

describe('music formats', () => {
  it('recognises 16-bit PCM WAV and skips other WAV kinds', () => {
    const w = wavBytes({ rate: 22050, channels: 2, seconds: 0.1 });
    expect(parseWav(reader(w), w.length)).toEqual({ ok: true, info: { kind: 'wav', sampleRate: 22050, channels: 2, dataStart: 44, dataBytes: 2205 * 4, frames: 2205 } });
    const eight = wavBytes({ bits: 8 });
    expect(parseWav(reader(eight), eight.length)).toEqual({ ok: false, reason: '8-bit WAV: only 16-bit PCM plays' });
    const float = wavBytes({ format: 3, bits: 16 });
    expect(parseWav(reader(float), float.length)).toMatchObject({ ok: false, reason: 'WAV format 3 is not PCM' });
    expect(recognise('x.ogg', reader(w), w.length)).toMatchObject({ ok: false });
    expect(parseWav(reader(new Uint8Array(10)), 10).ok).toBe(false);
  });

  it('recognises MP3 (after an ID3 tag) by consecutive Layer III frames, and not random bytes', () => {
    const m = mp3Bytes(5, { id3: true });
    expect(parseMp3(reader(m), m.length)).toEqual({ ok: true, info: { kind: 'mp3', sampleRate: 44100, channels: 2, firstFrame: 30, end: m.length, frameSamples: 1152 } });
    expect(frameHeader(m, 30)).toMatchObject({ length: 417, samples: 1152 });
    const noise = new Uint8Array(5000).map((_, i) => (i * 7919) & 0xff);
    expect(parseMp3(reader(noise), noise.length).ok).toBe(false);
    // A WAV renamed .mp3 is not an MP3.
    const w = wavBytes();
    expect(recognise('song.mp3', reader(w), w.length).ok).toBe(false);
  });
});

describe('the music player', () => {
  it('a bare play queues the folder in name order, skipping unrecognised files, and plays WAV and MP3 to completion', async () => {
    const { mem, device } = start();
    put(mem, 'b-tone.wav', wavBytes({ seconds: 0.25 }));
    put(mem, 'a-song.mp3', mp3Bytes(30));
    put(mem, 'c-eight.wav', wavBytes({ bits: 8 }));
    put(mem, 'notes.txt', new TextEncoder().encode('not music'));
    const r = device.music.command('');
    expect(r.ok).toBe(true);
    expect(r.message).toBe('Playing a-song.mp3. Then 1 more. Skipped (not 16-bit PCM WAV or MP3): c-eight.wav, notes.txt.');
    expect(mem.audio.format).toEqual({ sampleRate: 44100, channels: 1 });
    await mem.clock.advance(200);
    // MP3: every whole frame went through the host's decoder, in order, and its PCM (mono) to the output.
    expect(mem.audio.decoded.length).toBe(30);
    expect(mem.audio.decoded.reduce((n, f) => n + f.length, 0)).toBe(mp3Bytes(30).length);
    // Through the speaker's mixer: one stream per track, at the track's rate.
    const [mp3Stream, wavStream] = mem.audio.streams as [{ format: unknown; pcm: Int16Array[] }, { format: unknown; pcm: Int16Array[] }];
    expect(mem.audio.streams.map((s) => s.format)).toEqual([{ sampleRate: 44100, channels: 1 }, { sampleRate: 16000, channels: 1 }]);
    const mp3Pcm = mp3Stream.pcm.flatMap((s) => Array.from(s));
    expect(mp3Pcm.length).toBe(30 * 1152);
    expect(mp3Pcm.every((v, i) => v === Math.floor(i / 1152) + 1)).toBe(true);
    // Then the WAV, sample for sample.
    const tone = wavBytes({ seconds: 0.25 });
    expect(wavStream.pcm.flatMap((s) => Array.from(s))).toEqual(Array.from(new Int16Array(tone.buffer.slice(44))));
    expect(mem.audio.format).toBeNull();
    expect(device.music.status()).toMatchObject({ state: 'idle', played: 2 });
    device.stop();
  });

  it('play replaces the queue and plays now; queue true appends; stop halts and clears', async () => {
    const { mem, device } = start();
    for (const n of ['one.wav', 'two.wav', 'three.wav']) put(mem, n, wavBytes({ seconds: 2 }));
    const music = device.music;
    expect(music.play(null).message).toBe('Playing one.wav. Then 2 more.');
    expect(music.play('three').message).toBe('Playing three.wav.');
    expect(music.status().queue).toEqual([]);
    expect(music.play('one.wav', { queue: true }).message).toBe('Queued one.wav.');
    expect(music.status()).toMatchObject({ track: 'three.wav', queue: ['one.wav'] });
    expect(music.play('nothing-like-it').message).toBe('No track in /music matches "nothing-like-it".');
    expect(music.stop().message).toBe('Stopped; the queue is cleared.');
    expect(music.status()).toMatchObject({ state: 'idle', track: null, queue: [] });
    expect(mem.audio.format).toBeNull();
    device.stop();
  });

  it('pause holds the position and a play resumes from it; holds by other sound owners never drop the music', async () => {
    const { mem, device } = start();
    const wav = wavBytes({ seconds: 1 });
    put(mem, 'song.wav', wav);
    const music = device.music;
    // An output that plays in real time: 16 frames per ms.
    let queued = 0;
    Object.defineProperty(mem.audio, 'queued', { get: () => queued, configurable: true });
    const write = mem.audio.write.bind(mem.audio);
    mem.audio.write = (pcm) => {
      queued += pcm.length;
      write(pcm);
    };
    const stop = mem.audio.stop.bind(mem.audio);
    mem.audio.stop = () => {
      queued = 0;
      stop();
    };
    const drain = (ms: number): void => {
      queued = Math.max(0, queued - 16 * ms);
    };
    music.play('song');
    drain(300); // 0.3 s heard
    expect(music.pause().message).toBe('Paused song.wav at 0.3 s.');
    expect(music.status()).toMatchObject({ state: 'paused', position: 0.3 });
    mem.audio.samples = [];
    expect(music.play(null).message).toBe('Resumed song.wav at 0.3 s.');
    // The resumed stream starts at sample 4800: exactly where it was paused.
    expect(mem.audio.samples[0]![0]).toBe(new DataView(wav.buffer).getInt16(44 + 4800 * 2, true));
    // Speech takes the output: music waits at its place and goes on afterwards.
    drain(100);
    music.hold('speech');
    expect(music.status()).toMatchObject({ state: 'playing', held: true, position: 0.4 });
    mem.audio.samples = [];
    music.release('speech');
    expect(mem.audio.samples[0]![0]).toBe(new DataView(wav.buffer).getInt16(44 + 6400 * 2, true));
    for (let i = 0; i < 40 && music.state() !== 'idle'; i++) {
      drain(50);
      await mem.clock.advance(50);
    }
    expect(music.status()).toMatchObject({ state: 'idle', played: 1 });
    device.stop();
  });

  it('holds an MP3 pause at a frame boundary', async () => {
    const { mem, device } = start();
    put(mem, 'x.mp3', mp3Bytes(40));
    const music = device.music;
    let queued = 0;
    Object.defineProperty(mem.audio, 'queued', { get: () => queued, configurable: true });
    const write = mem.audio.write.bind(mem.audio);
    mem.audio.write = (pcm) => {
      queued += pcm.length;
      write(pcm);
    };
    music.play('x');
    const fed = queued;
    queued = fed - 1152 * 3 - 100; // three frames and a bit heard
    music.pause();
    expect(music.status().position).toBe(Math.round(((1152 * 3) / 44100) * 10) / 10);
    const decodedBefore = mem.audio.decoded.length;
    mem.audio.samples = [];
    queued = 0;
    music.play(null);
    // Resumes at the start of the fourth frame (frame offsets 0, 417, 834, 1252), with a fresh decoder.
    expect(mem.audio.decoders).toBe(2);
    const resumed = mem.audio.decoded.slice(decodedBefore);
    expect(resumed[0]).toEqual(mp3Bytes(40).subarray(1252, 1252 + 417));
    expect(resumed.length).toBe(40 - 3);
    expect(mem.audio.samples[0]![0]).toBe(1);
    expect(pcmFrames(mem)).toBe(queued);
    device.stop();
  });

  it('the media tools, PLAY and MEDIATEST', async () => {
    const { mem, device } = start();
    put(mem, 'a.wav', wavBytes({ seconds: 3 }));
    const call = (n: string, a: Record<string, unknown> = {}) => device.tools.call(n, a, OWNER);
    expect((await call('media.play', { name: 'a' })).output).toBe('Playing a.wav.');
    expect((await call('media.pause')).success).toBe(true);
    expect((await call('media.pause')).error).toBe('Already paused.');
    expect((await call('media.stop')).output).toBe('Stopped; the queue is cleared.');
    expect(await consoleLine(mem, 'PLAY')).toBe('Playing a.wav.\r\nOK\r\n');
    expect(await consoleLine(mem, 'MEDIATEST')).toBe('ERR music is playing: PLAY stop first\r\n');
    expect(await consoleLine(mem, 'PLAY pause')).toMatch(/^Paused a\.wav at [\d.]+ s\.\r\nOK/);
    expect(await consoleLine(mem, 'PLAY stop')).toBe('Stopped; the queue is cleared.\r\nOK\r\n');
    expect(await consoleLine(mem, 'PLAY zzz')).toBe('ERR No track in /music matches "zzz".\r\n');
    expect(await consoleLine(mem, 'MEDIATEST')).toBe('tone=ok frames=6000 rate=24000 peak=13000\r\nmp3=yes decoded=1152\r\nmusic=1 wav=1 mp3=0 skipped=0\r\nOK\r\n');
    device.stop();
  });

  it('without a card PLAY says so', async () => {
    const { mem, device } = start({ sd: { present: false } });
    expect(await consoleLine(mem, 'PLAY')).toBe('ERR No SD card: music plays from the card\'s /music folder.\r\n');
    device.stop();
  });
});

describe('Add music (POST /api/music)', () => {
  it('accepts .wav and .mp3, refuses other files and unplayable content with a note, and says so without a card', async () => {
    const { mem, device } = start();
    const ok = await upload(mem, 'My Song.wav', wavBytes({ seconds: 0.1 }));
    expect(ok).toMatchObject({ status: 200, json: { name: 'My Song.wav', kind: 'wav', playable: true } });
    expect(mem.sd.stat('/music/My Song.wav')!.size).toBe(wavBytes({ seconds: 0.1 }).length);
    expect((await upload(mem, 'tune.mp3', mp3Bytes(4))).json).toMatchObject({ name: 'tune.mp3', kind: 'mp3' });
    const txt = await upload(mem, 'notes.txt', new TextEncoder().encode('hello'));
    expect(txt).toMatchObject({ status: 415, json: { error: 'not-music', message: 'notes.txt: only .wav and .mp3 files can be added.' } });
    const bad = await upload(mem, 'fake.mp3', new TextEncoder().encode('not really'));
    expect(bad.status).toBe(415);
    expect(bad.json['message']).toMatch(/^fake\.mp3 cannot play/);
    expect(mem.sd.list('/music').map((e) => e.name)).toEqual(['My Song.wav', 'tune.mp3']);
    mem.sd.pull();
    const none = await upload(mem, 'x.wav', wavBytes({ seconds: 0.1 }));
    expect(none).toMatchObject({ status: 409, json: { error: 'no-card', message: 'No SD card: music is kept on the card. Insert one and try again.' } });
    device.stop();
  });
});

describe('Add music, streamed to the card', () => {
  const B = 'b0undary';
  const enc = new TextEncoder();
  function body(filename: string, data: Uint8Array): Uint8Array {
    const head = enc.encode(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = enc.encode(`\r\n--${B}--\r\n`);
    const out = new Uint8Array(head.length + data.length + tail.length);
    out.set(head);
    out.set(data, head.length);
    out.set(tail, head.length + data.length);
    return out;
  }
  const requestHead = (length: number): Uint8Array =>
    enc.encode(`POST /api/music HTTP/1.1\r\nHost: d\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary=${B}\r\nContent-Length: ${length}\r\n\r\n`);
  async function settle(): Promise<void> {
    for (let i = 0; i < 30; i++) await flushJobs();
  }
  const names = (mem: MemHal): string[] => (mem.sd.stat('/music') ? mem.sd.list('/music').map((e) => e.name) : []);

  it('writes the track as it arrives, lists it only once complete, and leaves nothing when the connection drops', async () => {
    const { mem, device } = start();
    const wav = wavBytes({ seconds: 1 });
    const b = body('Long.wav', wav);
    const s = mem.net.client(HTTP_PORT);
    s.send(requestHead(b.length));
    s.send(b.subarray(0, 30_000));
    await settle();
    // On the card already, under a name no listing shows; not a track yet.
    const temp = names(mem);
    expect(temp).toHaveLength(1);
    expect(temp[0]).toMatch(/^\.upload-\d+\.part$/);
    expect(mem.sd.stat(`/music/${temp[0]}`)!.size).toBeGreaterThan(20_000);
    expect(device.music.tracks()).toEqual([]);
    s.send(b.subarray(30_000));
    await settle();
    expect(JSON.parse(parseResponses(s.text())[0]!.body)).toEqual({ name: 'Long.wav', size: wav.length, kind: 'wav', playable: true });
    expect(names(mem)).toEqual(['Long.wav']);
    expect([...mem.sd.read('/music/Long.wav', 0, wav.length)]).toEqual([...wav]);

    // Cut off mid-body: no file, no track.
    const c = mem.net.client(HTTP_PORT);
    c.send(requestHead(b.length));
    c.send(b.subarray(0, 25_000));
    await settle();
    expect(names(mem)).toHaveLength(2);
    c.destroy();
    await settle();
    expect(names(mem)).toEqual(['Long.wav']);
    expect(device.music.tracks().map((t) => t.name)).toEqual(['Long.wav']);
    device.stop();
  });

  it('refuses a track over the card\'s free space before writing it (from Content-Length) and during, in the existing words, leaving nothing', async () => {
    const { mem, device } = start();
    const wav = wavBytes({ seconds: 1 });
    const b = body('Big.wav', wav);
    const probe = mem.sd.probe.bind(mem.sd);
    mem.sd.probe = () => ({ ...probe(), freeBytes: 10_000 });
    const s = mem.net.client(HTTP_PORT);
    s.send(requestHead(b.length));
    s.send(b.subarray(0, 200));
    await settle();
    // Answered before the body: nothing of it was written.
    const [early] = parseResponses(s.text());
    expect(early).toMatchObject({ status: 409 });
    expect(JSON.parse(early!.body)).toEqual({ error: 'card-full', message: `The SD card is full: Big.wav (${wav.length} bytes) did not fit.` });
    expect(names(mem)).toEqual([]);
    s.send(b.subarray(200));
    await settle();
    expect(s.closed).toBe(true);

    // Without a length (chunked), the free space is judged as the bytes come.
    const c = mem.net.client(HTTP_PORT);
    c.send(enc.encode(`POST /api/music HTTP/1.1\r\nHost: d\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary=${B}\r\nTransfer-Encoding: chunked\r\n\r\n`));
    for (let at = 0; at < b.length; at += 4096) {
      const piece = b.subarray(at, Math.min(b.length, at + 4096));
      c.send(enc.encode(`${piece.length.toString(16)}\r\n`));
      c.send(piece);
      c.send(enc.encode('\r\n'));
    }
    c.send(enc.encode('0\r\n\r\n'));
    await settle();
    const [during] = parseResponses(c.text());
    expect(during).toMatchObject({ status: 409 });
    expect(JSON.parse(during!.body).message).toMatch(/^The SD card is full: Big\.wav \(\d+ bytes\) did not fit\.$/);
    expect(names(mem)).toEqual([]);

    // A card that fills up mid-write (ENOSPC): the same words, nothing left.
    mem.sd.probe = probe;
    mem.sd.failNextWrite = 'ENOSPC';
    const full = await upload(mem, 'Full.wav', wav);
    expect(full).toMatchObject({ status: 409, json: { error: 'card-full' } });
    expect(full.json['message']).toMatch(/^The SD card is full: Full\.wav \(\d+ bytes\) did not fit\.$/);
    expect(names(mem)).toEqual([]);
    device.stop();
  });

  it('refuses unplayable content and a card pulled mid-upload, leaving nothing; clears a cut upload\'s leftover at start', async () => {
    const { mem, device } = start();
    const notWav = new Uint8Array(20_000).fill(3);
    expect(await upload(mem, 'fake.wav', notWav)).toMatchObject({ status: 415, json: { error: 'not-music' } });
    expect(names(mem)).toEqual([]);

    const wav = wavBytes({ seconds: 1 });
    const b = body('Pulled.wav', wav);
    const s = mem.net.client(HTTP_PORT);
    s.send(requestHead(b.length));
    s.send(b.subarray(0, 20_000));
    await settle();
    mem.sd.pull();
    s.send(b.subarray(20_000, 40_000));
    await settle();
    expect(JSON.parse(parseResponses(s.text())[0]!.body)).toEqual({ error: 'no-card', message: 'The SD card was removed during the upload; nothing was added.' });
    mem.sd.insert();
    device.stop();
    // The pulled card kept the temporary file (hidden from the listing); the next start clears it.
    expect(names(mem)).toEqual([expect.stringMatching(/^\.upload-\d+\.part$/)]);
    expect(device.music.tracks()).toEqual([]);
    const again = start({}, mem);
    expect(names(mem)).toEqual([]);
    again.device.stop();
  });
});
