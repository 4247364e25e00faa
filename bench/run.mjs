#!/usr/bin/env node
// `npm run bench`: speed and memory figures against docs/targets.md,
// each comparison measured side by side in this one run. Prints a table;
// never fails because a machine is slow (benchmarks are not tests).
import { onOneCore } from './pin.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { ROOT, simXs, XS_TARGET } from '../tools/build.mjs';
import { otaBench } from './ota.mjs';
import { memoryBench } from './memory.mjs';

const XSIM = join(ROOT, 'build/sim/xsim');
const rows = [];
const row = (work, figure, target, verdict) => {
  rows.push({ work, figure, target, verdict });
  console.log(`  ${work}: ${figure}${target ? `  [target ${target}: ${verdict}]` : ''}`);
};
const ok = (pass) => (pass ? 'met' : 'MISSED');

async function runXs(entry, heapMax = '512m', assets = null) {
  const out = await esbuild.build({ entryPoints: [join(ROOT, entry)], bundle: true, format: 'iife', ...XS_TARGET, write: false, logLevel: 'warning' });
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  try {
    const script = join(dir, 'bench.js');
    writeFileSync(script, out.outputFiles[0].text);
    const text = execFileSync(...onOneCore(XSIM, ['--heap-max', heapMax, ...(assets ? ['--assets', assets] : []), '--standalone', script]), { encoding: 'utf8', maxBuffer: 1 << 24 });
    return Object.fromEntries(text.trim().split('\n').map((l) => JSON.parse(l)).map((o) => [o.what, o]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function memoryBandwidthGBps() {
  execFileSync('make', ['-s', '-C', join(ROOT, 'modules/vecdot/test'), 'bench'], { stdio: 'ignore' });
  const text = execFileSync(...onOneCore(join(ROOT, 'build/c-tests/vecdot/bench'), []), { encoding: 'utf8' });
  const m = /single-core read of 1 GiB: ([\d.]+) GB\/s/.exec(text);
  return m ? Number(m[1]) : null;
}

function opensslShaMBps() {
  try {
    // Mask SHA-NI (CPUID.7.EBX bit 29) to measure OpenSSL's portable-SIMD path.
    const text = execFileSync(...onOneCore('openssl', ['speed', '-seconds', '2', '-bytes', '16384', '-evp', 'sha256']), {
      encoding: 'utf8',
      env: { ...process.env, OPENSSL_ia32cap: ':~0x20000000' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const m = /sha256\s+([\d.]+)k/.exec(text.split('\n').reverse().find((l) => /^sha256\s/.test(l)) ?? '');
    return m ? (Number(m[1]) * 1000) / 1e6 : null;
  } catch {
    return null;
  }
}

/** Starts the simulator as `npm start` does (already built) and times it to HTTP-ready. */
function bootOnce(deviceDir) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'tools/start.mjs'), '--device-dir', deviceDir, '--http-port', '0', '--quiet'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let done = false;
    const finish = (value, error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGTERM');
      child.once('exit', () => (error ? reject(error) : resolve(value)));
    };
    const timer = setTimeout(() => finish(null, new Error(`no HTTP line in 20 s: ${out}`)), 20_000);
    child.stdout.on('data', async (c) => {
      out += c;
      const m = /HTTP: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (!m || done) return;
      try {
        const res = await fetch(m[1]);
        await res.text();
        const ready = performance.now() - t0;
        child.stdin.write('HEAP?\n');
        const heapLine = await new Promise((r) => {
          const look = () => {
            const h = /xs=(\d+) xsStatic=(\d+) xsRam=(\d+) xsPeak=(\d+)/.exec(out);
            if (h) r(h);
            else setTimeout(look, 10);
          };
          look();
        });
        finish({ readyMs: ready, status: res.status, xsLive: Number(heapLine[1]), xsStatic: Number(heapLine[2]), xsRam: Number(heapLine[3]), xsPeak: Number(heapLine[4]) });
      } catch (e) {
        finish(null, e);
      }
    });
  });
}

/** Boots a simulator, then drives GET /api/state from 4 keep-alive clients for `seconds`. */
function statePerf(deviceDir, seconds = 3) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'tools/start.mjs'), '--device-dir', deviceDir, '--http-port', '0', '--quiet'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let started = false;
    let asked = false;
    const fail = (e) => {
      child.kill('SIGTERM');
      reject(e);
    };
    child.stdout.on('data', async (c) => {
      out += c;
      const url = /HTTP: (http:\/\/127\.0\.0\.1:(\d+))\//.exec(out);
      if (!url || started) return;
      if (!asked) {
        asked = true;
        child.stdin.write('WEBTOK?\n');
      }
      const tok = /^([0-9a-f]{24})\r?$/m.exec(out);
      if (!tok) return;
      started = true;
      try {
        const agent = new Agent({ keepAlive: true, maxSockets: 4 });
        const latencies = [];
        const deadline = performance.now() + seconds * 1000;
        const one = () =>
          new Promise((res, rej) => {
            const t0 = performance.now();
            const req = httpRequest({ host: '127.0.0.1', port: Number(url[2]), path: '/api/state', agent, headers: { 'X-Device-Token': tok[1] } }, (r) => {
              r.resume();
              r.on('end', () => {
                if (r.statusCode !== 200) return rej(new Error(`status ${r.statusCode}`));
                latencies.push(performance.now() - t0);
                res();
              });
            });
            req.on('error', rej);
            req.end();
          });
        const client = async () => {
          while (performance.now() < deadline) await one();
        };
        const t0 = performance.now();
        await Promise.all([client(), client(), client(), client()]);
        const elapsed = (performance.now() - t0) / 1000;
        agent.destroy();
        latencies.sort((a, b) => a - b);
        child.kill('SIGTERM');
        child.once('exit', () =>
          resolve({ rps: latencies.length / elapsed, p50: latencies[Math.floor(latencies.length * 0.5)], p99: latencies[Math.floor(latencies.length * 0.99)], n: latencies.length }),
        );
      } catch (e) {
        fail(e);
      }
    });
    setTimeout(() => fail(new Error('statePerf: no token in 20 s')), 20_000).unref();
  });
}

