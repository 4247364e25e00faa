// Boots the whole device: the speaker is exercised as main.ts wires it to the device host's audio.
// The device's speaker (hosts/esp32/hal/audio.ts) on a stand-in for the
// Moddable SDK's AudioOut that keeps its documented rules (pins/audioout:
// a fixed queue of elements per stream, RawSamples buffers played by
// reference and non-relocatable, Callback ids after the samples before
// them, Flush, Volume): chunks wait for queue room, callbacks count what was
// heard and ask for more, stop forgets everything; panel-35 speaks through its
// ES8311 (clock set per rate, DAC on while a stream plays, the codec's volume);
// the MP3 decoder's natives (a stand-in keeping modules/mp3/xs_mp3.c's contract) give the player
// mono PCM; the music player plays a WAV to the last sample and, where the
// decoder is not linked, skips MP3 saying why.
import { describe, expect, it } from 'vitest';
import { BOARD_DESCRIPTORS } from '../../boards/index.ts';
import { createAudioOut, type OutputCodec } from '../../hosts/esp32/hal/audio.ts';
import { mp3Native, type NativeMp3 } from '../../modules/mp3/mp3.ts';
import { createMic, sharesClockPins, type SdkAudioIn, type SdkAudioInClass } from '../../hosts/esp32/hal/mic.ts';
import type { AudioOut } from '../../src/hal/index.ts';
import { boot, HTTP_PORT } from '../../src/main.ts';
import { NO_MP3 } from '../../src/music/player.ts';
import { mp3Bytes, wavBytes } from '../support/audio-files.ts';
import { flushJobs } from '../support/clock.ts';
import { request } from '../support/http.ts';
import { createMemHal } from '../support/memhal.ts';

type Element = { kind: 'samples'; pcm: Int16Array; at: number } | { kind: 'callback'; id: number } | { kind: 'volume'; level: number };

/** The SDK's AudioOut as documentation/pins/audioout.md and modules/pins/i2s/audioout.c describe it. */
class SdkAudioOut {
  static readonly Samples = 1;
  static readonly Flush = 2;
  static readonly Callback = 3;
  static readonly Volume = 4;
  static readonly RawSamples = 5;
  static QUEUE = 16;
  static made: SdkAudioOut[] = [];
  queue: Element[] = [];
  /** What reached the I2S pins, with the volume it played at. */
  heard: number[] = [];
  volume = 256;
  started = false;
  closed = false;
  callback?: (id: number) => void;
  constructor(readonly options: { sampleRate: number; bitsPerSample: 16; numChannels: 1 | 2; streams: number }) {
    SdkAudioOut.made.push(this);
  }
  length(): number {
    return SdkAudioOut.QUEUE - this.queue.length;
  }
  enqueue(stream: number, kind: number, buffer?: ArrayBufferLike | number, repeat = 1, offset = 0, count?: number): void {
    if (this.closed) throw new Error('closed');
    if (stream !== 0) throw new RangeError('invalid stream');
    if (kind === SdkAudioOut.Flush) {
      const callbacks = this.queue.filter((e) => e.kind === 'callback');
      this.queue = [];
      for (const c of callbacks) this.callback?.(c.id);
      return;
    }
    if (this.queue.length === SdkAudioOut.QUEUE) throw new Error('queue full');
    if (kind === SdkAudioOut.RawSamples) {
      if (!(buffer instanceof SharedArrayBuffer)) throw new Error('non-relocatable block required');
      if (repeat !== 1) throw new Error('the device plays each chunk once');
      const ch = this.options.numChannels;
      const all = new Int16Array(buffer);
      this.queue.push({ kind: 'samples', pcm: all.subarray(offset * ch, count === undefined ? all.length : (offset + count) * ch), at: 0 });
    } else if (kind === SdkAudioOut.Callback) this.queue.push({ kind: 'callback', id: buffer as number });
    else if (kind === SdkAudioOut.Volume) {
      if (!this.queue.length) this.volume = buffer as number;
      else this.queue.push({ kind: 'volume', level: buffer as number });
    } else throw new Error('bad kind');
  }
  start(): void {
    this.started = true;
  }
  stop(): void {
    this.started = false;
  }
  close(): void {
    this.closed = true;
  }
  /** The I2S task mixes `frames` frames (callbacks as they come due). */
  play(frames: number): void {
    const ch = this.options.numChannels;
    let left = frames * ch;
    while (this.queue.length) {
      const e = this.queue[0]!;
      if (e.kind === 'callback') {
        this.queue.shift();
        this.callback?.(e.id);
      } else if (e.kind === 'volume') {
        this.queue.shift();
        this.volume = e.level;
      } else {
        if (left <= 0) break;
        const n = Math.min(left, e.pcm.length - e.at);
        for (let i = 0; i < n; i++) this.heard.push((e.pcm[e.at + i]! * this.volume) >> 8);
        e.at += n;
        left -= n;
        if (e.at === e.pcm.length) this.queue.shift();
      }
    }
  }
}

