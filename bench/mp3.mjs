// MP3 decode speed (npm run bench): the Moddable SDK's decoder (libmad, the C
// the device links) called from XS through the simulator runtime's
// __native.mp3Decode, frame by frame as the music player calls it, as a
// multiple of real time; beside it in the same run, the same file through
// mpg123 (WebAssembly, on Node), the independent decoder the test compares
// against. The file: 20 s of stereo 44.1 kHz at 128 kbit/s made by lamejs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { Mp3Encoder } from '@breezystack/lamejs';
import { MPEGDecoder } from 'mpg123-decoder';
import { ROOT, XS_TARGET } from '../tools/build.mjs';
import { onOneCore } from './pin.mjs';

const SECONDS = 20;
const RATE = 44100;

function encode() {
  const n = SECONDS * RATE;
  const l = new Int16Array(n);
  const r = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    l[i] = Math.round(12000 * Math.sin(2 * Math.PI * (220 + 40 * t) * t) + 3000 * Math.sin(2 * Math.PI * 3000 * t));
    r[i] = Math.round(12000 * Math.sin(2 * Math.PI * 330 * t) + 2000 * Math.sin(2 * Math.PI * 5000 * t * (1 + t / 40)));
  }
  const enc = new Mp3Encoder(2, RATE, 128);
  const parts = [];
  for (let at = 0; at < n; at += 1152) parts.push(Buffer.from(enc.encodeBuffer(l.subarray(at, at + 1152), r.subarray(at, at + 1152))));
  parts.push(Buffer.from(enc.flush()));
  return Buffer.concat(parts);
}

const XS_PROGRAM = (b64) => `
import { frameHeader } from './src/music/formats.ts';
import { fromBase64 } from './src/util/encoding.ts';
import { hasNativeMp3, mp3Native } from './modules/mp3/mp3.ts';
const bytes = fromBase64(${JSON.stringify(b64)});
if (typeof __native === 'undefined' || !hasNativeMp3(__native)) { __sim.print(JSON.stringify({ native: false })); } else {
  const open = mp3Native(__native);
  const frames = [];
  for (let at = 0; at < bytes.length; ) {
    const f = frameHeader(bytes, at);
    if (!f) { at++; continue; }
    if (at + f.length > bytes.length) break;
    const input = new Uint8Array(f.length + 8);
    input.set(bytes.subarray(at, Math.min(bytes.length, at + f.length + 8)));
    frames.push(input);
    at += f.length;
  }
  const out = new Int16Array(1152);
  let best = Infinity;
  let samples = 0;
  for (let run = 0; run < 5; run++) {
    const d = open();
    const t0 = __sim.monoMs();
    samples = 0;
    for (const input of frames) samples += d.decode(input, out);
    best = Math.min(best, __sim.monoMs() - t0);
    d.close();
  }
  __sim.print(JSON.stringify({ native: true, ms: best, samples, frames: frames.length }));
}
`;

export async function mp3Bench(row) {
  const mp3 = encode();
  const built = await esbuild.build({ stdin: { contents: XS_PROGRAM(mp3.toString('base64')), resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'iife', ...XS_TARGET, write: false, logLevel: 'warning' });
  const dir = mkdtempSync(join(tmpdir(), 'bench-mp3-'));
  let xs;
  try {
    const script = join(dir, 'mp3.js');
    writeFileSync(script, built.outputFiles[0].text);
    xs = JSON.parse(execFileSync(...onOneCore(join(ROOT, 'build/sim/xsim'), ['--heap-max', '256m', '--standalone', script]), { encoding: 'utf8' }).trim().split('\n').pop());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const d = new MPEGDecoder();
  await d.ready;
  let best = Infinity;
  let wasmSamples = 0;
  for (let run = 0; run < 5; run++) {
    const t0 = performance.now();
    const r = d.decode(mp3);
    best = Math.min(best, performance.now() - t0);
    wasmSamples = r.samplesDecoded;
    await d.reset();
  }
  d.free();
  const wasmX = (wasmSamples / RATE) / (best / 1000);
  if (!xs.native) {
    row('MP3 decode on XS (the SDK libmad through __native)', `NOT MEASURED: this runtime has no libmad (the simulator runs without the Moddable SDK); mpg123 (WASM, Node) ${wasmX.toFixed(0)}x real time`);
    return;
  }
  const xsX = (xs.samples / RATE) / (xs.ms / 1000);
  row(
    `MP3 decode, ${SECONDS} s of 128 kbit/s stereo 44.1 kHz (${xs.frames} frames), best of 5`,
    `XS/C (the SDK's libmad, frame by frame through __native.mp3Decode, mono out): ${xsX.toFixed(0)}x real time (${xs.ms.toFixed(1)} ms); mpg123 (WASM on Node, stereo out) beside it: ${wasmX.toFixed(0)}x (${best.toFixed(1)} ms)`,
  );
}
