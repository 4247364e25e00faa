// MP3 through the simulator runtime's decoder (modules/mp3: minimp3 through
// mp3mono.c, the C the device links), for tests and the benchmark: a real MP3
// made by an independent encoder (lamejs), and a standalone XS run that splits
// it into frames (src/music/formats.ts) and decodes each with __native.mp3Decode.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Mp3Encoder } from '@breezystack/lamejs';
import { build } from 'esbuild';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const XSIM = join(ROOT, 'build/sim/xsim');

/** Which XS build/sim/xsim was linked with (build/sim/xsim.xs, the Makefile's link stamp): 'sdk' (17.x) or 'xsnap' (13.3). */
export function xsimEngine(): string {
  const stamp = join(ROOT, 'build/sim/xsim.xs');
  return existsSync(stamp) ? readFileSync(stamp, 'utf8').split(' ')[0]! : 'none';
}

/** True when build/sim/xsim exists and has the MP3 decoder on __native (every runtime build does). */
export function xsimHasMp3(): boolean {
  if (!existsSync(XSIM)) return false;
  const out = runXs(`__sim.print(String(typeof __native !== 'undefined' && typeof __native.mp3Decode === 'function'));`);
  return out.trim() === 'true';
}

/**
 * A test signal (tones, a sweep and a little noise from a fixed seed, at
 * -6 dBFS times gain; in stereo each channel different, in mono the left
 * one), encoded by lamejs at kbps. frameSamples: 1152 (MPEG-1, 32 kHz and up)
 * or 576 (MPEG-2, below).
 */
export function encodedSignal(options: { seconds: number; rate?: number; kbps?: number; channels?: 1 | 2; gain?: number }): { mp3: Uint8Array; rate: number; frameSamples: number } {
  const rate = options.rate ?? 44100;
  const channels = options.channels ?? 2;
  const g = 16000 * (options.gain ?? 1);
  const n = Math.round(rate * options.seconds);
  const left = new Int16Array(n);
  const right = new Int16Array(n);
  let seed = 12345;
  const noise = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return (seed / 0x100000000) * 2 - 1;
  };
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const sweep = Math.sin(2 * Math.PI * (200 * t + 400 * t * t));
    left[i] = Math.round(g * (0.5 * Math.sin(2 * Math.PI * 440 * t) + 0.3 * sweep + 0.05 * noise()));
    right[i] = Math.round(g * (0.5 * Math.sin(2 * Math.PI * 659.25 * t) + 0.3 * Math.sin(2 * Math.PI * 110 * t) + 0.05 * noise()));
  }
  const enc = new Mp3Encoder(channels, rate, options.kbps ?? 128);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < n; at += 1152) {
    const l = left.subarray(at, at + 1152);
    parts.push(Uint8Array.from(channels === 2 ? enc.encodeBuffer(l, right.subarray(at, at + 1152)) : enc.encodeBuffer(l)));
  }
  parts.push(Uint8Array.from(enc.flush()));
  const mp3 = new Uint8Array(parts.reduce((k, p) => k + p.length, 0));
  let at = 0;
  for (const p of parts) {
    mp3.set(p, at);
    at += p.length;
  }
  return { mp3, rate, frameSamples: rate >= 32000 ? 1152 : 576 };
}

export function runXs(program: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mp3-xs-'));
  try {
    const script = join(dir, 'mp3.js');
    writeFileSync(script, program);
    return execFileSync(XSIM, ['--heap-max', String(256 * 1024 * 1024), '--standalone', script], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Decodes mp3 on XS with the runtime's decoder, frame by frame as the music
 * player hands them over (frame + 8 guard bytes), `repeat` times over. Returns
 * the mono PCM of the last pass, the frames, and the wall time of the decoding
 * alone (performance is XS's own clock: __sim.monoMs).
 */
export async function decodeOnXs(mp3: Uint8Array, repeat = 1): Promise<{ pcm: Int16Array; frames: number; ms: number }> {
  const source = `
import { frameHeader } from './src/music/formats.ts';
import { fromBase64 } from './src/util/encoding.ts';
import { hasNativeMp3, mp3Native } from './modules/mp3/mp3.ts';
const bytes = fromBase64(${JSON.stringify(Buffer.from(mp3).toString('base64'))});
if (!hasNativeMp3(__native)) throw new Error('no native mp3');
const open = mp3Native(__native);
const frames = [];
for (let at = 0; at < bytes.length; ) {
  const f = frameHeader(bytes, at);
  if (!f) { at++; continue; }
  if (at + f.length > bytes.length) break;
  const input = new Uint8Array(f.length + 8);
  input.set(bytes.subarray(at, Math.min(bytes.length, at + f.length + 8)));
  frames.push([input, f.samples]);
  at += f.length;
}
let total = frames.reduce((n, f) => n + f[1], 0);
let pcm = new Int16Array(total + 1152);
let t0 = __sim.monoMs();
for (let r = 0; r < ${repeat}; r++) {
  const d = open();
  let n = 0;
  for (const [input, samples] of frames) {
    const got = d.decode(input, pcm.subarray(n));
    n += got || samples;
  }
  d.close();
  total = n;
}
const ms = __sim.monoMs() - t0;
__sim.print(JSON.stringify({ frames: frames.length, ms, samples: total }));
for (let at = 0; at < total; at += 8192) __sim.print(Array.prototype.join.call(pcm.subarray(at, Math.min(total, at + 8192)), ','));
`;
  const result = await build({ stdin: { contents: source, resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'iife', target: 'es2022', write: false, logLevel: 'silent' });
  const lines = runXs(result.outputFiles[0]!.text).trim().split('\n');
  const at = lines.findIndex((l) => l.startsWith('{'));
  const out = JSON.parse(lines[at]!) as { frames: number; ms: number; samples: number };
  const pcm = Int16Array.from(lines.slice(at + 1).join(',').split(',').filter((v) => v !== '').map(Number));
  if (pcm.length !== out.samples) throw new Error(`xsim printed ${pcm.length} of ${out.samples} samples`);
  return { pcm, frames: out.frames, ms: out.ms };
}
