// WAV for speech and recordings: a streaming reader for a text-to-speech
// answer (16-bit PCM, mono or stereo, any common rate; the RIFF and data
// sizes of a streamed answer may be 0 or 0xFFFFFFFF and are not trusted),
// a linear resampler to the speaker's rate, and a header for the WAV files
// the microphone's recordings are saved as.

const MAX_HEADER = 4096;

export interface WavFormat {
  sampleRate: number;
  channels: 1 | 2;
}

const ascii = (b: Uint8Array, at: number): string => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
const u16 = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/**
 * Feeds on the bytes of a WAV as they arrive and hands out mono samples at
 * the file's own rate. A header that is not 16-bit PCM sets `error`.
 */
export class WavReader {
  format: WavFormat | null = null;
  error: string | null = null;
  private head: Uint8Array | null = new Uint8Array(0);
  private carry: number[] = [];

  constructor(private readonly onPcm: (mono: Int16Array) => void) {}

  get inData(): boolean {
    return this.head === null && this.error === null;
  }

  /** Returns false once the stream is unusable (error set). */
  push(chunk: Uint8Array): boolean {
    if (this.error) return false;
    if (this.head !== null) {
      const joined = new Uint8Array(this.head.length + chunk.length);
      joined.set(this.head);
      joined.set(chunk, this.head.length);
      const start = this.parseHeader(joined);
      if (this.error) return false;
      if (start < 0) {
        if (joined.length > MAX_HEADER) return this.fail('the WAV header is too long');
        this.head = joined;
        return true;
      }
      this.head = null;
      chunk = joined.subarray(start);
    }
    this.samples(chunk);
    return true;
  }

  private fail(why: string): boolean {
    this.error = why;
    return false;
  }

  /** The offset of the first sample, or -1 while more header is needed. */
  private parseHeader(b: Uint8Array): number {
    if (b.length < 12) return -1;
    if (ascii(b, 0) !== 'RIFF' || ascii(b, 8) !== 'WAVE') {
      this.fail('the answer is not a WAV file');
      return -1;
    }
    let at = 12;
    while (at + 8 <= b.length) {
      const id = ascii(b, at);
      const size = u32(b, at + 4);
      const body = at + 8;
      if (id === 'data') {
        if (!this.format) {
          this.fail('the WAV has no fmt chunk before its data');
          return -1;
        }
        return body;
      }
      if (body + size > b.length) return -1;
      if (id === 'fmt ') {
        const tag = u16(b, body);
        const channels = u16(b, body + 2);
        const rate = u32(b, body + 4);
        const bits = u16(b, body + 14);
        if ((tag !== 1 && tag !== 0xfffe) || bits !== 16) {
          this.fail(`the WAV is not 16-bit PCM (format ${tag}, ${bits} bits)`);
          return -1;
        }
        if ((channels !== 1 && channels !== 2) || rate < 8000 || rate > 48000) {
          this.fail(`the WAV has ${channels} channels at ${rate} Hz`);
          return -1;
        }
        this.format = { sampleRate: rate, channels };
      }
      at = body + size + (size & 1);
    }
    return -1;
  }

  private samples(bytes: Uint8Array): void {
    const ch = this.format!.channels;
    const frameBytes = 2 * ch;
    // Bytes left over from the last chunk (a frame cut between two chunks) go first.
    let src = bytes;
    if (this.carry.length) {
      src = new Uint8Array(this.carry.length + bytes.length);
      src.set(this.carry);
      src.set(bytes, this.carry.length);
      this.carry = [];
    }
    const frames = Math.floor(src.length / frameBytes);
    for (let i = frames * frameBytes; i < src.length; i++) this.carry.push(src[i]!);
    if (!frames) return;
    const out = new Int16Array(frames);
    for (let f = 0; f < frames; f++) {
      const at = f * frameBytes;
      const l = (u16(src, at) << 16) >> 16;
      out[f] = ch === 1 ? l : Math.round((l + ((u16(src, at + 2) << 16) >> 16)) / 2);
    }
    this.onPcm(out);
  }
}

/** Linear interpolation from one rate to another, chunk by chunk (state kept between chunks). */
export class Resampler {
  private readonly step: number;
  /** Position of the next output sample, counted from the last sample of the previous chunk. */
  private pos = 0;
  private prev: number | null = null;

  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    this.step = from / to;
  }

  push(input: Int16Array): Int16Array {
    if (this.from === this.to) return input;
    const base = this.prev === null ? 0 : 1;
    const total = input.length + base;
    const at = (i: number): number => (i < base ? this.prev! : input[i - base]!);
    const out: number[] = [];
    let pos = this.pos;
    while (Math.floor(pos) + 1 < total) {
      const i = Math.floor(pos);
      const f = pos - i;
      out.push(Math.round(at(i) + (at(i + 1) - at(i)) * f));
      pos += this.step;
    }
    if (total > 0) {
      this.prev = at(total - 1);
      this.pos = pos - (total - 1);
    }
    return Int16Array.from(out);
  }
}

/** A 44-byte WAV header for 16-bit PCM. */
export function wavHeader(format: WavFormat, dataBytes: number): Uint8Array {
  const h = new Uint8Array(44);
  const v = new DataView(h.buffer);
  const tag = (at: number, s: string): void => {
    for (let i = 0; i < 4; i++) h[at + i] = s.charCodeAt(i);
  };
  tag(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  tag(8, 'WAVE');
  tag(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, format.channels, true);
  v.setUint32(24, format.sampleRate, true);
  v.setUint32(28, format.sampleRate * format.channels * 2, true);
  v.setUint16(32, format.channels * 2, true);
  v.setUint16(34, 16, true);
  tag(36, 'data');
  v.setUint32(40, dataBytes, true);
  return h;
}
