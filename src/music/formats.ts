// Music file formats the player recognises (spec: 16-bit PCM WAV and MP3
// play; unrecognised files are skipped):
//
//   WAV   RIFF/WAVE with a 'fmt ' chunk of PCM (format 1, or EXTENSIBLE with
//         the PCM sub-format), 16 bits, 1 or 2 channels, 8-48 kHz, and a
//         'data' chunk. The samples go to hal.audio as they are.
//   MP3   MPEG-1, -2 or -2.5 Layer III frames, after an optional ID3v2 tag.
//         The device's audio output decodes MP3 itself (AudioOut.codecs,
//         docs/decisions.md "Music"); the firmware parses frame headers to
//         recognise a file, hand whole frames over, count samples for pacing
//         and hold a position at a frame boundary.
//
// Parsers read through a `read(offset, length)` function so they work on the
// card and on bytes in RAM alike, and never throw on bad input.

export type Reader = (offset: number, length: number) => Uint8Array;

export interface WavInfo {
  kind: 'wav';
  sampleRate: number;
  channels: 1 | 2;
  dataStart: number;
  dataBytes: number;
  /** Samples per channel. */
  frames: number;
}

export interface Mp3Info {
  kind: 'mp3';
  sampleRate: number;
  channels: 1 | 2;
  /** Offset of the first frame. */
  firstFrame: number;
  /** Bytes from the first frame to the end (less an ID3v1 tag). */
  end: number;
  /** Samples per channel in one frame (1152 or 576). */
  frameSamples: number;
}

export type TrackInfo = WavInfo | Mp3Info;
export type Recognised = { ok: true; info: TrackInfo } | { ok: false; reason: string };

function u16(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8);
}
function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
}
function tag(b: Uint8Array, at: number, s: string): boolean {
  for (let i = 0; i < 4; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
}

const MAX_CHUNKS = 32;

export function parseWav(read: Reader, size: number): Recognised {
  const h = read(0, 12);
  if (h.length < 12 || !tag(h, 0, 'RIFF') || !tag(h, 8, 'WAVE')) return { ok: false, reason: 'not a RIFF/WAVE file' };
  let at = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number } | null = null;
  for (let n = 0; n < MAX_CHUNKS && at + 8 <= size; n++) {
    const c = read(at, 8);
    if (c.length < 8) break;
    const len = u32(c, 4);
    if (tag(c, 0, 'fmt ')) {
      const f = read(at + 8, Math.min(len, 40));
      if (f.length < 16) return { ok: false, reason: 'short fmt chunk' };
      let format = u16(f, 0);
      if (format === 0xfffe && f.length >= 26) format = u16(f, 24); // EXTENSIBLE: the sub-format's first two bytes
      fmt = { format, channels: u16(f, 2), rate: u32(f, 4), bits: u16(f, 14) };
    } else if (tag(c, 0, 'data')) {
      if (!fmt) return { ok: false, reason: 'data before fmt' };
      if (fmt.format !== 1) return { ok: false, reason: `WAV format ${fmt.format} is not PCM` };
      if (fmt.bits !== 16) return { ok: false, reason: `${fmt.bits}-bit WAV: only 16-bit PCM plays` };
      if (fmt.channels !== 1 && fmt.channels !== 2) return { ok: false, reason: `${fmt.channels} channels: only mono and stereo play` };
      if (fmt.rate < 8000 || fmt.rate > 48000) return { ok: false, reason: `sample rate ${fmt.rate} Hz is outside 8-48 kHz` };
      const dataBytes = Math.min(len, size - at - 8);
      const block = 2 * fmt.channels;
      return { ok: true, info: { kind: 'wav', sampleRate: fmt.rate, channels: fmt.channels as 1 | 2, dataStart: at + 8, dataBytes: dataBytes - (dataBytes % block), frames: Math.floor(dataBytes / block) } };
    }
    at += 8 + len + (len & 1);
  }
  return { ok: false, reason: 'no data chunk' };
}

export interface FrameHeader {
  /** Bytes in the frame, header included. */
  length: number;
  sampleRate: number;
  channels: 1 | 2;
  /** Samples per channel. */
  samples: number;
  /** 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5 (the header's bits). */
  version: number;
}

const BITRATE_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATE_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** A Layer III frame header at b[at], or null. Free-format frames are not supported. */
export function frameHeader(b: Uint8Array, at: number): FrameHeader | null {
  if (at + 4 > b.length) return null;
  const b1 = b[at + 1]!;
  const b2 = b[at + 2]!;
  if (b[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  if (version === 1 || layer !== 1) return null;
  const bi = b2 >> 4;
  const si = (b2 >> 2) & 3;
  if (bi === 0 || bi === 15 || si === 3) return null;
  const rate = RATES[version]![si]!;
  const kbps = (version === 3 ? BITRATE_V1 : BITRATE_V2)[bi]!;
  const pad = (b2 >> 1) & 1;
  const length = version === 3 ? Math.floor((144000 * kbps) / rate) + pad : Math.floor((72000 * kbps) / rate) + pad;
  return { length, sampleRate: rate, channels: b[at + 3]! >> 6 === 3 ? 1 : 2, samples: version === 3 ? 1152 : 576, version };
}

/** Skips an ID3v2 tag at the start (returns where audio starts). */
export function id3Skip(head: Uint8Array): number {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return 0;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
  return 10 + size + (head[5]! & 0x10 ? 10 : 0);
}

/** How far the first frame may be from the tag's end (junk or padding). */
const SYNC_SEARCH = 4096;

export function parseMp3(read: Reader, size: number): Recognised {
  const start = id3Skip(read(0, 10));
  const b = read(start, SYNC_SEARCH + 3 * 1441 + 4);
  for (let i = 0; i < Math.min(SYNC_SEARCH, b.length); i++) {
    const f = frameHeader(b, i);
    if (!f) continue;
    // Three frames in a row with the same stream parameters: an MP3, not a chance sync pattern.
    const g = frameHeader(b, i + f.length);
    const h = g ? frameHeader(b, i + f.length + g.length) : null;
    const same = (x: FrameHeader | null): boolean => !!x && x.version === f.version && x.sampleRate === f.sampleRate;
    const enough = start + i + f.length >= size || (same(g) && (start + i + f.length + g!.length >= size || same(h)));
    if (!enough) continue;
    let end = size;
    if (size >= 128) {
      const t = read(size - 128, 3);
      if (t[0] === 0x54 && t[1] === 0x41 && t[2] === 0x47) end = size - 128;
    }
    return { ok: true, info: { kind: 'mp3', sampleRate: f.sampleRate, channels: f.channels, firstFrame: start + i, end, frameSamples: f.samples } };
  }
  return { ok: false, reason: 'no MPEG Layer III frames found' };
}

/** Recognises a track by its extension, then its content. */
export function recognise(name: string, read: Reader, size: number): Recognised {
  const lower = name.toLowerCase();
  if (lower.endsWith('.wav')) return parseWav(read, size);
  if (lower.endsWith('.mp3')) return parseMp3(read, size);
  return { ok: false, reason: 'only .wav and .mp3 files play' };
}