console.log('Benchmarks (targets: docs/targets.md)\n');

console.log('Vector search, int8 cosine top-5, 256 dims, on XS (each figure from the best of 3 runs):');
const bw = memoryBandwidthGBps();
// Three runs, each figure from its best run: on these shared 2-core machines a whole process now and
// then lands at 60-70% of the core's speed (the same pinned SHA-256 run measured 274 and 393 MB/s
// back to back). OpenSSL, the comparison, gets the same best of three.
const RUNS = 3;
const xsRuns = [];
for (let i = 0; i < RUNS; i++) xsRuns.push(await runXs('bench/xs/hotspots.ts'));
const bestOf = (what, better) => xsRuns.map((r) => r[what]).reduce((a, b) => (better(b, a) ? b : a));
const xs = {
  'vec-c-6000': bestOf('vec-c-6000', (a, b) => a.median < b.median),
  'vec-c-60000': bestOf('vec-c-60000', (a, b) => a.median < b.median),
  'vec-ts-6000': bestOf('vec-ts-6000', (a, b) => a.median < b.median),
  'sha-c': bestOf('sha-c', (a, b) => a.mbps > b.mbps),
  'sha-ts': bestOf('sha-ts', (a, b) => a.mbps > b.mbps),
};
const c60 = xs['vec-c-60000'];
const gbps60 = (60000 * 256) / (c60.best / 1000) / 1e9;
row('single-core memory bandwidth (C read of 1 GiB)', bw ? `${bw.toFixed(1)} GB/s` : 'not measured');
row(
  'top-5 over 60000 x 256, C hotspot',
  `${c60.best.toFixed(3)} ms best, ${c60.median.toFixed(3)} ms median per query = ${gbps60.toFixed(1)} GB/s = ${bw ? ((100 * gbps60) / bw).toFixed(0) : '?'}% of bandwidth (15.4 MB fits the L3 cache here)`,
  '>= 50% of bandwidth',
  ok(bw !== null && gbps60 >= 0.5 * bw),
);
const c6 = xs['vec-c-6000'];
const t6 = xs['vec-ts-6000'];
row('top-5 over 6000 x 256, C hotspot', `${c6.best.toFixed(4)} ms best, ${c6.median.toFixed(4)} ms median per query`);
row('top-5 over 6000 x 256, TypeScript fallback', `${t6.best.toFixed(1)} ms best, ${t6.median.toFixed(1)} ms median per query`);
row('  ratio fallback / C (median)', `${(t6.median / c6.median).toFixed(0)}x`, '>= 1000x', ok(t6.median / c6.median >= 1000));

