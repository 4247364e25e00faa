// A streaming PNG encoder for frames leaving the device (the debug route):
// 8-bit RGB, no filtering, zlib "stored" blocks, so each band of rows becomes
// one IDAT chunk as it is drawn and no frame is ever held whole. The output
// is three times the pixel count, which the LAN carries easily; compressing
// would cost the device far more than sending.

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const MAX_STORED = 65535;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

export class PngStream {
  private adlerA = 1;
  private adlerB = 0;
  private started = false;
  private rowsDone = 0;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  /** Bytes of the whole file when bands of `bandRows` rows are written (Content-Length). */
  static size(width: number, height: number, bandRows: number): number {
    let n = SIGNATURE.length + 12 + 13 + 12;
    for (let y = 0; y < height; y += bandRows) {
      const raw = Math.min(bandRows, height - y) * (1 + 3 * width);
      n += 12 + 5 * Math.ceil(raw / MAX_STORED) + raw;
    }
    return n + 2 + 4;
  }

  /** The signature and the header chunk. */
  header(): Uint8Array {
    const ihdr = new Uint8Array(13);
    const v = new DataView(ihdr.buffer);
    v.setUint32(0, this.width);
    v.setUint32(4, this.height);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 2; // RGB
    const c = chunk('IHDR', ihdr);
    const out = new Uint8Array(SIGNATURE.length + c.length);
    out.set(SIGNATURE);
    out.set(c, SIGNATURE.length);
    return out;
  }

  /** One IDAT chunk for `rows` full rows of RGB565 pixels (the last band also closes the zlib stream). */
  band(pixels: Uint16Array, rows: number): Uint8Array {
    const w = this.width;
    const size = rows * (1 + 3 * w);
    // The rows as PNG wants them: a filter byte (0), then R, G, B per pixel.
    const raw = new Uint8Array(size);
    let o = 0;
    for (let y = 0; y < rows; y++) {
      raw[o++] = 0;
      for (let x = 0, i = y * w; x < w; x++, i++) {
        const p = pixels[i]!;
        const r5 = p >> 11;
        const g6 = (p >> 5) & 0x3f;
        const b5 = p & 0x1f;
        raw[o++] = (r5 << 3) | (r5 >> 2);
        raw[o++] = (g6 << 2) | (g6 >> 4);
        raw[o++] = (b5 << 3) | (b5 >> 2);
      }
    }
    let a = this.adlerA;
    let b = this.adlerB;
    for (let i = 0; i < size; i++) {
      a += raw[i]!;
      if (a >= 65521) a -= 65521;
      b += a;
      if (b >= 65521) b -= 65521;
    }
    this.adlerA = a;
    this.adlerB = b;
    this.rowsDone += rows;
    const last = this.rowsDone >= this.height;
    const blocks = Math.ceil(size / MAX_STORED);
    const head = this.started ? 0 : 2;
    const data = new Uint8Array(head + size + 5 * blocks + (last ? 4 : 0));
    o = 0;
    if (!this.started) {
      data[o++] = 0x78;
      data[o++] = 0x01;
      this.started = true;
    }
    for (let k = 0, at = 0; k < blocks; k++) {
      const len = Math.min(MAX_STORED, size - at);
      data[o++] = last && k === blocks - 1 ? 1 : 0;
      data[o++] = len & 0xff;
      data[o++] = len >>> 8;
      data[o++] = ~len & 0xff;
      data[o++] = (~len >>> 8) & 0xff;
      data.set(raw.subarray(at, at + len), o);
      o += len;
      at += len;
    }
    if (last) new DataView(data.buffer).setUint32(o, ((b << 16) | a) >>> 0);
    return chunk('IDAT', data);
  }

  end(): Uint8Array {
    return chunk('IEND', new Uint8Array(0));
  }
}
