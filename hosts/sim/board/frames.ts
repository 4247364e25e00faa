// The frame codec of the pipe between the board and the runtime
// (docs/sim-protocol.md, "Frames"): encoding, and a streaming decoder that
// copes with partial reads and multi-megabyte frames without quadratic copying.

export const FRAME_CALL = 1;
export const FRAME_REPLY = 2;
export const FRAME_SEND = 3;
export const FRAME_EVENT = 4;
export const FRAME_WARP = 5;

/** Same limit as the runtime (SIM_MAX_FRAME): larger length fields are malformed. */
export const MAX_FRAME = 256 * 1024 * 1024;
const HEADER = 13;

export interface Frame {
  kind: number;
  id: number;
  json: string;
  bin: Buffer;
}

export function encodeFrame(kind: number, id: number, json: string, bin?: Uint8Array): Buffer[] {
  const text = Buffer.from(json, 'utf8');
  const binLength = bin?.byteLength ?? 0;
  const head = Buffer.alloc(HEADER);
  head.writeUInt32LE(9 + text.length + binLength, 0);
  head.writeUInt8(kind, 4);
  head.writeUInt32LE(id >>> 0, 5);
  head.writeUInt32LE(text.length, 9);
  const parts: Buffer[] = [head, text];
  if (bin && binLength) parts.push(Buffer.isBuffer(bin) ? bin : Buffer.from(bin.buffer, bin.byteOffset, bin.byteLength));
  return parts;
}

/**
 * Accumulates bytes and yields complete frames. Throws on a malformed frame.
 * Linear in the bytes received however they are split (a queue of chunks
 * with a head index; a frame spanning chunks is copied once).
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private head = 0;
  private total = 0;

  push(chunk: Buffer): Frame[] {
    if (chunk.length) {
      this.chunks.push(chunk);
      this.total += chunk.length;
    }
    const frames: Frame[] = [];
    while (this.total >= 4) {
      const length = this.peekU32();
      if (length < 9 || length > MAX_FRAME) throw new Error(`malformed frame (length ${length})`);
      if (this.total < 4 + length) break;
      const whole = this.take(4 + length);
      const jsonLength = whole.readUInt32LE(9);
      if (jsonLength > length - 9) throw new Error(`malformed frame (json length ${jsonLength} in a frame of ${length})`);
      frames.push({
        kind: whole.readUInt8(4),
        id: whole.readUInt32LE(5),
        json: whole.toString('utf8', HEADER, HEADER + jsonLength),
        bin: whole.subarray(HEADER + jsonLength),
      });
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
    return frames;
  }

  /** Bytes received and not yet part of a complete frame. */
  get pending(): number {
    return this.total;
  }

  private peekU32(): number {
    const first = this.chunks[this.head]!;
    if (first.length >= 4) return first.readUInt32LE(0);
    const bytes = Buffer.alloc(4);
    let at = 0;
    for (let i = this.head; at < 4; i++) {
      const c = this.chunks[i]!;
      const n = Math.min(4 - at, c.length);
      c.copy(bytes, at, 0, n);
      at += n;
    }
    return bytes.readUInt32LE(0);
  }

  private take(n: number): Buffer {
    const first = this.chunks[this.head]!;
    this.total -= n;
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks[this.head++] = EMPTY;
      else this.chunks[this.head] = first.subarray(n);
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const c = this.chunks[this.head]!;
      const k = Math.min(n - at, c.length);
      c.copy(out, at, 0, k);
      at += k;
      if (k === c.length) this.chunks[this.head++] = EMPTY;
      else this.chunks[this.head] = c.subarray(k);
    }
    return out;
  }
}

const EMPTY = Buffer.alloc(0);