const ringTft = BOARD_DESCRIPTORS['ring-tft'];

/** The natives of modules/mp3/xs_mp3.c as it behaves: needs 1152 samples of room; -1 when no frame starts the input; a closed decoder throws. */
class NativeMp3Fake implements NativeMp3 {
  opened = 0;
  closed = 0;
  mp3Open(): object {
    this.opened++;
    return { frames: 0, open: true };
  }
  mp3Decode(decoder: object, input: Uint8Array, out: Int16Array): number {
    const d = decoder as { frames: number; open: boolean };
    if (!d.open) throw new TypeError('mp3: not an open decoder');
    if (out.length < 1152) throw new RangeError('mp3: output too small');
    if (input[0] !== 0xff || (input[1]! & 0xe0) !== 0xe0) return -1;
    d.frames++;
    out.fill(d.frames * 10, 0, 1152);
    return 1152;
  }
  mp3Close(decoder: object): void {
    (decoder as { open: boolean }).open = false;
    this.closed++;
  }
}

class CodecFake implements OutputCodec {
  log: string[] = [];
  setRate(fs: number): void {
    this.log.push(`rate ${fs}`);
  }
  enableDac(on: boolean): void {
    this.log.push(`dac ${on}`);
  }
  setVolume(level: number): void {
    this.log.push(`volume ${level}`);
  }
}

function fresh(): AudioOut {
  SdkAudioOut.made = [];
  SdkAudioOut.QUEUE = 16;
  return createAudioOut(ringTft, SdkAudioOut);
}

const pcm = (n: number, from: number): Int16Array => Int16Array.from({ length: n }, (_, i) => from + i);

