#!/usr/bin/env node
// Hostile neighbours on the LAN, for tests, the bench and engineers: clients
// that never present a valid token and try to keep the device's HTTP server
// from its owner (issue 26; policy in docs/decisions.md, "Staying available
// under attack"), and the owner's probe that times an authenticated request
// through them. Loopback only, every attack bounded in connections and time.
//
//   slow-head   heads dribbled a byte every 2-5 s (reopened when closed)
//   slow-body   whole heads, then bodies a byte every 2-5 s: a form to an
//               unknown route, the open sign-in exchange, a chunked form, and
//               the plain Content-Length 4000 of the issue
//   idle        connections that send nothing, and keep-alives left idle after
//               an open request (reopened when closed)
//   half-open   a part of a head, then silence (never read, never closed) or
//               a half-close; not reopened, and kept open after stop until
//               release, so the device must free them by itself
//   flood       new connections as fast as they go (one worker per
//               connection): closed at once, junk, or held silent until the
//               device closes them
//   all         slow-head, slow-body, idle and flood together
//   codes       wrong sign-in codes to POST /api/signin/exchange, keep-alive
//   keys        wrong connector launch keys to POST /oauth/go?k=
//
// CLI (a child process, so the attack does not share an event loop with the
// probe): node tools/lan-attacks.mjs --port N --attack KIND [--connections N]
// [--seconds S]. It prints {"ready":...} once its first connections are up,
// then a stats line when told "stop" on stdin (or after S seconds, or when
// stdin closes), "release" closes what half-open kept, and it exits.

import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const KINDS = ['slow-head', 'slow-body', 'idle', 'half-open', 'flood', 'all', 'codes', 'keys'];
/**
 * The attacks on the connection policy, each with its number of hostile
 * connections (flood and all: connecting workers), well over the 8 the
 * server keeps: the set the e2e test and the bench run.
 */
export const CONNECTION_ATTACKS = [
  ['slow-head', 24],
  ['slow-body', 24],
  ['idle', 24],
  ['half-open', 24],
  ['flood', 64],
  ['all', 48],
];
const HOST = '127.0.0.1';
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

const between = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));

/**
 * Starts an attack on 127.0.0.1:port. Returns {ready, stats, stop(), release()}:
 * ready resolves once the first connections are up; stop() ends it (half-open
 * keeps its sockets until release()) and resolves with the stats.
 */