console.log(`\nSHA-256 of a 6.5 MB image on XS (best of ${RUNS} runs each):`);
const oslRuns = Array.from({ length: RUNS }, () => opensslShaMBps()).filter((v) => v !== null);
const osl = oslRuns.length ? Math.max(...oslRuns) : null;
const shaC = xs['sha-c'].mbps;
row('C hotspot', `${shaC.toFixed(0)} MB/s`, `>= 316 MB/s and >= half of OpenSSL (${osl ? (osl / 2).toFixed(0) : '?'} MB/s)`, ok(shaC >= 316 && (osl === null || shaC >= osl / 2)));
row('OpenSSL, SHA-NI masked, same run', osl ? `${osl.toFixed(0)} MB/s` : 'openssl not available');
row('TypeScript fallback', `${xs['sha-ts'].mbps.toFixed(2)} MB/s (ratio C / fallback ${(shaC / xs['sha-ts'].mbps).toFixed(0)}x)`);

console.log('\nUTF-8 on XS (modules/utf8), microseconds per call, C hotspot / TypeScript fallback:');
const u8 = await runXs('bench/xs/utf8.ts');
const u8f = (w) => `${u8[w].c.toFixed(2)} / ${u8[w].ts.toFixed(0)}`;
row(
  'encode, decode',
  `${u8['utf8-head-encode'].bytes} B HTTP head: encode ${u8f('utf8-head-encode')}, decode ${u8f('utf8-head-decode')}; ${(u8['utf8-16k-encode'].bytes / 1024).toFixed(0)} KB mixed text: encode ${u8f('utf8-16k-encode')}, decode ${u8f('utf8-16k-decode')}`,
);

console.log('\nDevice screen on XS (src/ui; the panel\'s own time left out), milliseconds best / median of 20:');
{
  // the image's assets and the fonts partition's, as the simulator's board maps them at boot
  const { ASSETS_PACK, FONTS_PACK, mergedPack } = await import('../tools/assets.mjs');
  const packPath = join(ROOT, 'build/assets/bench.bin');
  writeFileSync(packPath, mergedPack([ASSETS_PACK, FONTS_PACK]));
  const ui = await runXs('bench/xs/ui.ts', '512m', packPath);
  const f = (t) => `${t.best.toFixed(2)} / ${t.median.toFixed(2)}`;
  for (const type of ['ring-tft', 'panel-28', 'panel-35', 'panel-40']) {
    const u = ui[`ui-${type}`];
    row(
      `status screen, ${type} ${u.width}x${u.height}`,
      `full render ${f(u.full)} ms in tiles of at most ${u.tile} px (${u.items} items; building the list ${f(u.build)} ms); a minute change ${f(u.incremental)} ms; XS heap for one full render ${(u.heapPeak / 1024).toFixed(1)} KB`,
    );
  }
  for (const type of ['ring-tft', 'panel-28', 'panel-35', 'panel-40']) {
    const u = ui[`reply-${type}`];
    const ratio = u.fonts / u.bitmap;
    row(
      `full-screen reply redraw, ${type}: Noto Sans anti-aliased / built-in 5x9 bitmap (same text, same renderer; median of 20, best of 3 rounds)`,
      `European reply ${u.fonts.toFixed(2)} / ${u.bitmap.toFixed(2)} ms = ${ratio.toFixed(2)}x; CJK reply ${u.cjk.toFixed(2)} ms = ${(u.cjk / u.bitmap).toFixed(2)}x the bitmap's European reply${u.cjkFace ? '' : ' (no CJK face: boxes)'} (the bitmap draws CJK as boxes in ${u.cjkBitmap.toFixed(2)} ms)`,
      '<= 2x the bitmap font',
      ok(ratio <= 2 && u.cjk / u.bitmap <= 2),
    );
  }
  row('XS heap the fonts keep (faces, views, kerning: the glyphs stay in the mapped assets)', `${(ui['fonts-heap'].bytes / 1024).toFixed(1)} KB`);
  row('sign-in QR (version 3-M, best of 8 masks)', `${f(ui['ui-qr'])} ms per encode`);
}