describe('the device speaker on the SDK AudioOut', () => {
  it('is present on every board: the amplifier boards as they are, panel-35 through its codec (absent when the codec did not answer); MP3 where the decoder is linked', () => {
    expect(createAudioOut(BOARD_DESCRIPTORS['panel-35'], SdkAudioOut).present).toBe(false);
    expect(createAudioOut(BOARD_DESCRIPTORS['panel-35'], SdkAudioOut, { codec: new CodecFake() }).present).toBe(true);
    expect(createAudioOut(ringTft, undefined).present).toBe(false);
    for (const board of ['ring-tft', 'panel-28', 'panel-40'] as const) {
      const a = createAudioOut(BOARD_DESCRIPTORS[board], SdkAudioOut);
      expect(a.present, board).toBe(true);
      expect(a.codecs).toEqual([]);
      expect(a.openDecoder).toBeUndefined();
      const m = createAudioOut(BOARD_DESCRIPTORS[board], SdkAudioOut, { openMp3: mp3Native(new NativeMp3Fake()) });
      expect(m.codecs).toEqual(['mp3']);
    }
  });

  it('panel-35: the codec takes the stream\'s rate before the bit clock starts, its DAC plays while a stream is open, and the volume is the codec\'s', () => {
    SdkAudioOut.made = [];
    const codec = new CodecFake();
    const audio = createAudioOut(BOARD_DESCRIPTORS['panel-35'], SdkAudioOut, { codec });
    audio.setVolume(70);
    audio.start({ sampleRate: 24000, channels: 1 });
    const out = SdkAudioOut.made[0]!;
    expect(out.volume).toBe(256); // the samples pass at full scale; the codec attenuates
    audio.write(Int16Array.of(1000, -1000));
    out.play(10);
    expect(out.heard).toEqual([1000, -1000]);
    audio.stop();
    expect(codec.log).toEqual(['volume 70', 'rate 24000', 'dac true', 'dac false']);
  });

  it('decodes MP3 frames with the native decoder into mono PCM, one decoder per stream, closed after', () => {
    const natives = new NativeMp3Fake();
    const audio = createAudioOut(ringTft, SdkAudioOut, { openMp3: mp3Native(natives) });
    const d = audio.openDecoder!('mp3');
    const frame = new Uint8Array(417 + 8);
    frame.set([0xff, 0xfb, 0x90, 0x00]);
    const out = new Int16Array(1152 * 2);
    expect(d.decode(frame, out)).toBe(1152);
    expect(d.decode(frame, out.subarray(1152))).toBe(1152);
    expect([out[0], out[1151], out[1152], out[2303]]).toEqual([10, 10, 20, 20]);
    expect(d.decode(new Uint8Array(425), out)).toBe(0); // no frame there
    d.close();
    expect([natives.opened, natives.closed]).toEqual([1, 1]);
    expect(() => d.decode(frame, out)).toThrow(/closed/);
  });

  it('makes an output of the stream\'s format, queues chunks while the SDK queue has room, and counts what was heard', () => {
    const audio = fresh();
    let needs = 0;
    audio.onNeed = () => void needs++;
    audio.start({ sampleRate: 22050, channels: 1 });
    const out = SdkAudioOut.made[0]!;
    expect(out.options).toEqual({ sampleRate: 22050, bitsPerSample: 16, numChannels: 1, streams: 1 });
    expect(out.started).toBe(true);
    for (let i = 0; i < 12; i++) audio.write(pcm(1000, i * 1000));
    // 16 elements hold 8 chunks (samples and callback each); 4 wait in the HAL
    expect(out.queue.length).toBe(16);
    expect(audio.queued).toBe(12000);
    out.play(3500);
    expect(audio.queued).toBe(9000);
    expect(needs).toBe(3);
    expect(out.queue.filter((e) => e.kind === 'callback')).toHaveLength(8); // the waiting chunks moved up
    out.play(100_000);
    expect(audio.queued).toBe(0);
    expect(out.heard).toEqual(Array.from(pcm(12000, 0)));
  });

  it('copies each write (the caller may reuse its buffer) and keeps stereo frames whole', () => {
    const audio = fresh();
    audio.start({ sampleRate: 44100, channels: 2 });
    const out = SdkAudioOut.made[0]!;
    const buf = pcm(10, 1);
    audio.write(buf);
    buf.fill(0);
    audio.write(pcm(5, 100)); // 2 whole frames; the odd sample is dropped
    expect(audio.queued).toBe(7);
    out.play(100);
    expect(out.heard).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 101, 102, 103]);
    expect(audio.queued).toBe(0);
  });

  it('stop flushes, stops and closes the output; its late callbacks change nothing; start makes a new one', () => {
    const audio = fresh();
    let needs = 0;
    audio.onNeed = () => void needs++;
    audio.start({ sampleRate: 16000, channels: 1 });
    const first = SdkAudioOut.made[0]!;
    for (let i = 0; i < 10; i++) audio.write(pcm(500, 0));
    audio.stop();
    expect(first).toMatchObject({ closed: true, started: false, queue: [] });
    expect(audio.queued).toBe(0);
    expect(needs).toBe(0);
    audio.write(pcm(10, 0)); // no stream: nothing queued
    expect(audio.queued).toBe(0);
    audio.start({ sampleRate: 48000, channels: 2 });
    expect(SdkAudioOut.made).toHaveLength(2);
    expect(SdkAudioOut.made[1]!.options).toMatchObject({ sampleRate: 48000, numChannels: 2 });
  });

  it('sets the volume (0-100 to the SDK\'s 0-256) at once on a new output and after what is queued on a running one', () => {
    const audio = fresh();
    audio.setVolume(50);
    audio.start({ sampleRate: 16000, channels: 1 });
    const out = SdkAudioOut.made[0]!;
    expect(out.volume).toBe(128);
    audio.write(Int16Array.of(1000, 1000));
    audio.setVolume(100);
    audio.write(Int16Array.of(1000));
    out.play(10);
    expect(out.heard).toEqual([500, 500, 1000]);
  });
});