export function startAttack(kind, { port, connections = 12, dribbleMs = [2000, 5000] } = {}) {
  if (!KINDS.includes(kind)) throw new Error(`unknown attack ${kind} (one of ${KINDS.join(', ')})`);
  const stats = { kind, opened: 0, closedByDevice: 0, bytesSent: 0, answers: {}, errors: 0 };
  const sockets = new Set();
  const kept = new Set();
  const timers = new Set();
  let running = true;
  let readyResolve;
  const ready = new Promise((r) => (readyResolve = r));
  let firstUp = 0;
  const wantUp = Math.max(1, Math.min(connections, 4));
  const up = () => {
    if (++firstUp === wantUp) readyResolve({ kind });
  };

  const later = (fn, ms) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (running) fn();
    }, ms);
    timers.add(t);
  };

  /** One raw connection; onOpen(socket) drives it; reopen() when the device closes it (if wanted). */
  const open = (onOpen, { reopen = true, keep = false } = {}) => {
    if (!running) return;
    const s = connect({ host: HOST, port, allowHalfOpen: true });
    stats.opened++;
    sockets.add(s);
    if (keep) kept.add(s);
    let answered = '';
    s.setNoDelay(true);
    s.on('connect', () => {
      up();
      onOpen(s);
    });
    s.on('data', (d) => {
      if (answered.length < 64) {
        answered += d.toString('latin1');
        const m = /^HTTP\/1\.1 (\d{3})/.exec(answered);
        if (m && answered.length - d.length < 12) stats.answers[m[1]] = (stats.answers[m[1]] ?? 0) + 1;
      }
    });
    s.on('error', () => stats.errors++);
    s.on('close', () => {
      sockets.delete(s);
      kept.delete(s);
      if (!running) return;
      stats.closedByDevice++;
      if (reopen) later(() => open(onOpen, { reopen, keep }), 5);
    });
    return s;
  };

  const send = (s, text) => {
    if (s.destroyed || !s.writable) return false;
    s.write(text);
    stats.bytesSent += text.length;
    return true;
  };

  /** Sends text a byte at a time, each after a random pause in dribbleMs. */
  const dribble = (s, text, at = 0) => {
    if (!running || s.destroyed || at >= text.length) return;
    send(s, text[at]);
    const t = setTimeout(() => {
      timers.delete(t);
      dribble(s, text, at + 1);
    }, between(dribbleMs[0], dribbleMs[1]));
    timers.add(t);
  };

  const slowHead = (s) => dribble(s, 'POST /no-such-route HTTP/1.1\r\nHost: device\r\nContent-Length: 4000\r\nX-Filler: ' + 'a'.repeat(64) + '\r\n\r\n');

  let bodyTurn = 0;
  const slowBody = (s) => {
    const variants = [
      ['POST /no-such-route HTTP/1.1\r\nHost: device\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4000\r\n\r\n', 'a'.repeat(4000)],
      ['POST /api/signin/exchange HTTP/1.1\r\nHost: device\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n', 'code=' + 'A'.repeat(995)],
      ['POST /api/state HTTP/1.1\r\nHost: device\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n', '1\r\na\r\n'.repeat(1000)],
      ['POST /no-such-route HTTP/1.1\r\nHost: device\r\nContent-Length: 4000\r\n\r\n', 'b'.repeat(4000)],
    ];
    const [head, body] = variants[bodyTurn++ % variants.length];
    send(s, head);
    dribble(s, body);
  };

  let idleTurn = 0;
  const idle = (s) => {
    // Every other one makes an open request first, then sits on the kept-alive connection.
    if (idleTurn++ % 2) send(s, 'GET /logo.svg HTTP/1.1\r\nHost: device\r\n\r\n');
  };

  let halfTurn = 0;
  const halfOpen = (s) => {
    send(s, 'GET /api/state HTTP/1.1\r\nHost: device\r\nX-Wait: ');
    if (halfTurn++ % 2) s.end();
    else s.pause();
  };

  const flood = (workers) => {
    let turn = 0;
    const worker = () => {
      if (!running) return;
      const what = turn++ % 3;
      const s = connect({ host: HOST, port });
      stats.opened++;
      sockets.add(s);
      let next = false;
      const again = () => {
        if (next) return;
        next = true;
        sockets.delete(s);
        s.destroy();
        if (running) setImmediate(worker);
      };
      s.on('connect', () => {
        up();
        if (what === 0) again();
        else if (what === 1) {
          send(s, randomBytes(between(1, 64)).toString('latin1') + '\r\n\r\n');
          setTimeout(again, 50);
        }
      });
      s.on('data', () => {});
      s.on('error', () => {
        stats.errors++;
        again();
      });
      s.on('close', () => {
        if (!next) stats.closedByDevice++;
        again();
      });
    };
    for (let i = 0; i < workers; i++) worker();
  };

  /** Keep-alive workers posting guesses as fast as answers come back. */
  const guesser = (makeRequest) => {
    const agentSocket = () => {
      if (!running) return;
      const s = open(
        (sock) => {
          let buf = '';
          const one = () => {
            if (!running || sock.destroyed) return;
            const [head, body] = makeRequest();
            send(sock, head + body);
          };
          sock.on('data', (d) => {
            buf += d.toString('latin1');
            // One answer per request: count and send the next once a whole one is in.
            for (;;) {
              const end = buf.indexOf('\r\n\r\n');
              if (end < 0) return;
              const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
              if (buf.length < end + 4 + len) return;
              const status = /^HTTP\/1\.1 (\d{3})/.exec(buf)?.[1] ?? '?';
              stats.answers[status] = (stats.answers[status] ?? 0) + 1;
              buf = buf.slice(end + 4 + len);
              one();
            }
          });
          one();
        },
        { reopen: true },
      );
      return s;
    };
    for (let i = 0; i < connections; i++) agentSocket();
  };

  const wrongCode = () => {
    let code = '';
    for (const b of randomBytes(12)) code += CODE_ALPHABET[b % CODE_ALPHABET.length];
    const body = `code=${code}`;
    return [`POST /api/signin/exchange HTTP/1.1\r\nHost: device\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`, body];
  };
  const wrongKey = () => [`POST /oauth/go?k=${randomBytes(16).toString('hex')} HTTP/1.1\r\nHost: device\r\nContent-Length: 0\r\n\r\n`, ''];

  const run = (k, n) => {
    if (k === 'slow-head') for (let i = 0; i < n; i++) open(slowHead);
    else if (k === 'slow-body') for (let i = 0; i < n; i++) open(slowBody);
    else if (k === 'idle') for (let i = 0; i < n; i++) open(idle);
    else if (k === 'half-open') for (let i = 0; i < n; i++) open(halfOpen, { reopen: false, keep: true });
    else if (k === 'flood') flood(n);
    else if (k === 'codes') guesser(wrongCode);
    else if (k === 'keys') guesser(wrongKey);
  };
  if (kind === 'all') {
    const each = Math.max(2, Math.ceil(connections / 3));
    for (const k of ['slow-head', 'slow-body', 'idle']) run(k, each);
    run('flood', each);
  } else run(kind, connections);

  return {
    ready,
    stats,
    /** Live hostile connections from this side. */
    live: () => sockets.size,
    stop() {
      running = false;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) if (!kept.has(s)) s.destroy();
      return Promise.resolve({ ...stats, kept: kept.size });
    },
    release() {
      for (const s of kept) s.destroy();
      kept.clear();
    },
  };
}

