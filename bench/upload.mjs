// npm run bench, the upload section: an 8 MB track added through POST
// /api/music, sent as a stream by Node's http client as a browser sends a
// file, and what it costs the device in memory above idle:
//
// - on the simulator: the live XS heap's high-water (HEAP? collects, then
//   reads the heap in use; asked over and over on the console while a second
//   upload runs), the heap's high-water garbage included (HEAPRESET at idle,
//   xsPeak after), and the runtime process's resident memory (the PSRAM
//   stand-in: the firmware, its XS heap and its C runtime), read from /proc:
//   VmHWM after clear_refs reset it at idle, and VmRSS sampled every 10 ms;
// - in the SDK's desktop runtime (hosts/lin: the device's XS creation sizes
//   and the SDK's own socket stack), the heap's high-water garbage included
//   and the runner's resident memory, the same way, and the XS heap's
//   reserved size (what it holds from PSRAM on the device) before and after.
//   Idle is measured after a warm-up upload that has cycled garbage through
//   the whole heap (see measure()).
//
//   node bench/upload.mjs     (after npm run build; also part of npm run bench)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLin, LIN_BOARD } from '../tools/build-lin.mjs';
import { locateSdk } from '../tools/sdk.mjs';
import { boardWith } from './turn.mjs';

const UPLOAD = 8 * 1024 * 1024 - 4096;
const KB = 1024;

