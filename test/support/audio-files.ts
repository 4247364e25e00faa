// Small audio files for tests: a 16-bit PCM WAV of a tone, and an MP3 made
// of valid MPEG-1 Layer III frame headers (silent payload: enough for the
// firmware, which parses frames; the MP3 decoder decodes them to silence).

/** A PCM WAV of a 440 Hz tone: `seconds` long, or exactly `frames` frames (a file of a size chosen to the byte). */
export function wavBytes(options: { rate?: number; channels?: 1 | 2; seconds?: number; frames?: number; bits?: number; format?: number } = {}): Uint8Array {
  const rate = options.rate ?? 16000;
  const channels = options.channels ?? 1;
  const bits = options.bits ?? 16;
  const frames = options.frames ?? Math.round(rate * (options.seconds ?? 0.5));
  const block = channels * (bits / 8);
  const data = frames * block;
  const b = new Uint8Array(44 + data);
  const v = new DataView(b.buffer);
  const put = (at: number, s: string): void => {
    for (let i = 0; i < 4; i++) b[at + i] = s.charCodeAt(i);
  };
  put(0, 'RIFF');
  v.setUint32(4, 36 + data, true);
  put(8, 'WAVE');
  put(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, options.format ?? 1, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, rate * block, true);
  v.setUint16(32, block, true);
  v.setUint16(34, bits, true);
  put(36, 'data');
  v.setUint32(40, data, true);
  if (bits === 16) for (let i = 0; i < frames; i++) for (let c = 0; c < channels; c++) v.setInt16(44 + (i * channels + c) * 2, Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), true);
  return b;
}

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, stereo: frames of 417 bytes (418 padded), 1152 samples each. */
export function mp3Bytes(frames: number, options: { id3?: boolean } = {}): Uint8Array {
  const parts: number[] = [];
  if (options.id3) parts.push(0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 20, ...new Array<number>(20).fill(0));
  for (let i = 0; i < frames; i++) {
    const pad = i % 3 === 2 ? 1 : 0;
    parts.push(0xff, 0xfb, 0x90 | (pad << 1), 0x00);
    for (let k = 4; k < 417 + pad; k++) parts.push(0);
  }
  return Uint8Array.from(parts);
}
