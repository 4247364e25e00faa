// The firmware-update section of `npm run bench` (TARGETS.md: OTA verify of a
// 6.5 MB image on XS at most 40 ms): the image hash on XS with the C hotspot
// and with the TypeScript fallback, the P-256 signature check, and the
// install throughput of the simulator (download over HTTPS from the local
// update server, flash writes through the board, hash and verify).
import { onOneCore } from './pin.mjs';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { buildFirmware, makeImage, ROOT, XS_TARGET } from '../tools/build.mjs';
import { loadSigningKey, signVariant } from '../tools/ota-sign.mjs';
import { release } from '../tools/release.mjs';
import { ensureTestSigningKey } from '../tools/test-keys.mjs';
import { startUpdateServer, UPDATE_HOST } from '../tools/update-server.mjs';

/** The app slot size: a 6.5 MB image. */
const SLOT = 0x680000;

/** Runs bench/xs/ota.ts on XS `runs` times (fresh processes: each first signature check is cold), the fallback hash once. */
async function verifyOnXs(dir, runs = 3) {
  const { pem } = ensureTestSigningKey();
  const key = loadSigningKey(pem);
  const image = new Uint8Array(SLOT);
  for (let i = 0; i < image.length; i++) image[i] = Math.imul(i, 2654435761) >>> 24;
  const sha = createHash('sha256').update(image).digest('hex');
  const base = { bytes: SLOT, publicKeyHex: key.publicKeyHex, sig: signVariant(key.secret, 2, 'v9.9.9', 'panel-35', sha), version: 'v9.9.9', type: 'panel-35' };
  const results = [];
  for (let i = 0; i <= runs; i++) results.push(await xsRun(dir, { ...base, fallback: i === runs }, sha));
  return results;
}

async function xsRun(dir, cfg, sha) {
  const out = await esbuild.build({
    entryPoints: [join(ROOT, 'bench/xs/ota.ts')],
    bundle: true,
    format: 'iife',
    ...XS_TARGET,
    write: false,
    logLevel: 'warning',
    define: { __OTA_BENCH__: JSON.stringify(cfg) },
  });
  const script = join(dir, 'ota-bench.js');
  writeFileSync(script, out.outputFiles[0].text);
  const text = execFileSync(...onOneCore(join(ROOT, 'build/sim/xsim'), ['--heap-max', '512m', '--standalone', script]), { encoding: 'utf8' });
  const r = Object.fromEntries(text.trim().split('\n').map((l) => JSON.parse(l)).map((o) => [o.what, o]));
  if (r['ota-hash-c'].hex !== sha || !r['ota-verify'].ok || (cfg.fallback && !r['ota-hash-ts'].same)) throw new Error(`OTA bench: wrong digest or signature on XS: ${text}`);
  return r;
}

