// pipe-test.mjs: plays the board for tests/pipe.js over fd 3 and checks what the
// firmware side saw. Usage: node hosts/sim/runtime/tests/pipe-test.mjs [path/to/xsim]
// Exits 0 when everything matched, and prints the measured call round trip.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..', '..');
const xsim = process.argv[2] ?? join(root, 'build', 'sim', 'xsim');

const child = spawn(xsim, [join(here, 'pipe.js')], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'] });
const pipe = child.stdio[3];
let stdout = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d) => (stdout += d));

function frame(kind, id, obj, bin) {
  const json = Buffer.from(obj === undefined ? '' : JSON.stringify(obj));
  const b = bin ?? Buffer.alloc(0);
  const header = Buffer.alloc(13);
  header.writeUInt32LE(9 + json.length + b.length, 0);
  header.writeUInt8(kind, 4);
  header.writeUInt32LE(id, 5);
  header.writeUInt32LE(json.length, 9);
  pipe.write(Buffer.concat([header, json, b]));
}

// the same checksum as pipe.js
function sum(bytes) {
  const n = bytes.length >> 2;
  let s = 0;
  for (let i = 0; i < n; i++) s = ((s ^ bytes.readUInt32LE(i * 4)) + i) | 0;
  for (let i = 0; i < bytes.length - n * 4; i++) s = ((s ^ bytes[n * 4 + i]) + i) | 0;
  return s >>> 0;
}

let done = null;
let failure = null;
let eventId = 1;
const timeout = setTimeout(() => {
  failure = 'timed out';
  child.kill('SIGKILL');
}, 20000);

function handle(kind, id, json, bin) {
  const msg = json.length ? JSON.parse(json) : {};
  if (kind === 1) {
    if (msg.op === 'ping') return frame(2, id, { ok: true });
    if (msg.op === 'echo') {
      const reply = { ok: true, size: bin.length, echo: msg };
      if (msg.sum !== undefined) reply.sumOk = sum(bin) === msg.sum;
      return frame(2, id, reply, bin);
    }
    if (msg.op === 'slow') {
      // the events go out before the reply: the runtime must queue them
      setTimeout(() => frame(2, id, { ok: true }), 30);
      return;
    }
    return frame(2, id, { ok: false, code: 'ENOSYS', message: msg.op });
  }
  if (kind === 3) {
    if (msg.op === 'fire-events') {
      for (let n = 1; n <= msg.count; n++) frame(4, eventId++, { type: 'tick', n });
      return;
    }
    if (msg.op === 'send-big') {
      const big = Buffer.alloc(4 * 1024 * 1024 + 3);
      for (let i = 0; i < big.length; i++) big[i] = (i * 13) & 255;
      bigSum = sum(big);
      return frame(4, eventId++, { type: 'big' }, big);
    }
    if (msg.op === 'warp-me') {
      frame(5, 0, { ms: msg.ms });
      frame(4, eventId++, { type: 'after-warp' });
      return;
    }
    if (msg.op === 'done') {
      done = msg.results;
      pipe.end();
      return;
    }
    if (msg.op === 'fail') {
      failure = msg.message;
      return;
    }
  }
  failure = `unexpected frame kind ${kind} ${json}`;
}

let bigSum = 0;
let buffer = Buffer.alloc(0);
pipe.on('data', (chunk) => {
  buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
  while (buffer.length >= 4) {
    const length = buffer.readUInt32LE(0);
    if (buffer.length < 4 + length) break;
    const kind = buffer.readUInt8(4);
    const id = buffer.readUInt32LE(5);
    const jsonLength = buffer.readUInt32LE(9);
    const json = buffer.subarray(13, 13 + jsonLength).toString('utf8');
    const bin = buffer.subarray(13 + jsonLength, 4 + length);
    buffer = buffer.subarray(4 + length);
    handle(kind, id, json, bin);
  }
});
pipe.on('error', () => {});

// A board that breaks the protocol: the runtime must exit 73 at once.
function malformed(name, bytes) {
  return new Promise((resolvePromise) => {
    const c = spawn(xsim, [join(here, 'idle.js')], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    const t = setTimeout(() => c.kill('SIGKILL'), 5000);
    c.stdio[3].on('error', () => {});
    c.stdio[3].write(bytes);
    c.on('close', (code) => {
      clearTimeout(t);
      resolvePromise([name, code, err.trim()]);
    });
  });
}

function raw(kind, id, json, extra = 0) {
  const j = Buffer.from(json);
  const header = Buffer.alloc(13);
  header.writeUInt32LE(9 + j.length, 0);
  header.writeUInt8(kind, 4);
  header.writeUInt32LE(id, 5);
  header.writeUInt32LE(j.length + extra, 9);
  return Buffer.concat([header, j]);
}

child.on('close', async (code) => {
  clearTimeout(timeout);
  const bad = await Promise.all([
    malformed('a call from the board', raw(1, 1, '{}')),
    malformed('an unknown kind', raw(9, 1, '{}')),
    malformed('a reply nobody waits for', raw(2, 7, '{"ok":true}')),
    malformed('json longer than the frame', raw(4, 1, '{}', 5)),
    malformed('a bad warp', raw(5, 0, '{"ms":-3}')),
    malformed('a frame over 256 MiB', Buffer.from([0xff, 0xff, 0xff, 0x7f, 4])),
  ]);
  const checks = [];
  const check = (name, ok, detail) => checks.push([name, ok, detail]);
  if (failure) check('no failure reported', false, failure);
  const r = done ?? {};
  check('views', JSON.stringify(r.views) === JSON.stringify(['3,4,5,6', '8,9,10,11', '4,5,6,7,8,9,10,11', 16, true, 'héllo ✓ 😀']), r.views);
  check('slow call ok', r.slow === true, r.slow);
  check('no event delivered during the call', r.eventsDuringCall === 0, r.eventsDuringCall);
  check('events in order after the call', r.ticks === 'tick1 tick2 tick3', r.ticks);
  check('4 MB call round trip', JSON.stringify(r.big) === JSON.stringify([true, 4194304, true, 4194304, true]), r.big);
  check('4 MB event', r.bigEvent && r.bigEvent[0] === 4194307 && r.bigEvent[1] === bigSum, r.bigEvent);
  check('warp fires timers at their times, in order', r.warpLog === 'r10 r20 o25 job r30 r40 r50 r60', r.warpLog);
  check('warp advanced the clock', r.warpMono >= 60000 && r.warpMono < 61000, r.warpMono);
  check('never re-entered', r.reentered === false, r.reentered);
  check('exit 73 when the pipe closes', code === 73, code);
  for (const [name, c, err] of bad) check(`exit 73 on ${name}`, c === 73 && /malformed/.test(err), [c, err]);
  let ok = true;
  for (const [name, pass, detail] of checks) {
    if (!pass) ok = false;
    console.log(`${pass ? 'ok  ' : 'FAIL'} ${name}${pass ? '' : ': ' + JSON.stringify(detail)}`);
  }
  if (stdout) console.log('stdout:', stdout.trim());
  console.log(`call round trip: ${r.callMicros} µs`);
  process.exit(ok ? 0 : 1);
});