console.log('\nThe cloud tunnel\'s secret screen on XS (src/auth/secret-screen.ts), milliseconds per MB, best of 3:');
{
  const sc = await runXs('bench/xs/screen.ts');
  for (const name of ['random', 'text']) {
    const s = sc[`screen-${name}`];
    row(
      `1 MB of ${name === 'random' ? 'random bytes' : 'text'}, ${s.secrets} live secrets (${s.forms} forms)`,
      `whole ${s.whole.toFixed(0)} ms, in 4 KB pieces ${s.pieces.toFixed(0)} ms; a case-folded string searched for each form ${s.naive.toFixed(0)} ms (ratio ${(s.naive / s.whole).toFixed(1)}x)`,
    );
  }
  row('building the screen (again only when the live secrets change)', `${sc['screen-build'].ms.toFixed(1)} ms`);
}

console.log(`\nSimulator (already built; ${simXs(process.env, () => undefined).label}):`);
const dir = mkdtempSync(join(tmpdir(), 'bench-sim-'));
let simRam = null;
try {
  const first = await bootOnce(join(dir, 'dev'));
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await bootOnce(join(dir, 'dev')));
  const best = Math.min(...runs.map((r) => r.readyMs));
  row('npm start to HTTP-ready, fresh device folder (creates and flashes it)', `${first.readyMs.toFixed(0)} ms`);
  row('npm start to HTTP-ready, existing device folder (best of 3)', `${best.toFixed(0)} ms`, '<= 1 s', ok(best <= 1000));
  const last = runs[runs.length - 1];
  simRam = last.xsRam;
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  row(
    'XS live heap after boot, RAM part (after a full GC)',
    `${kb(last.xsRam)} = ${kb(last.xsLive)} in all minus ${kb(last.xsStatic)} of code and module objects, which the device preloads into flash (peak during boot ${kb(last.xsPeak)})`,
    '<= 512 KB',
    ok(last.xsRam <= 512 * 1024),
  );
  const perf = await statePerf(join(dir, 'perf'));
  row('GET /api/state, 4 keep-alive clients', `${perf.rps.toFixed(0)} requests/s, p50 ${perf.p50.toFixed(2)} ms, p99 ${perf.p99.toFixed(2)} ms (${perf.n} requests)`, 'p99 <= 20 ms', ok(perf.p99 <= 20));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log('\nThe owner while the LAN is hostile (simulator; GET /api/state with the token on a fresh connection, 200 times each; tools/lan-attacks.mjs):');
{
  const { attackBench } = await import('./attacks.mjs');
  await attackBench(row);
}

console.log('\nUploads written to the card as they arrive (POST /api/music, 8 MB; bench/upload.mjs):');
{
  const { uploadRows } = await import('./upload.mjs');
  try {
    await uploadRows(row, ok);
  } catch (e) {
    row('an 8 MB upload', `FAILED: ${e.message.split('\n')[0]}`);
  }
}

console.log('\nMP3 decoding (minimp3, the decoder the firmware links; libmad, the one it linked before, built from the SDK for comparison; mpg123):');
{
  const { mp3Bench } = await import('./mp3.mjs');
  await mp3Bench(row);
}

console.log('\nFirmware update (OTA):');
await otaBench(row, ok);

console.log('\nLong-term memory (store search, usearch peer, heap per memory, boot load):');
await memoryBench(row);

console.log('\nMemory recall and costs on the device\'s path (the firmware on XS in the simulator, through /mcp; bench/locomo.mjs, bench/memory-costs.mjs):');
{
  const { recallBench, memoryCostsBench } = await import('./memory.mjs');
  try {
    await recallBench(row, ok);
  } catch (e) {
    row('memory recall on LoCoMo', `FAILED: ${e.message.split('\n')[0]}`);
  }
  try {
    await memoryCostsBench(row, ok);
  } catch (e) {
    row('memory costs with 6000 memories', `FAILED: ${e.message.split('\n')[0]}`);
  }
}