/** Boots v1 on the simulator, then times OTAAPPLY dry and a real OTAAPPLY of a ~6.5 MB v2. */
async function installOnSim(dir) {
  const v1 = await buildFirmware({ outDir: join(dir, 'v1'), version: 'v1.0.0', force: true });
  const v2small = await buildFirmware({ outDir: join(dir, 'v2'), version: 'v2.0.0', force: true });
  // Pad v2's bundle with a comment to a full-size image (the assets stay after the bundle).
  const small = readFileSync(v2small);
  const jsonLen = small.readUInt32LE(8);
  const bundleLen = small.readUInt32LE(12);
  const { assets: _assetsLen, ...header } = JSON.parse(small.toString('utf8', 16, 16 + jsonLen));
  const bundle = small.subarray(16 + jsonLen, 16 + jsonLen + bundleLen);
  const assets = small.subarray(16 + jsonLen + bundleLen);
  const pad = SLOT - 64 * 1024 - small.length;
  const v2 = join(dir, 'v2-big.img');
  writeFileSync(v2, makeImage(Buffer.concat([bundle, Buffer.from(`\n/*${'x'.repeat(pad)}*/\n`)]), header, assets.length ? assets : null));
  const size = readFileSync(v2).length;
  release({ image: v2, version: 'v2.0.0', keyPem: ensureTestSigningKey().pem, out: join(dir, 'feed') });
  const server = await startUpdateServer({ root: join(dir, 'feed') });
  const child = spawn(
    process.execPath,
    [join(ROOT, 'build/sim/board.mjs'), '--device-dir', join(dir, 'dev'), '--image', v1, '--http-port', '0', '--quiet', '--route', `${UPDATE_HOST}:443=127.0.0.1:${server.port}`],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const waitFor = async (re, from, ms = 60_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = re.exec(out.slice(from));
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`OTA bench: no ${re} in ${JSON.stringify(out.slice(-300))}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  try {
    await waitFor(/^HTTP: /m, 0, 20_000);
    let from = out.length;
    child.stdin.write(`OTAURL https://${UPDATE_HOST}\r\n`);
    await waitFor(/^OK\r?$/m, from);
    from = out.length;
    let t0 = performance.now();
    child.stdin.write('OTAAPPLY dry\r\n');
    await waitFor(/^verified v2\.0\.0\r?$/m, from);
    const dryMs = performance.now() - t0;
    from = out.length;
    t0 = performance.now();
    child.stdin.write('OTAAPPLY\r\n');
    await waitFor(/^restarting into v2\.0\.0\r?$/m, from);
    const installMs = performance.now() - t0;
    return { size, dryMs, installMs };
  } finally {
    child.kill('SIGTERM');
    await server.close();
  }
}

export async function otaBench(row, ok) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ota-'));
  try {
    const xs = await verifyOnXs(dir);
    const cRuns = xs.slice(0, -1);
    const best = (f) => Math.min(...cRuns.map(f));
    const hashC = best((r) => r['ota-hash-c'].ms);
    const cold = best((r) => r['ota-verify'].coldMs);
    const warm = best((r) => r['ota-verify'].warmMs);
    const totals = cRuns.map((r) => r['ota-hash-c'].ms + r['ota-verify'].coldMs).sort((a, b) => a - b);
    const ts = xs[xs.length - 1]['ota-hash-ts'].ms;
    row('SHA-256 of the 6.5 MB image, C hotspot (best)', `${hashC.toFixed(1)} ms (${(SLOT / 1e6 / (hashC / 1000)).toFixed(0)} MB/s)`);
    row('SHA-256 of the 6.5 MB image, TypeScript fallback', `${ts.toFixed(0)} ms (${(SLOT / 1e6 / (ts / 1000)).toFixed(2)} MB/s)`);
    const native = cRuns[0]['ota-verify'].native;
    const tsWarm = best((r) => r['ota-verify'].tsWarmMs);
    row(
      `P-256 signature check, ${native ? "C hotspot (the SDK's crypt arithmetic)" : '@noble/curves (no C in this runtime)'} (best)`,
      `${cold.toFixed(1)} ms the first in a process, ${warm.toFixed(1)} ms warm (median of 10)`,
    );
    row(
      'P-256 signature check, @noble/curves fallback (best, same run)',
      `${best((r) => r['ota-verify'].tsColdMs).toFixed(1)} ms cold, ${tsWarm.toFixed(1)} ms warm: the C is ${(tsWarm / warm).toFixed(1)}x faster warm`,
    );
    row(
      `OTA verify of a 6.5 MB image on XS (C hash + first signature check, ${cRuns.length} fresh runs)`,
      `best ${totals[0].toFixed(1)} ms, median ${totals[totals.length >> 1].toFixed(1)} ms`,
      '<= 40 ms',
      ok(totals[0] <= 40),
    );
    const sim = await installOnSim(dir);
    const mb = sim.size / 1e6;
    row(
      `simulator install of a ${mb.toFixed(1)} MB image over HTTPS`,
      `dry run (download, flash, hash, verify) ${sim.dryMs.toFixed(0)} ms = ${(mb / (sim.dryMs / 1000)).toFixed(1)} MB/s; install to the flip ${sim.installMs.toFixed(0)} ms = ${(mb / (sim.installMs / 1000)).toFixed(1)} MB/s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
