// The long-term memory section of `npm run bench`: int8 cosine top-5 search
// at 400, 6000 and 60000 vectors x 256 dims on XS as the store runs it, with
// the C hotspot and with the TypeScript fallback (bench/xs/memory.ts); the
// same searches with usearch's exact int8 cosine in Node on the same data
// (the peer); the XS heap per stored memory; and the boot time to load 6000
// memories from the simulated card (the firmware logs how long its load took).
import { onOneCore } from './pin.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { exactSearch, MetricKind } from 'usearch';
import { ROOT, XS_TARGET } from '../tools/build.mjs';

const DIMS = 256;

/** The generator of bench/xs/memory.ts, so usearch searches the same vectors. */
function data(rows, seed) {
  const m = new Int8Array(rows * DIMS);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < m.length; i += 4) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    m[i] = s;
    m[i + 1] = s >> 8;
    m[i + 2] = s >> 16;
    m[i + 3] = s >> 24;
  }
  return m;
}

async function onXs(dir) {
  const out = await esbuild.build({ entryPoints: [join(ROOT, 'bench/xs/memory.ts')], bundle: true, format: 'iife', ...XS_TARGET, write: false, logLevel: 'warning' });
  const script = join(dir, 'memory-bench.js');
  writeFileSync(script, out.outputFiles[0].text);
  const text = execFileSync(...onOneCore(join(ROOT, 'build/sim/xsim'), ['--heap-max', '512m', '--standalone', script]), { encoding: 'utf8', maxBuffer: 1 << 24 });
  return Object.fromEntries(text.trim().split('\n').map((l) => JSON.parse(l)).map((o) => [o.what, o]));
}

function usearchMs(rows, reps) {
  const m = data(rows, 0x9e3779b9);
  const queries = data(reps, 0x12345678);
  const times = [];
  let top = -1;
  for (let r = 0; r < reps; r++) {
    const q = queries.subarray(r * DIMS, (r + 1) * DIMS);
    const t0 = performance.now();
    const res = exactSearch(m, q, DIMS, 5, MetricKind.Cos, 1);
    times.push(performance.now() - t0);
    if (r === 0) top = Number(res.keys[0]);
  }
  times.sort((a, b) => a - b);
  return { best: times[0], median: times[times.length >> 1], top };
}

/** Fills a simulated device with n memories over the console, reboots it, and reads the load time from the log. */
async function bootLoad(dir, n) {
  const outfile = join(dir, 'control-client.mjs');
  await esbuild.build({ entryPoints: [join(ROOT, 'hosts/sim/board/control-client.ts')], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'warning' });
  const { connectControl } = await import(outfile);
  const deviceDir = join(dir, 'dev');
  const board = spawn(process.execPath, [join(ROOT, 'build/sim/board.mjs'), '--device-dir', deviceDir, '--http-port', '0', '--quiet'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  board.stdout.on('data', (c) => (out += c));
  try {
    const ctl = await connectControl(deviceDir, { waitMs: 20_000 });
    await ctl.request('wait', { for: 'ready', timeoutMs: 20_000 });
    const t0 = performance.now();
    board.stdin.write(`MEMFILL vec ${n} 100\r\n`);
    await ctl.request('wait', { for: 'log', match: `memfill vec ${n} acknowledged`, timeoutMs: 600_000 });
    const fillS = (performance.now() - t0) / 1000;
    const boots = (await ctl.request('status')).bootCount;
    await ctl.request('reboot', { reason: 'software' });
    await ctl.request('wait', { for: 'ready', after: boots, timeoutMs: 60_000 });
    ctl.close();
    const log = readFileSync(join(deviceDir, 'device.log'), 'utf8');
    const loads = [...log.matchAll(/vector store on the card: (\d+) memories in (\d+) ms/g)];
    const last = loads[loads.length - 1];
    return { fillS, count: Number(last[1]), ms: Number(last[2]) };
  } finally {
    board.kill('SIGTERM');
  }
}

export async function memoryBench(row) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mem-'));
  try {
    const xs = await onXs(dir);
    for (const rows of [400, 6000, 60000]) {
      const c = xs[`search-c-${rows}`];
      const t = xs[`search-ts-${rows}`];
      const u = usearchMs(rows, rows === 60000 ? 60 : 200);
      const same = c.top === t.top && c.top === u.top ? 'same top hit in all three' : `top hits differ: C ${c.top}, fallback ${t.top}, usearch ${u.top}`;
      row(`store search top-5 over ${rows} x 256, XS + C hotspot`, `${c.median.toFixed(4)} ms median (${c.best.toFixed(4)} best)`);
      row(`store search top-5 over ${rows} x 256, XS + TypeScript fallback`, `${t.median.toFixed(rows === 60000 ? 0 : 1)} ms${rows === 60000 ? ' (one query)' : ' median'}; ratio ${(t.median / c.median).toFixed(0)}x`);
      row(`usearch exact int8 cosine, Node, same data (${rows})`, `${u.median.toFixed(4)} ms median; XS+C / usearch ${(c.median / u.median).toFixed(2)}x; ${same}`);
    }
    row('offline embedding of a query on XS (hashed n-grams, 256 dims, quantized)', `${xs['embed-query'].best.toFixed(2)} ms`);
    const b = xs['bytes-per-memory'];
    row('XS heap per stored memory (6000 held; 100-byte content)', `${b.bytes.toFixed(0)} bytes (${b.vectorBytes.toFixed(0)} of them vector and norm)`);
    try {
      const boot = await bootLoad(dir, 6000);
      row(`boot: load ${boot.count} memories from the simulated card`, `${boot.ms} ms (filling them over the console took ${boot.fillS.toFixed(0)} s)`);
    } catch (e) {
      row('boot: load 6000 memories from the simulated card', `not measured: ${e.message}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