describe('music on the device speaker', () => {
  it('plays a WAV to its last sample and skips an MP3, saying the device cannot decode it', async () => {
    const mem = createMemHal();
    (mem.hal as { audio: AudioOut }).audio = fresh();
    const device = boot(mem.hal);
    const wav = wavBytes({ rate: 16000, seconds: 1.2 });
    mem.sd.mkdir('/music');
    for (const [name, bytes] of [['a-tune.mp3', mp3Bytes(8)], ['b-tone.wav', wav]] as const) {
      const f = mem.sd.open(`/music/${name}`, 'w');
      f.write(bytes);
      f.sync();
      f.close();
    }
    const r = await request(mem.net, HTTP_PORT, 'GET', '/api/music', { headers: { 'X-Device-Token': device.ctx.token.reveal() } });
    const listing = JSON.parse(r.body) as { mp3: boolean; tracks: Array<{ name: string; playable: boolean; reason: string | null }> };
    expect(listing.mp3).toBe(false);
    expect(listing.tracks).toEqual([
      expect.objectContaining({ name: 'a-tune.mp3', playable: false, reason: NO_MP3 }),
      expect.objectContaining({ name: 'b-tone.wav', playable: true }),
    ]);
    expect(device.ctx.music.command('').message).toBe(`Playing b-tone.wav. Skipped (${NO_MP3}): a-tune.mp3.`);
    expect(device.ctx.music.command('a-tune').message).toBe(`a-tune.mp3 cannot play: ${NO_MP3}.`);
    const out = SdkAudioOut.made.at(-1)!;
    for (let i = 0; i < 40 && device.ctx.music.status().state !== 'idle'; i++) {
      out.play(1600); // 0.1 s at 16 kHz
      await mem.clock.advance(100);
      await flushJobs();
    }
    expect(device.ctx.music.status()).toMatchObject({ state: 'idle', played: 1 });
    const samples = new Int16Array(wav.buffer.slice(44));
    expect(out.heard.length).toBe(samples.length);
    expect(out.heard.every((v, i) => v === samples[i])).toBe(true);
    device.stop();
  });
});

describe("panel-35's shared I2S clock pins (the SDK's AudioIn and AudioOut are each an I2S master: one at a time)", () => {
  class FakeAudioIn implements SdkAudioIn {
    static made: FakeAudioIn[] = [];
    /** How many SDK outputs were open when this input opened. */
    readonly outputsOpen = SdkAudioOut.made.filter((o) => !o.closed).length;
    closed = false;
    constructor(readonly options: { sampleRate: number; channels: 1 | 2; bitsPerSample: 16 }) {
      FakeAudioIn.made.push(this);
    }
    read(): ArrayBuffer {
      return new ArrayBuffer(0);
    }
    start(): void {}
    stop(): void {}
    close(): void {
      this.closed = true;
    }
  }

  it('only panel-35 shares them (BCLK 13, LRCK 15 for both); the other boards keep mic and speaker apart', () => {
    expect(sharesClockPins(BOARD_DESCRIPTORS['panel-35'])).toBe(true);
    for (const board of ['ring-tft', 'panel-28', 'panel-40'] as const) expect(sharesClockPins(BOARD_DESCRIPTORS[board]), board).toBe(false);
  });

  it('a capture closes the playing speaker first and sets the codec to 16 kHz; after it, the speaker opens again at its rate and asks for samples', () => {
    SdkAudioOut.made = [];
    FakeAudioIn.made = [];
    const codec = new (class extends CodecFake {
      enableAdc(on: boolean): void {
        this.log.push(`adc ${on}`);
      }
    })();
    const d = BOARD_DESCRIPTORS['panel-35'];
    const audio = createAudioOut(d, SdkAudioOut, { codec });
    const mic = createMic(d, FakeAudioIn as unknown as SdkAudioInClass, { codec, clocks: { take: () => audio.suspend(), give: () => audio.resume() } });
    let needs = 0;
    audio.onNeed = () => void needs++;
    audio.start({ sampleRate: 24000, channels: 1 });
    audio.write(Int16Array.of(1, 2, 3));
    mic.start({ sampleRate: 16000, channels: 1 });
    expect(FakeAudioIn.made).toHaveLength(1);
    expect(FakeAudioIn.made[0]!.outputsOpen).toBe(0); // the speaker's I2S channel was closed before the input's opened
    expect(SdkAudioOut.made[0]!.closed).toBe(true);
    expect(audio.queued).toBe(0);
    // The mixer may start a stream while the microphone holds the pins: it waits.
    audio.start({ sampleRate: 24000, channels: 1 });
    expect(SdkAudioOut.made).toHaveLength(1);
    const before = needs;
    mic.stop();
    expect(SdkAudioOut.made).toHaveLength(2);
    expect(SdkAudioOut.made[1]!.options.sampleRate).toBe(24000);
    expect(SdkAudioOut.made[1]!.closed).toBe(false);
    expect(needs).toBe(before + 1);
    expect(codec.log).toEqual(['rate 24000', 'dac true', 'dac false', 'rate 16000', 'adc true', 'adc false', 'rate 24000', 'dac true']);
    // A capture with the speaker stopped opens nothing after it.
    audio.stop();
    mic.start({ sampleRate: 16000, channels: 1 });
    mic.stop();
    expect(SdkAudioOut.made).toHaveLength(2);
  });
});