/** The simulator's runtime: the child of the board process whose command is build/sim/xsim. */
function runtimePid(boardPid) {
  const kids = readFileSync(`/proc/${boardPid}/task/${boardPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  for (const k of kids) {
    try {
      if (readFileSync(`/proc/${k}/cmdline`, 'utf8').split('\0')[0].endsWith('/xsim')) return Number(k);
    } catch {
      // gone
    }
  }
  throw new Error(`bench: no xsim under board ${boardPid} (children ${kids.join(' ')})`);
}

const status = (pid) => Object.fromEntries([...readFileSync(`/proc/${pid}/status`, 'utf8').matchAll(/^(Vm\w+):\s+(\d+) kB$/gm)].map((m) => [m[1], Number(m[2]) * KB]));
const fields = (text) => Object.fromEntries([...text.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1], Number(m[2])]));

/** A WAV of `bytes` bytes (16-bit mono 44.1 kHz, a quiet ramp): content the player recognises. */
function wavOf(bytes) {
  const data = bytes - 44;
  const b = Buffer.alloc(bytes);
  b.write('RIFF', 0);
  b.writeUInt32LE(bytes - 8, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(44100, 24);
  b.writeUInt32LE(88200, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(data, 40);
  for (let i = 44; i + 1 < bytes; i += 2) b.writeInt16LE(((i >> 1) % 200) - 100, i);
  return b;
}

function post(port, token, file) {
  const boundary = 'bench-upload-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/api/music', headers: { 'X-Device-Token': token, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + file.length + tail.length } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on('error', reject);
    req.write(head);
    // In 64 KB writes, as a browser streams a file from disk.
    for (let at = 0; at < file.length; at += 64 * KB) req.write(file.subarray(at, Math.min(file.length, at + 64 * KB)));
    req.end(tail);
  });
}

/** On the simulator: measure() as it is, then a second upload with the live heap sampled (HEAP? collects) while it runs. */
export async function uploadBench() {
  const board = boardWith(['--sd-size', String(4 * 1024 ** 3)]);
  try {
    const port = Number((await board.waitFor(/^HTTP: http:\/\/127\.0\.0\.1:(\d+)\//m, 0))[1]);
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    const pid = runtimePid(board.pid());
    const m = await measure({ port, token, pid, command: board.command });
    // The live heap during the upload: HEAP? (a full collection, then the heap in use) over and over until it ends.
    const idleLive = fields((await board.command('HEAP?')).split('\n')[0]).xs;
    let running = true;
    let liveMax = idleLive;
    let samples = 0;
    const sampling = (async () => {
      while (running) {
        liveMax = Math.max(liveMax, fields((await board.command('HEAP?')).split('\n')[0]).xs);
        samples++;
      }
    })();
    const res = await post(port, token, wavOf(UPLOAD));
    running = false;
    await sampling;
    if (res.status !== 200) throw new Error(`bench: the sampled upload answered ${res.status} ${res.text}`);
    return { ...m, liveIdle: idleLive, liveMax, samples };
  } finally {
    await board.stop();
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Measures one upload on a running device: idle figures, then the upload with RSS sampled, then the heap's high-water. */
async function measure({ port, token, pid, command }) {
  const warm = await post(port, token, wavOf(64 * KB));
  if (warm.status !== 200) throw new Error(`bench: warm-up upload answered ${warm.status} ${warm.text}`);
  // A device that has run a while has used all of its XS heap: the heap is
  // allocated whole from PSRAM when the machine is made, so filling its free
  // part with garbage costs the device nothing. A process touches those pages
  // only as garbage first reaches them, which would count the heap's free part
  // as the upload's RSS: a second warm-up makes twice that free part in
  // garbage first, so idle is a heap whose pages have all been in use.
  const before = fields((await command('HEAP?')).split('\n')[0]);
  const cycle = Math.min(2 * 1024 * KB, Math.max(64 * KB, 2 * (before.xsReserved - before.xs)));
  const warm2 = await post(port, token, wavOf(cycle));
  if (warm2.status !== 200) throw new Error(`bench: warm-up upload answered ${warm2.status} ${warm2.text}`);
  const file = wavOf(UPLOAD);
  const idleHeap = fields((await command('HEAP?')).split('\n')[0]);
  await command('HEAPRESET');
  const idle = status(pid);
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  let rssMax = idle.VmRSS;
  const sampler = setInterval(() => {
    try {
      rssMax = Math.max(rssMax, status(pid).VmRSS);
    } catch {
      // the runtime went
    }
  }, 10);
  const t0 = performance.now();
  const res = await post(port, token, file);
  const ms = performance.now() - t0;
  clearInterval(sampler);
  if (res.status !== 200) throw new Error(`bench: the 8 MB upload answered ${res.status} ${res.text}`);
  const after = status(pid);
  const heapAfter = fields((await command('HEAP?')).split('\n')[0]);
  const listed = JSON.parse(await (await fetch(`http://127.0.0.1:${port}/api/music`, { headers: { 'X-Device-Token': token } })).text()).tracks.find((t) => t.name === 'bench.wav');
  return {
    bytes: file.length,
    ms,
    listed: listed?.size === file.length && listed.playable === true,
    xsIdle: idleHeap.xs,
    xsPeak: heapAfter.xsPeak,
    xsReservedIdle: idleHeap.xsReserved,
    xsReservedAfter: heapAfter.xsReserved,
    rssIdle: idle.VmRSS,
    rssHwm: Math.max(after.VmHWM, rssMax),
  };
}

/** The same upload in the SDK's desktop runtime (hosts/lin): the device's XS, creation sizes and socket stack. */
export async function linUploadBench() {
  const { library, runner } = await buildLin(LIN_BOARD);
  const dir = mkdtempSync(join(tmpdir(), 'bench-lin-upload-'));
  mkdirSync(join(dir, 'sd'));
  const port = await freePort();
  const child = spawn(runner, [library, '--dir', dir], { env: { ...process.env, DESK_HTTP_PORT: String(port), DESK_SD: join(dir, 'sd') }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (log += c));
  const wait = async (re, text, ms = 30_000) => {
    for (const deadline = Date.now() + ms; ; ) {
      const m = re.exec(text());
      if (m) return m;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`bench: no ${re} from the SDK runtime: ${log.slice(-400)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  let consumed = 0;
  const command = async (line) => {
    const from = consumed;
    child.stdin.write(`${line}\r\n`);
    const m = await wait(/^(OK|ERR[^\r\n]*)\r?$/m, () => out.slice(from));
    consumed = from + m.index + m[0].length;
    return out.slice(from, consumed).replace(/\r/g, '').replace(/^\n+/, '');
  };
  try {
    const signIn = new URL((await wait(/^Sign-in: (\S+)$/m, () => log))[1]);
    const ex = await fetch(new URL('/api/signin/exchange', signIn), { method: 'POST', body: new URLSearchParams({ code: signIn.searchParams.get('c') }) });
    const { token } = await ex.json();
    return await measure({ port, token, pid: child.pid, command });
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows of npm run bench. */
export async function uploadRows(row, ok) {
  const kb = (n) => `${(n / KB).toFixed(0)} KB`;
  const u = await uploadBench();
  row(
    `POST /api/music, a ${(u.bytes / 1024 / 1024).toFixed(1)} MB WAV streamed to the card, simulator`,
    `${(u.ms / 1000).toFixed(1)} s (${(u.bytes / 1024 / 1024 / (u.ms / 1000)).toFixed(1)} MB/s on loopback); listed and playable: ${u.listed ? 'yes' : 'NO'}`,
  );
  row(
    '  XS heap, live, high-water during it above idle (HEAP? collecting and reading the heap over and over while it runs)',
    `+${kb(u.liveMax - u.liveIdle)} (${u.samples} samples; idle ${kb(u.liveIdle)})`,
    '< 256 KB',
    ok(u.liveMax - u.liveIdle < 256 * KB),
  );
  row(
    '  XS heap high-water, garbage included (xsPeak from HEAPRESET at idle; the simulator collects only when its 2 MB slot steps run out)',
    `+${kb(u.xsPeak - u.xsIdle)} (idle ${kb(u.xsIdle)} live, peak ${kb(u.xsPeak)})`,
  );
  row(
    '  runtime process RSS high-water above idle (the PSRAM stand-in: VmHWM after clear_refs at idle, VmRSS sampled every 10 ms)',
    `+${kb(u.rssHwm - u.rssIdle)} (idle ${kb(u.rssIdle)})`,
    '< 256 KB',
    ok(u.rssHwm - u.rssIdle < 256 * KB),
  );
  const sdk = locateSdk();
  if (!sdk.ok || !sdk.tools) {
    row("the same upload in the SDK's desktop runtime", `NOT MEASURED on this machine: ${sdk.reason}`);
    return;
  }
  const l = await linUploadBench();
  row(
    `the same upload in the SDK's desktop runtime (device creation sizes, the SDK's lin sockets: 1536 bytes a poll)`,
    `${(l.ms / 1000).toFixed(0)} s; listed and playable: ${l.listed ? 'yes' : 'NO'}`,
  );
  row(
    '  XS heap there, what it holds from PSRAM (xsReserved: chunks and slots allocated) above idle',
    `+${kb(l.xsReservedAfter - l.xsReservedIdle)} (idle ${kb(l.xsReservedIdle)} reserved, ${kb(l.xsIdle)} live)`,
    '< 256 KB',
    ok(l.xsReservedAfter - l.xsReservedIdle < 256 * KB),
  );
  row(
    '  XS heap high-water there, garbage included (xsPeak from HEAPRESET at idle: garbage filling the free part of the heap already reserved, collected as it fills)',
    `+${kb(l.xsPeak - l.xsIdle)} (idle ${kb(l.xsIdle)} live; ${kb(l.xsReservedIdle - l.xsIdle)} free in the reserved heap)`,
  );
  row('  runner process RSS high-water there above idle (after a warm-up that has used the whole heap)', `+${kb(l.rssHwm - l.rssIdle)} (idle ${kb(l.rssIdle)})`, '< 256 KB', ok(l.rssHwm - l.rssIdle < 256 * KB));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await uploadRows((work, figure, target, verdict) => console.log(`  ${work}: ${figure}${target ? `  [target ${target}: ${verdict}]` : ''}`), (pass) => (pass ? 'met' : 'MISSED'));
}
