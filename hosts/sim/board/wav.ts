// WAV files (16-bit PCM): a streaming writer whose header is patched when it
// closes (and on every periodic flush), and a reader for the microphone feed.

import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

function header(sampleRate: number, channels: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

export class WavWriter {
  private fd: number;
  private bytes = 0;

  constructor(
    readonly path: string,
    readonly sampleRate: number,
    readonly channels: number,
  ) {
    this.fd = openSync(path, 'w');
    writeSync(this.fd, header(sampleRate, channels, 0), 0, 44, 0);
  }

  get frames(): number {
    return this.bytes / (2 * this.channels);
  }

  write(pcm: Buffer): void {
    if (this.fd < 0) return;
    writeSync(this.fd, pcm, 0, pcm.length, 44 + this.bytes);
    this.bytes += pcm.length;
  }

  /** Patches the sizes so the file plays even if the board dies later. */
  flushHeader(): void {
    if (this.fd >= 0) writeSync(this.fd, header(this.sampleRate, this.channels, this.bytes), 0, 44, 0);
  }

  close(): void {
    if (this.fd < 0) return;
    this.flushHeader();
    closeSync(this.fd);
    this.fd = -1;
  }
}

export interface WavData {
  sampleRate: number;
  channels: number;
  /** Interleaved 16-bit samples. */
  samples: Int16Array;
}

export function readWav(path: string): WavData {
  const b = readFileSync(path);
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') throw new Error(`${path} is not a WAV file`);
  let at = 12;
  let fmt: { channels: number; sampleRate: number; bits: number; format: number } | null = null;
  while (at + 8 <= b.length) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      fmt = { format: b.readUInt16LE(body), channels: b.readUInt16LE(body + 2), sampleRate: b.readUInt32LE(body + 4), bits: b.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!fmt || fmt.format !== 1 || fmt.bits !== 16) throw new Error(`${path}: only 16-bit PCM WAV is supported`);
      const end = Math.min(b.length, body + size) & ~1;
      const copy = Buffer.from(b.subarray(body, end));
      return { sampleRate: fmt.sampleRate, channels: fmt.channels, samples: new Int16Array(copy.buffer, copy.byteOffset, copy.length >> 1) };
    }
    at = body + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}
