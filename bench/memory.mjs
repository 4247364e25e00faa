// The long-term memory section of `npm run bench`: int8 cosine top-5 search
// at 400, 6000 and 60000 vectors x 256 dims on XS as the store runs it, with
// the C hotspot and with the TypeScript fallback (bench/xs/memory.ts); the
// same searches with usearch's exact int8 cosine in Node on the same data
// (the peer); the XS heap per stored memory; and the boot time to load 6000
// memories from the simulated card (the firmware logs how long its load took).
import { onOneCore } from './pin.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { exactSearch, MetricKind } from 'usearch';
import { ROOT, XS_TARGET } from '../tools/build.mjs';
import { FILES as TABLE_FILES } from '../tools/embed-table.mjs';

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
  const text = execFileSync(...onOneCore(join(ROOT, 'build/sim/xsim'), ['--heap-max', '512m', '--assets', join(ROOT, 'build/assets/assets.bin'), '--standalone', script]), { encoding: 'utf8', maxBuffer: 1 << 24 });
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
    // the store logs its load after the runtime is ready: wait for that line of this boot
    await ctl.request('wait', { for: 'log', match: `vector store on the card: ${n} memories`, timeoutMs: 60_000 });
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
    if (xs['embed-query-table']) row(`offline embedding of a query on XS (the word table ${xs['embed-query-table'].model}, 100 dims, quantized)`, `${xs['embed-query-table'].best.toFixed(2)} ms`);
    row('offline embedding of a query on XS (hashed n-grams, 256 dims, quantized)', `${xs['embed-query'].best.toFixed(2)} ms`);
    const b = xs['bytes-per-memory'];
    row('XS heap per stored memory (6000 held, 100 dims; the content on the card)', `${b.bytes.toFixed(0)} bytes (${b.vectorBytes.toFixed(0)} vector and norm, ${b.lexicalBytes.toFixed(0)} term list)`);
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

/** Recall on LoCoMo through /mcp (bench/locomo.mjs), beside the baselines, measured in this run. */
export async function recallBench(row, ok) {
  const { findLocomo, locomoRecall } = await import('./locomo.mjs');
  if (!findLocomo()) return row('memory recall on LoCoMo', 'not measured: the data set is not reachable (DESK_LOCOMO, or shared/datasets/locomo above the checkout)');
  const f = (r) => `@10 ${r.r10.toFixed(1)}, @5 ${r.r5.toFixed(1)}`;
  const main = await locomoRecall();
  row(`memory recall on LoCoMo dev (${main.overall.n} questions, categories 1-4, through /mcp), meaning and words`, f(main.overall), 'recall@10 >= 60, recall@5 >= 50', ok(main.overall.r10 >= 60 && main.overall.r5 >= 50));
  for (const [name, c] of Object.entries(main.categories)) row(`  ${name} (${c.n})`, f(c));
  for (const [name, c] of Object.entries(main.conversations)) row(`  ${name} (${c.n})`, f(c));
  const runs = [
    ['the hashing baseline (feature hashing alone, by meaning only: what the device did before)', { embedding: 'offline/hash-ngram-1/256', sides: 'meaning' }],
    ['feature hashing with the words (BM25) side', { embedding: 'offline/hash-ngram-1/256' }],
    ['words (BM25) alone', { sides: 'words' }],
    ['the word table alone (meaning only)', { sides: 'meaning' }],
    ['without a card (degraded: 400 memories kept)', { sdSize: 0 }],
  ];
  for (const [name, o] of runs) row(`  ${name}`, f((await locomoRecall(o)).overall));
}

/** Costs with 6000 memories on the device's path (bench/memory-costs.mjs). */
export async function memoryCostsBench(row, ok) {
  const { memoryCosts } = await import('./memory-costs.mjs');
  const c = await memoryCosts();
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  row(`memory search over ${c.memories} memories through /mcp (client-timed, HTTP included; ${c.data})`, `p50 ${c.searchMs.p50.toFixed(1)} ms, p95 ${c.searchMs.p95.toFixed(1)} ms (${c.searchMs.n} searches)`, 'p95 <= 25 ms', ok(c.searchMs.p95 <= 25));
  if (c.writeMs) row('memory write through /mcp (embed, dedup check, journal, index)', `p50 ${c.writeMs.p50.toFixed(1)} ms, p95 ${c.writeMs.p95.toFixed(1)} ms (${c.writeMs.n} writes)`);
  row(`live XS heap ${c.memories} memories hold (terms and any table cache included)`, `${(c.heapBytes / 1048576).toFixed(2)} MB (${(c.heapBytes / c.memories).toFixed(0)} bytes each)`, '<= 2.5 MB', ok(c.heapBytes <= 2.5 * 1048576));
  row(`their bytes on the card (snapshot and journal)`, `${kb(c.cardBytes)} (${kb(c.contentBytes)} of it content)`);
  const table = JSON.parse(readFileSync(join(ROOT, 'build/assets/embed/embed.json'), 'utf8'));
  const tableBytes = TABLE_FILES.reduce((n, f) => n + statSync(join(ROOT, 'build/assets/embed', f)).size, 0);
  row(`bytes in flash: the word table in the image's assets (${table.model}, ${table.words} words)`, `${(tableBytes / 1048576).toFixed(2)} MB, read in place`);
  row('boot to HTTP-ready, firmware log: empty store / 6000 memories', `${c.bootEmptyMs} ms / ${c.bootFullMs} ms (+${c.bootFullMs - c.bootEmptyMs} ms)`, '+ <= 1 s', ok(c.bootFullMs - c.bootEmptyMs <= 1000));
}
