// The device host's microphone (hosts/esp32/hal/mic.ts) over a fake of the
// SDK's ECMA-419 AudioIn (embedded:io/audio/in, the class's shape from the
// SDK 8.2.3 typings and modules/io/audioin/esp32/audioin.js): ring-tft's
// INMP441 records 16 kHz mono as the recorder asks, in the samples the driver
// hands over; panel-35's ES8311 is a microphone only with its codec, whose
// ADC is switched on for a capture and off after; boards without a microphone
// report none. The board manifests' audioIn defines (the driver's build-time
// I2S configuration) agree with board.json.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BOARD_DESCRIPTORS } from '../../boards/index.ts';
import { createMic, type SdkAudioIn, type SdkAudioInClass } from '../../hosts/esp32/hal/mic.ts';
import { Recorder } from '../../src/audio/mic.ts';
import { DEVICE_TYPES } from '../../src/hal/index.ts';
import { VirtualClock } from '../support/clock.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function fakeAudioIn() {
  const made: Array<{ options: { sampleRate: number; channels: number; bitsPerSample: number }; started: boolean; closed: boolean; held: Int16Array[]; readable: () => void }> = [];
  class FakeAudioIn implements SdkAudioIn {
    private rec: (typeof made)[number];
    constructor(options: { sampleRate: number; channels: 1 | 2; bitsPerSample: 16; onReadable?: (this: SdkAudioIn, n: number) => void }) {
      this.rec = { options, started: false, closed: false, held: [], readable: () => options.onReadable?.call(this, this.rec.held.reduce((n, c) => n + c.byteLength, 0) * 2) };
      made.push(this.rec);
    }
    read(): ArrayBuffer {
      const n = this.rec.held.reduce((k, c) => k + c.length, 0);
      const out = new Int16Array(n);
      let at = 0;
      for (const c of this.rec.held.splice(0)) {
        out.set(c, at);
        at += c.length;
      }
      return n ? out.buffer : (undefined as unknown as ArrayBuffer);
    }
    start(): void {
      this.rec.started = true;
    }
    stop(): void {
      this.rec.started = false;
    }
    close(): void {
      this.rec.closed = true;
    }
  }
  return { AudioIn: FakeAudioIn as SdkAudioInClass, made };
}

describe('the device microphone (embedded:io/audio/in)', () => {
  it("ring-tft's INMP441: MICREC's recorder gets 16 kHz mono samples as the driver hands them over; stop closes the input", async () => {
    const { AudioIn, made } = fakeAudioIn();
    const mic = createMic(BOARD_DESCRIPTORS['ring-tft'], AudioIn);
    expect(mic.present).toBe(true);
    const clock = new VirtualClock();
    const rec = new Recorder(mic, clock, () => false);
    const done = rec.capture(200);
    expect(made[0]!.options).toEqual(expect.objectContaining({ sampleRate: 16000, channels: 1, bitsPerSample: 16 }));
    expect(made[0]!.started).toBe(true);
    for (let k = 0; k < 4; k++) {
      made[0]!.held.push(Int16Array.from({ length: 800 }, (_, i) => (i % 2 ? 1000 : -1000)));
      made[0]!.readable();
    }
    const r = await done;
    expect(r).toMatchObject({ ok: true, complete: true, rate: 16000 });
    expect(r.ok && r.pcm.length).toBe(3200);
    expect(made[0]!.closed).toBe(true);
    // nothing to read: the driver's read() answers undefined and nothing is passed on
    const again = rec.capture(200);
    made[1]!.readable();
    await clock.advance(3000);
    expect(await again).toMatchObject({ ok: true, complete: false });
  });

  it("panel-35's ES8311 is a microphone only with its codec: the ADC goes on for a capture and off after", () => {
    const { AudioIn, made } = fakeAudioIn();
    expect(createMic(BOARD_DESCRIPTORS['panel-35'], AudioIn).present).toBe(false);
    const adc: boolean[] = [];
    const mic = createMic(BOARD_DESCRIPTORS['panel-35'], AudioIn, { codec: { enableAdc: (on) => adc.push(on) } });
    expect(mic.present).toBe(true);
    mic.start({ sampleRate: 16000, channels: 1 });
    expect(made).toHaveLength(1);
    mic.stop();
    mic.stop();
    expect(adc).toEqual([true, false]);
  });

  it('an input that does not open leaves the microphone stopped, says why, and turns the ADC back off; no SDK class: no microphone', () => {
    const logs: string[] = [];
    const adc: boolean[] = [];
    const Broken = class {
      constructor() {
        throw new Error('i2s port 1 in use');
      }
    } as unknown as SdkAudioInClass;
    const mic = createMic(BOARD_DESCRIPTORS['panel-35'], Broken, { codec: { enableAdc: (on) => adc.push(on) }, log: (m) => logs.push(m) });
    mic.start({ sampleRate: 16000, channels: 1 });
    expect(adc).toEqual([true, false]);
    expect(logs[0]).toMatch(/did not open \(Error: i2s port 1 in use\)/);
    expect(createMic(BOARD_DESCRIPTORS['ring-tft'], undefined).present).toBe(false);
  });

  it("each board's manifest configures the audio input's I2S from board.json's audio.mic", () => {
    for (const board of DEVICE_TYPES) {
      const d = BOARD_DESCRIPTORS[board];
      const m = JSON.parse(readFileSync(join(ROOT, 'boards', board, 'manifest.json'), 'utf8')) as { platforms: { esp32: { include: string[]; defines: Record<string, unknown> } } };
      const def = m.platforms.esp32.defines['audioIn'] as { i2s: Record<string, number>; numChannels: number; sampleRate: number; bitsPerSample: number } | undefined;
      const mic = d.audio?.mic;
      if (!mic || !['inmp441', 'es8311'].includes(mic.driver)) {
        expect(def, board).toBeUndefined();
        continue;
      }
      const p = mic.i2s as Record<string, number>;
      expect(m.platforms.esp32.include, board).toContain('$(MODDABLE)/modules/io/audioin/manifest.json');
      // port 1 (the speaker has port 0); slot 1 = I2S_STD_SLOT_LEFT (the INMP441's L/R tied low, the ES8311's ADC on the left)
      expect(def, board).toEqual({ i2s: { num: 1, bck_pin: p['bclk'], lr_pin: p['ws'] ?? p['lrclk'], datain: p['din'], ...(p['mclk'] !== undefined ? { mck_pin: p['mclk'] } : {}), slot: 1 }, numChannels: 1, sampleRate: 16000, bitsPerSample: 16 });
    }
  });
});