console.log('\nAssistant turn (simulator against the provider emulator on loopback):');
{
  const { turnBench } = await import('./turn.mjs');
  const t = await turnBench();
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  row(
    'device-side cost of one turn on XS (prompt build, parse, apply, memory write)',
    `${t.medianDeviceMs} ms median, ${t.bestDeviceMs} ms best of 10 (the wire's round trip, with request serialization and response parsing, ${t.providerMs} ms, is counted as provider time)`,
    '<= 10 ms',
    ok(t.medianDeviceMs <= 10),
  );
  row(
    `XS heap high-water during a ${t.loopRounds}-round tool loop, RAM part (live, measured after a collection each round)`,
    `${kb(t.loopLivePeak - t.loopStatic)} = ${kb(t.loopLivePeak)} live minus ${kb(t.loopStatic)} of code and module objects (preloaded into flash on a device); without collecting, XS let the heap reach ${kb(t.loopPeak)}`,
    '<= 1 MB',
    ok(t.loopRounds === 10 && t.loopLivePeak - t.loopStatic <= 1024 * 1024),
  );
}

console.log('\nVoice (a spoken turn on the simulator against the provider emulator):');
{
  const { voiceBench } = await import('./voice.mjs');
  try {
    const v = await voiceBench();
    const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
    row(
      `end of speech to the first spoken audio, device side (median of ${v.turns} VOICE turns)`,
      `${v.firstAudioMs} ms (transcript at ${v.transcriptMs} ms, reply at ${v.replyMs} ms; the emulator answers at once, so this is what the device adds)`,
    );
    row('XS heap high-water during a voice turn (not collected: what XS let the heap reach)', `${kb(v.xsPeak - v.xsStatic)} = ${kb(v.xsPeak)} minus ${kb(v.xsStatic)} of code and module objects`);
    row(
      `XS heap high-water during a voice turn, live (HEAPPROBE on: collected at each step and while sound flows; the most of ${v.probed} turns)`,
      `${kb(v.xsLivePeak - v.xsStatic)} RAM part (${kb(v.xsLivePeak)} minus ${kb(v.xsStatic)} of code and module objects); +${kb(v.xsLivePeak - v.xsRest)} over the live heap at rest before the turn (${kb(v.xsRest - v.xsStatic)} RAM part)`,
    );
  } catch (e) {
    row('a spoken turn on the simulator', `FAILED: ${e.message.split('\n')[0]}`);
  }
}

console.log('\nVoice, streamed (answer aloud as soon as possible: a stated latency profile on the emulator, streamed and whole-answer paths side by side):');
{
  const { voiceStreamRows } = await import('./voice-stream.mjs');
  try {
    await voiceStreamRows(row, ok);
  } catch (e) {
    row('a streamed spoken turn on the simulator', `FAILED: ${e.message.split('\n')[0]}`);
  }
}

console.log("\nThe Moddable SDK's desktop runtime (lin platform, the firmware preloaded with the device's creation sizes):");
{
  const { linBench } = await import('./lin.mjs');
  try {
    await linBench(row, { simRam });
  } catch (e) {
    row('the firmware in the SDK desktop runtime', `FAILED: ${e.message.split('\n')[0]}`);
  }
}

console.log('\nDevice creation sizes (simulator XS, real firmware: boot, 6000 memories loaded, a 10-round tool loop; docs/device.md):');
{
  const { creationBench } = await import('./creation.mjs');
  await creationBench(row);
}

console.log('\nDevice cores (the C hotspots built for RISC-V rv32imc, instructions counted under qemu-user):');
{
  const { riscvBench } = await import('./riscv.mjs');
  try {
    await riscvBench(row);
  } catch (e) {
    // A machine without the cross compiler or qemu (and no apt-get as root) cannot count;
    // CI's npm run check:device builds the same programs and fails if that build fails.
    row('RISC-V instruction counts', `NOT MEASURED on this machine: ${e.message.split('\n')[0]}`);
  }
}

const missed = rows.filter((r) => r.verdict === 'MISSED');
console.log(`\n${rows.filter((r) => r.target).length - missed.length} of ${rows.filter((r) => r.target).length} targets met${missed.length ? '; missed: ' + missed.map((r) => r.work).join('; ') : ''}.`);
