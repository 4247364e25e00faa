// MP3 decode speed (npm run bench), as multiples of real time, all measured in
// this one run on the same file (20 s of stereo 44.1 kHz at 128 kbit/s made by
// lamejs), split into frames as the music player splits it:
//   - minimp3 (modules/mp3/mp3mono.c, the decoder the firmware links) called
//     from XS through the simulator runtime's __native.mp3Decode, frame by
//     frame as the player calls it;
//   - the same C called from C (bench/mp3/decode.c), beside libmad, the GPL
//     decoder the firmware linked before (docs/decisions.md), built here from
//     the Moddable SDK's own sources (modules/data/mp3/libmad, its config.h:
//     FPM_DEFAULT, as on the device) for this comparison only, with the same
//     compiler and flags, called as the SDK's mp3/decode glue calls it. No SDK
//     (or an SDK without libmad): that side says NOT MEASURED;
//   - mpg123 (WebAssembly, on Node), the independent decoder the tests
//     compare against.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { Mp3Encoder } from '@breezystack/lamejs';
import { MPEGDecoder } from 'mpg123-decoder';
import { ROOT, XS_TARGET } from '../tools/build.mjs';
import { locateSdk } from '../tools/sdk.mjs';
import { onOneCore } from './pin.mjs';

/** libmad's sources in the SDK, as its modules/data/mp3/manifest.json lists them. */
const MAD_NAMES = ['bit', 'fixed', 'frame', 'huffman', 'layer3', 'stream', 'synth', 'mad_timer'];
const C_FLAGS = ['-O2', '-std=gnu11'];

/** Builds bench/mp3/decode.c (with libmad when the SDK has it) into dir; returns [binary, why libmad is absent or null]. */
function buildC(dir) {
  const bin = join(dir, 'decode');
  const cc = process.env.CC || 'cc';
  const ours = [join(ROOT, 'bench/mp3/decode.c'), join(ROOT, 'modules/mp3/mp3mono.c')];
  const sdk = locateSdk();
  const mad = sdk.moddable ? join(sdk.moddable, 'modules/data/mp3/libmad') : null;
  if (mad && existsSync(join(mad, 'layer3.c'))) {
    // libmad is not ours: its warnings stay off (-w), as the SDK builds it.
    execFileSync(cc, [...C_FLAGS, '-w', '-DDESK_BENCH_MAD=1', '-I', mad, '-o', bin, ...ours, ...MAD_NAMES.map((n) => join(mad, `${n}.c`)), '-lm']);
    return [bin, null];
  }
  execFileSync(cc, [...C_FLAGS, '-o', bin, ...ours, '-lm']);
  return [bin, sdk.ok ? `the SDK at ${sdk.moddable} has no modules/data/mp3/libmad` : sdk.reason];
}

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
  const seconds = SECONDS;
  const built = await esbuild.build({ stdin: { contents: XS_PROGRAM(mp3.toString('base64')), resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'iife', ...XS_TARGET, write: false, logLevel: 'warning' });
  const dir = mkdtempSync(join(tmpdir(), 'bench-mp3-'));
  let xs;
  let c;
  let noMad;
  try {
    const script = join(dir, 'mp3.js');
    writeFileSync(script, built.outputFiles[0].text);
    xs = JSON.parse(execFileSync(...onOneCore(join(ROOT, 'build/sim/xsim'), ['--heap-max', '256m', '--standalone', script]), { encoding: 'utf8' }).trim().split('\n').pop());
    const file = join(dir, 'signal.mp3');
    writeFileSync(file, mp3);
    let bin;
    [bin, noMad] = buildC(dir);
    c = JSON.parse(execFileSync(...onOneCore(bin, [file, '5']), { encoding: 'utf8' }).trim());
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
  const times = (samples, ms) => (samples / RATE) / (ms / 1000);
  const wasmX = times(wasmSamples, best);
  const what = `MP3 decode, ${seconds} s of 128 kbit/s stereo 44.1 kHz (${c.frames} frames, frame by frame to mono), best of 5`;
  const minimp3C = times(c.minimp3.samples, c.minimp3.ms);
  if (c.libmad) {
    const madC = times(c.libmad.samples, c.libmad.ms);
    row(`${what}, in C (cc ${C_FLAGS.join(' ')}, one core)`, `minimp3 ${minimp3C.toFixed(0)}x real time (${c.minimp3.ms.toFixed(1)} ms); libmad (the SDK's sources, FPM_DEFAULT, for comparison only) ${madC.toFixed(0)}x (${c.libmad.ms.toFixed(1)} ms): minimp3/libmad = ${(minimp3C / madC).toFixed(2)}; their outputs differ by ${c.libmad.rmsVsMinimp3.toFixed(1)} LSB RMS`);
  } else {
    row(`${what}, in C (cc ${C_FLAGS.join(' ')}, one core)`, `minimp3 ${minimp3C.toFixed(0)}x real time (${c.minimp3.ms.toFixed(1)} ms); libmad NOT MEASURED (${noMad})`);
  }
  if (!xs.native) {
    row('MP3 decode on XS (minimp3 through __native)', `NOT MEASURED: this runtime has no __native.mp3Decode; mpg123 (WASM, Node) ${wasmX.toFixed(0)}x real time`);
    return;
  }
  const xsX = times(xs.samples, xs.ms);
  row(
    `${what}, on XS`,
    `XS/C (minimp3, through __native.mp3Decode, mono out): ${xsX.toFixed(0)}x real time (${xs.ms.toFixed(1)} ms); mpg123 (WASM on Node, stereo out) beside it: ${wasmX.toFixed(0)}x (${best.toFixed(1)} ms)`,
  );
}