/**
 * One owner request on a fresh connection (the worst case: no kept-alive
 * connection to reuse), timed from connect to the end of the answer.
 */
export function probe({ port, token, path = '/api/state', timeoutMs = 2000 }) {
  return new Promise((resolveProbe) => {
    const t0 = performance.now();
    let done = false;
    const finish = (status, error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolveProbe({ status, ms: performance.now() - t0, error });
    };
    const req = httpRequest({ host: HOST, port, path, agent: false, headers: { 'X-Device-Token': token, Connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode ?? 0, null));
      res.on('error', (e) => finish(0, String(e)));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(0, `no answer in ${timeoutMs} ms`);
    }, timeoutMs);
    req.on('error', (e) => finish(0, String(e)));
    req.end();
  });
}

/** n probes one after another, `gapMs` apart: their summary (summarize()). */
export async function probes({ port, token, n = 100, gapMs = 20, timeoutMs = 2000, path }) {
  const results = [];
  for (let i = 0; i < n; i++) {
    results.push(await probe({ port, token, timeoutMs, ...(path ? { path } : {}) }));
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  return summarize(results, timeoutMs);
}

/** How many were answered 200 within timeoutMs, why the others were not, and p50, p99, max latency. */
export function summarize(results, timeoutMs = 2000) {
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const at = (q) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))];
  return {
    n: results.length,
    ok: results.filter((r) => r.status === 200 && r.ms <= timeoutMs).length,
    failures: results.filter((r) => r.status !== 200).map((r) => r.error ?? `status ${r.status}`),
    p50: at(0.5),
    p99: at(0.99),
    max: ms[ms.length - 1],
    results,
  };
}

/** Runs an attack in a child process (so it does not share the caller's event loop). */
export async function spawnAttack(kind, { port, connections = 12, seconds = 120 } = {}) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--port', String(port), '--attack', kind, '--connections', String(connections), '--seconds', String(seconds)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  const waiters = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters.splice(0)) w();
  });
  const next = async (re) => {
    for (;;) {
      const hit = lines.find((l) => re.test(l));
      if (hit) {
        lines.splice(lines.indexOf(hit), 1);
        return JSON.parse(hit);
      }
      if (child.exitCode !== null) throw new Error(`the attack ended early (${child.exitCode})`);
      await new Promise((r) => {
        waiters.push(r);
        child.once('exit', r);
      });
    }
  };
  const exited = new Promise((r) => child.once('exit', r));
  await next(/^\{"ready"/);
  return {
    child,
    async stop() {
      child.stdin.write('stop\n');
      return next(/^\{"stats"/);
    },
    async release() {
      child.stdin.end('release\n');
      await exited;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      attack: { type: 'string' },
      connections: { type: 'string', default: '12' },
      seconds: { type: 'string', default: '120' },
    },
  });
  const port = Number(values.port);
  if (!port || !values.attack) {
    console.error(`usage: node tools/lan-attacks.mjs --port N --attack ${KINDS.join('|')} [--connections N] [--seconds S]`);
    process.exit(2);
  }
  const a = startAttack(values.attack, { port, connections: Number(values.connections) });
  await a.ready;
  console.log(JSON.stringify({ ready: values.attack }));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const s = await a.stop();
    console.log(JSON.stringify({ stats: s }));
  };
  const end = () => {
    a.release();
    process.exit(0);
  };
  // Bounded: an attack nobody stops ends by itself.
  setTimeout(() => void stop().then(end), Number(values.seconds) * 1000).unref();
  createInterface({ input: process.stdin })
    .on('line', (l) => {
      if (l.trim() === 'stop') void stop();
      if (l.trim() === 'release') void stop().then(end);
    })
    .on('close', () => void stop().then(end));
}
