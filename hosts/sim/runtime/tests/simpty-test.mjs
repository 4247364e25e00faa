// simpty-test.mjs: checks build/sim/simpty: the PTY line, open/close frames, bytes both
// ways unchanged (raw mode: no echo, no CR/LF translation), exit at stdin EOF.
// Usage: node hosts/sim/runtime/tests/simpty-test.mjs [path/to/simpty]
import { spawn } from 'node:child_process';
import { closeSync, openSync, read, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..', '..');
const simpty = process.argv[2] ?? join(root, 'build', 'sim', 'simpty');

const child = spawn(simpty, [], { stdio: ['pipe', 'pipe', 'inherit'] });
let buffer = Buffer.alloc(0);
let path = null;
const frames = [];
let waiter = null;

function pump() {
  if (path === null) {
    const nl = buffer.indexOf(10);
    if (nl < 0) return;
    path = buffer.subarray(0, nl).toString().replace(/^PTY /, '');
    buffer = buffer.subarray(nl + 1);
  }
  while (buffer.length >= 3) {
    const length = buffer.readUInt16LE(1);
    if (buffer.length < 3 + length) break;
    frames.push({ type: buffer[0], data: buffer.subarray(3, 3 + length).toString('latin1') });
    buffer = buffer.subarray(3 + length);
  }
  if (waiter) waiter();
}
child.stdout.on('data', (d) => {
  buffer = Buffer.concat([buffer, d]);
  pump();
});

function until(predicate, what, ms = 3000) {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    waiter = () => {
      if (predicate()) {
        clearTimeout(timer);
        waiter = null;
        resolvePromise();
      }
    };
    waiter();
  });
}

function readTty(fd, count) {
  return new Promise((resolvePromise, reject) => {
    const out = Buffer.alloc(count);
    let got = 0;
    const more = () =>
      read(fd, out, got, count - got, null, (err, n) => {
        if (err) return reject(err);
        got += n;
        if (got < count) more();
        else resolvePromise(out.toString('latin1'));
      });
    more();
  });
}

const checks = [];
const check = (name, ok, detail) => checks.push([name, ok, detail]);
try {
  await until(() => path !== null, 'the PTY line');
  check('PTY line', path.startsWith('/dev/pts/'), path);
  await new Promise((r) => setTimeout(r, 80));
  check('no frame before a client', frames.length === 0, frames);
  const fd = openSync(path, 'r+');
  await until(() => frames.some((f) => f.type === 2), 'the opened frame');
  writeSync(fd, 'hi\r\nthere\n');
  await until(() => frames.filter((f) => f.type === 1).map((f) => f.data).join('') === 'hi\r\nthere\n', 'the client bytes');
  check('client bytes arrive unchanged', true);
  child.stdin.write('abc\r\n\x03x');
  const got = await readTty(fd, 7);
  check('stdin bytes reach the client unchanged', got === 'abc\r\n\x03x', got);
  await new Promise((r) => setTimeout(r, 50));
  check('no echo', !frames.some((f) => f.type === 1 && f.data.includes('abc')), frames);
  closeSync(fd);
  await until(() => frames.some((f) => f.type === 3), 'the closed frame');
  check('opened, data, closed in order', frames[0].type === 2 && frames[frames.length - 1].type === 3, frames.map((f) => f.type));
  const fd2 = openSync(path, 'r+');
  await until(() => frames.filter((f) => f.type === 2).length === 2, 'the second opened frame');
  closeSync(fd2);
  await until(() => frames.filter((f) => f.type === 3).length === 2, 'the second closed frame');
  check('a second client is seen too', true);
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  child.stdin.end();
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 2000))]);
  check('exits 0 at stdin EOF', code === 0, code);
} catch (e) {
  check('no error', false, e.message);
  child.kill();
}
let ok = true;
for (const [name, pass, detail] of checks) {
  if (!pass) ok = false;
  console.log(`${pass ? 'ok  ' : 'FAIL'} ${name}${pass ? '' : ': ' + JSON.stringify(detail)}`);
}
process.exit(ok ? 0 : 1);
