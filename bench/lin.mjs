// The firmware in the Moddable SDK's own desktop runtime (lin platform,
// preloaded by the SDK's xsl with the device's creation sizes; hosts/lin,
// tools/build-lin.mjs): boot to HTTP-ready, what xsl preloaded, and the live XS
// heap after boot there, for `npm run bench` beside the simulator's figures.
// With no SDK the section says so.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { xslFigures } from '../tools/build-device.mjs';
import { buildLin, LIN_BOARD, linMakefileDir } from '../tools/build-lin.mjs';
import { locateSdk, SDK_XS_VERSION } from '../tools/sdk.mjs';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One boot: spawn to the first HTTP answer, then HEAP? on the console. */
async function bootOnce(runner, library, dir) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(runner, [library, '--dir', dir], { env: { ...process.env, DESK_HTTP_PORT: String(port), DESK_SD: join(dir, 'sd') }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let log = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (log += c));
  try {
    let readyMs = null;
    for (const deadline = performance.now() + 30_000; performance.now() < deadline; ) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/state`);
        await res.text();
        readyMs = performance.now() - t0;
        break;
      } catch {
        if (child.exitCode !== null) throw new Error(`the SDK runtime exited ${child.exitCode}: ${log}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    if (readyMs === null) throw new Error(`no HTTP in 30 s: ${log}`);
    child.stdin.write('HEAP?\r\n');
    let h = null;
    for (const deadline = performance.now() + 10_000; !h && performance.now() < deadline; ) {
      h = /xs=(\d+) xsStatic=(\d+) xsRam=(\d+) xsPeak=(\d+) xsReserved=(\d+).* keys=(\d+)/.exec(out);
      if (!h) await new Promise((r) => setTimeout(r, 10));
    }
    if (!h) throw new Error(`no HEAP? answer: ${out}`);
    return { readyMs, xsLive: Number(h[1]), xsPeak: Number(h[4]), xsReserved: Number(h[5]), keys: Number(h[6]) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

export async function linBench(row, { simRam } = {}) {
  const sdk = locateSdk();
  if (!sdk.ok || !sdk.tools) {
    row('the firmware in the SDK desktop runtime', `NOT MEASURED on this machine: ${sdk.reason}`);
    return;
  }
  const { library, runner } = await buildLin(LIN_BOARD);
  const mdir = linMakefileDir(LIN_BOARD);
  const f = xslFigures(existsSync(join(mdir, 'xsl-figures.txt')) ? readFileSync(join(mdir, 'xsl-figures.txt'), 'utf8') : '', readFileSync(join(mdir, 'mc.xs.c'), 'utf8').slice(0, 4096), readFileSync(join(mdir, 'makefile'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'bench-lin-'));
  mkdirSync(join(dir, 'sd'));
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  try {
    const first = await bootOnce(runner, library, dir);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await bootOnce(runner, library, dir));
    const best = Math.min(...runs.map((r) => r.readyMs));
    row(`boot to HTTP-ready in the SDK runtime (XS ${SDK_XS_VERSION}, ${LIN_BOARD}, firmware preloaded), fresh device folder`, `${first.readyMs.toFixed(0)} ms`);
    row('boot to HTTP-ready in the SDK runtime, existing device folder (best of 3)', `${best.toFixed(0)} ms`);
    // lin is 64-bit: a slot is 32 bytes there, 16 on the ESP32-S3
    row('preloaded heap (xsl: in the image, never collected)', `${f.heapSlots} slots (${kb(f.heapSlots * 32)} at 32 bytes here, ${kb(f.heapSlots * 16)} at 16 on the device), ${f.instances} instances, ${f.keys} keys, ${f.aliases} aliases`);
    const last = runs[runs.length - 1];
    row(
      'XS live heap after boot in the SDK runtime (after a full GC; all of it RAM, the code and module objects being preloaded)',
      `${kb(last.xsLive)} (peak during boot ${kb(last.xsPeak)}, ${kb(last.xsReserved)} taken from the system, ${last.keys} keys made at run time)${simRam ? `; the simulator's RAM part: ${kb(simRam)}` : ''}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
