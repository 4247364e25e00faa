// Where an utterance goes while it is spoken: raw 16-bit PCM appended to the
// card (VOICE_PCM_PATH, in 4 KB writes), or without a card a bounded buffer
// in RAM (RAM_MAX_MS; the rest is dropped and the capture says it was cut).
// upload() gives it back as a WAV BodySource (the 44-byte header made from
// the final length, then the data read a chunk at a time), so the request
// to the transcription provider never holds the recording whole in the heap.

import type { SdCard } from '../hal/index.ts';
import type { BodySource } from '../net/http/client.ts';
import { wavHeader } from '../audio/index.ts';

export const VOICE_DIR = '/mem/rec';
export const VOICE_PCM_PATH = `${VOICE_DIR}/voice.pcm`;
/** The most sound kept in RAM without a card (16 kHz x 2 bytes x 6 s = 192 KB). */
export const RAM_MAX_MS = 6000;
const WRITE_CHUNK = 4096;
const READ_CHUNK = 4096;

export class UtteranceSink {
  private file: ReturnType<SdCard['open']> | null = null;
  private pending = new Uint8Array(WRITE_CHUNK);
  private fill = 0;
  private ram: Uint8Array | null = null;
  /** Bytes of PCM kept. */
  bytes = 0;
  cut = false;
  readonly where: 'card' | 'ram';

  constructor(
    private readonly sd: SdCard | null,
    private readonly rate: number,
    maxMs: number,
  ) {
    if (sd) {
      sd.mkdir(VOICE_DIR);
      this.file = sd.open(VOICE_PCM_PATH, 'w');
      this.where = 'card';
    } else {
      this.ram = new Uint8Array(Math.round((rate * Math.min(maxMs, RAM_MAX_MS)) / 1000) * 2);
      this.where = 'ram';
    }
  }

  write(pcm: Int16Array): void {
    const src = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    if (this.ram) {
      const n = Math.min(src.length, this.ram.length - this.bytes);
      if (n < src.length) this.cut = true;
      this.ram.set(src.subarray(0, n), this.bytes);
      this.bytes += n;
      return;
    }
    let at = 0;
    while (at < src.length) {
      const n = Math.min(src.length - at, WRITE_CHUNK - this.fill);
      this.pending.set(src.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill === WRITE_CHUNK) this.flush();
    }
  }

  private flush(): void {
    if (!this.file || !this.fill) return;
    this.file.write(this.pending.slice(0, this.fill));
    this.bytes += this.fill;
    this.fill = 0;
  }

  /** Ends the recording (the card's file synced and closed). */
  close(): void {
    if (!this.file) return;
    this.flush();
    this.file.sync();
    this.file.close();
    this.file = null;
  }

  ms(): number {
    return Math.round((this.bytes / 2 / this.rate) * 1000);
  }

  /** The recording as a WAV file, read a chunk at a time. */
  upload(): BodySource {
    this.close();
    const head = wavHeader({ sampleRate: this.rate, channels: 1 }, this.bytes);
    const total = this.bytes;
    const sd = this.sd;
    const ram = this.ram;
    let at = -1;
    return {
      length: head.length + total,
      next(): Uint8Array | null {
        if (at < 0) {
          at = 0;
          return head;
        }
        if (at >= total) return null;
        const n = Math.min(READ_CHUNK, total - at);
        const chunk = ram ? ram.subarray(at, at + n) : sd!.read(VOICE_PCM_PATH, at, n);
        if (chunk.length === 0) throw new Error('the recording on the card ended early');
        at += chunk.length;
        return chunk;
      },
      rewind(): void {
        at = -1;
      },
    };
  }
}
