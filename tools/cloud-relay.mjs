#!/usr/bin/env node
// A local cloud relay, for tests and for engineers: the service side of the
// relay protocol in docs/cloud-relay.md (v2, and v1 devices). Devices connect over TLS with
// a certificate for relay.desk-assistant.invalid from the local test CA
// (which the simulator's test builds trust; --untrusted gives a self-signed
// one they must refuse). Owners talk to it over plain HTTP on loopback:
//
//   POST /claim            {code} (JSON or form)   link a pairing code to the
//                          calling account; answers {deviceId}
//   GET  /devices          the account's devices
//   ANY  /d/<id>/<target>  a request to the device, through the tunnel; the
//                          target is forwarded byte for byte (not decoded)
//
// Every owner call carries "Authorization: Bearer <account key>" (the
// service authenticates the owner; a device answers only its owner).
// The core is transport-free (attach(conn) for a device connection,
// claim(), request()), so unit tests run it on the in-memory network with a
// virtual clock (test/support/cloud-net.ts); start() serves it for real.
//
// A request it accepts is never lost to a reconnect (docs/cloud-relay.md,
// "Reconnects"): it carries a request id; if its connection goes before the
// answer's END, it is sent again with the same id on the device's next
// connection (the device answers from the run it already has, never running
// it twice); requests for a device that went offline less than 30 s ago
// wait for it, within their own 30 s. It sends a device no more requests at
// once than the device said it serves (HELLO streams, 4 for v1).
//
// CLI: node tools/cloud-relay.mjs [--device-port N] [--owner-port N]
//      [--account KEY]... [--untrusted]; then type "claim <code>" to link a
//      device to the first account.

import { execFileSync } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createServer as createTlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { transformSync } from 'esbuild';
import { issueTestCert } from './test-ca.mjs';

export const RELAY_HOST = 'relay.desk-assistant.invalid';
export const DEFAULT_ACCOUNT = 'owner-account-key-for-tests';
/** The frame table (types, sizes, protocol version): the firmware's own, src/cloud/frame-table.ts, so the two cannot drift. */
export const FRAME_TABLE_MODULE = 'src/cloud/frame-table.ts';
const table = await loadFrameTable();
export const PROTOCOL_VERSION = table.PROTOCOL_VERSION;
/** Versions this relay speaks (a v1 device gets no replays of requests that may not run twice). */
export const PROTOCOL_VERSIONS = [1, 2];
/** Frame types. */
export const F = table.F;
export const MAX_PAYLOAD = table.MAX_PAYLOAD;
const FRAME_HEADER = table.FRAME_HEADER;
/** Body bytes per BODY frame the relay sends (the device sends table.BODY_CHUNK). */
const BODY_CHUNK = 16 * 1024;
const PAIR_MS = 10 * 60_000;
const SILENCE_MS = 90_000;
const REQUEST_MS = 30_000;
/** Requests for a device that went offline this recently wait for it (within REQUEST_MS). */
const GRACE_MS = 30_000;
/** Streams a v1 device serves at once (v2 devices say in HELLO). */
const V1_STREAMS = 4;
const MAX_STREAMS = 16;
const LOOP_KEEP = 4096;
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
/** Owner headers never forwarded to the device. */
const HOP = new Set(['host', 'authorization', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'te', 'upgrade', 'trailer', 'proxy-authorization', 'proxy-connection', 'x-device-token']);

/** Loads the firmware's frame table: esbuild strips its types, and the result is imported as a module. */
async function loadFrameTable() {
  const file = fileURLToPath(new URL(`../${FRAME_TABLE_MODULE}`, import.meta.url));
  const { code } = transformSync(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', sourcefile: file });
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

export function encodeFrame(type, stream, payload = Buffer.alloc(0)) {
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : typeof payload === 'object' && !(payload instanceof Uint8Array) ? Buffer.from(JSON.stringify(payload)) : Buffer.from(payload);
  if (body.length > MAX_PAYLOAD) throw new Error(`frame payload of ${body.length} bytes`);
  const head = Buffer.alloc(FRAME_HEADER);
  head.writeUInt32BE(FRAME_HEADER - 4 + body.length, 0);
  head[4] = type;
  head.writeUInt32BE(stream >>> 0, 5);
  return Buffer.concat([head, body]);
}

export class Decoder {
  buf = Buffer.alloc(0);
  error = null;
  feed(chunk) {
    if (this.error) return [];
    this.buf = Buffer.concat([this.buf, Buffer.from(chunk)]);
    const out = [];
    while (this.buf.length >= FRAME_HEADER) {
      const length = this.buf.readUInt32BE(0);
      if (length < 5 || length - 5 > MAX_PAYLOAD) {
        this.error = `bad frame length ${length}`;
        return out;
      }
      if (this.buf.length < 4 + length) break;
      out.push({ type: this.buf[4], stream: this.buf.readUInt32BE(5), payload: this.buf.subarray(FRAME_HEADER, 4 + length) });
      this.buf = this.buf.subarray(4 + length);
    }
    return out;
  }
}

function json(payload) {
  try {
    const v = JSON.parse(Buffer.from(payload).toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function pairCode() {
  const bytes = randomBytes(16);
  let s = '';
  for (const b of bytes) {
    if (b >= 248) continue; // 248 = 8 * 31: no modulo bias
    s += CODE_ALPHABET[b % 31];
    if (s.length === 8) break;
  }
  return s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4)}` : pairCode();
}

/** Methods that may run twice with no harm (RFC 9110, 9.2.2). */
function idempotent(method) {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

function sameSecret(a, b) {
  const x = Buffer.from(String(a));
  const y = Buffer.from(String(b));
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

const realTimers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t) };

/**
 * The relay's logic without sockets. Options: timers ({setTimeout,
 * clearTimeout}: the virtual clock's in unit tests), pairMs, log.
 */
export function createRelay({ timers = realTimers, pairMs = PAIR_MS, log = () => {} } = {}) {
  /** id -> {id, cred, owner, fw, board, conn, v, streams, queue, grace, graceTimer} */
  const devices = new Map();
  /** code -> {conn, timer} */
  const pairings = new Map();
  const stats = { frames: 0, requests: 0, loops: 0, connections: 0, replays: 0 };
  let nextRid = 1;

  function attach(link) {
    stats.connections++;
    const conn = { link, decoder: new Decoder(), state: 'new', device: null, code: null, streams: new Map(), nextStream: 1, watchdog: null, closed: false, fw: '', board: '', boot: null, dark: false };
    const send = (type, stream, payload) => {
      if (!conn.closed && !conn.dark) link.write(encodeFrame(type, stream, payload));
    };
    conn.send = send;
    const arm = () => {
      if (conn.watchdog) timers.clearTimeout(conn.watchdog);
      conn.watchdog = timers.setTimeout(() => close('silent'), SILENCE_MS);
    };
    const close = (why) => {
      if (conn.closed) return;
      conn.closed = true;
      if (conn.watchdog) timers.clearTimeout(conn.watchdog);
      if (conn.code) {
        const p = pairings.get(conn.code);
        if (p) timers.clearTimeout(p.timer);
        pairings.delete(conn.code);
      }
      const d = conn.device ? devices.get(conn.device) : null;
      if (d && d.conn === conn) {
        d.conn = null;
        // Requests wait a while for the device to come back.
        d.grace = true;
        if (d.graceTimer) timers.clearTimeout(d.graceTimer);
        d.graceTimer = timers.setTimeout(() => {
          d.grace = false;
          d.graceTimer = null;
        }, GRACE_MS);
      }
      // Nothing a device was asked and has not answered whole is lost: it is sent again on its next connection.
      const orphans = [...conn.streams.values()];
      conn.streams.clear();
      for (const job of orphans) requeue(job);
      log(`relay: connection closed (${why})`);
      link.end();
    };
    conn.close = close;
    arm();

    const onFrame = (f) => {
      stats.frames++;
      const p = json(f.payload);
      if (conn.state === 'new') {
        if (f.type === F.PAIR) {
          conn.state = 'pairing';
          conn.fw = String(p?.fw ?? '');
          conn.board = String(p?.board ?? '');
          conn.v = Number(p?.v ?? 1);
          conn.wants = Number(p?.streams) || V1_STREAMS;
          conn.boot = typeof p?.boot === 'string' ? p.boot : null;
          const code = pairCode();
          conn.code = code;
          const timer = timers.setTimeout(() => {
            pairings.delete(code);
            send(F.DENIED, 0, { reason: 'pair-expired' });
            close('pairing code expired');
          }, pairMs);
          pairings.set(code, { conn, timer });
          send(F.PAIRCODE, 0, { code, expiresInMs: pairMs });
          log(`relay: pairing code ${code} issued`);
          return;
        }
        if (f.type === F.HELLO) {
          if (!PROTOCOL_VERSIONS.includes(Number(p?.v ?? 1))) {
            send(F.DENIED, 0, { reason: 'protocol' });
            return close('unsupported protocol version');
          }
          const d = devices.get(String(p?.id ?? ''));
          if (!d) {
            send(F.DENIED, 0, { reason: 'unknown-device' });
            return close('unknown device');
          }
          if (!sameSecret(p?.cred ?? '', d.cred)) {
            send(F.DENIED, 0, { reason: 'bad-credential' });
            return close('bad credential');
          }
          // The old connection's requests go back to the queue, for this one.
          if (d.conn && d.conn !== conn) d.conn.close('replaced by a new connection');
          d.conn = conn;
          d.fw = String(p?.fw ?? d.fw);
          d.v = Number(p?.v ?? 1);
          d.streams = d.v >= 2 ? Math.max(1, Math.min(MAX_STREAMS, Number(p?.streams) || V1_STREAMS)) : V1_STREAMS;
          conn.boot = typeof p?.boot === 'string' ? p.boot : null;
          conn.device = d.id;
          conn.state = 'online';
          send(F.WELCOME, 0, { limits: { maxPayload: MAX_PAYLOAD }, v: Math.min(d.v, PROTOCOL_VERSION) });
          log(`relay: device ${d.id} online`);
          pump(d);
          return;
        }
        send(F.DENIED, 0, { reason: 'protocol' });
        return close('protocol');
      }
      switch (f.type) {
        case F.PING:
          return send(F.PONG, 0, f.payload);
        case F.PONG:
          return;
        case F.RES:
        case F.BODY:
        case F.END:
        case F.RESET: {
          const job = conn.streams.get(f.stream);
          if (job) onStreamFrame(conn, job, f, p);
          return;
        }
        case F.LOOP: {
          if (conn.state !== 'online' || !p) return;
          stats.loops++;
          const tag = p.tag;
          const d = devices.get(conn.device);
          if (!d) return;
          void enqueue(d, { method: String(p.method ?? 'GET'), target: String(p.target ?? '/'), headers: [['accept', '*/*']], body: Buffer.alloc(0) }).then((r) =>
            send(F.LOOPRES, 0, { tag, status: r.status, headers: r.headers, bytes: r.body.length, body: r.body.subarray(0, LOOP_KEEP).toString('base64') }),
          );
          return;
        }
        case F.BYE: {
          if (p?.unpair && conn.device) {
            devices.delete(conn.device);
            log(`relay: device ${conn.device} unpaired`);
          }
          return close('bye');
        }
        default:
          return;
      }
    };

    return {
      data(chunk) {
        if (conn.closed || conn.dark) return;
        arm();
        for (const f of conn.decoder.feed(chunk)) onFrame(f);
        if (conn.decoder.error) close(conn.decoder.error);
      },
      closed() {
        // A dark link is one the relay has stopped hearing from (darken): it does not hear it close either.
        if (!conn.dark) close('the device hung up');
      },
      conn,
    };
  }

  /** A stream's frame from the device: the answer's head, body, end, or the device giving up on it. */
  function onStreamFrame(conn, job, f, p) {
    if (f.type === F.RES) job.head = p;
    else if (f.type === F.BODY) job.chunks.push(Buffer.from(f.payload));
    else if (f.type === F.END) {
      finish(job, { status: Number(job.head?.status ?? 502), headers: Array.isArray(job.head?.headers) ? job.head.headers : [], body: Buffer.concat(job.chunks) });
      // The device may forget the answer it kept for a replay.
      if (job.rid) conn.send(F.DONE, f.stream, { rid: job.rid });
    } else if (f.type === F.RESET) {
      conn.streams.delete(f.stream);
      job.conn = null;
      fail(job, 502, `the device abandoned the answer (${p?.reason ?? 'reset'})`);
    }
  }

  function fail(job, status, message) {
    finish(job, { status, headers: [['content-type', 'application/json']], body: Buffer.from(JSON.stringify({ error: 'relay', message })) });
  }

  function finish(job, r) {
    if (job.done) return;
    job.done = true;
    if (job.timer) timers.clearTimeout(job.timer);
    if (job.conn) job.conn.streams.delete(job.stream);
    const i = job.device.queue.indexOf(job);
    if (i >= 0) job.device.queue.splice(i, 1);
    job.resolve(r);
    pump(job.device);
  }

  /**
   * A request whose connection went before its END. It is sent again, with
   * the same id, on the next connection, unless it went to an earlier boot
   * of the device and may not run twice (that boot may have done it, and
   * nothing of it survived to say so) or the device speaks v1 (no ids).
   */
  function requeue(job) {
    if (job.done) return;
    job.conn = null;
    job.unsure = !idempotent(job.method);
    job.device.queue.unshift(job);
  }

  /** Sends queued requests while the device has streams free. */
  function pump(d) {
    const conn = d.conn;
    if (!conn || conn.closed || conn.state !== 'online') return;
    while (d.queue.length && conn.streams.size < d.streams) {
      const job = d.queue.shift();
      if (job.unsure && (d.v < 2 || (job.boot !== null && job.boot !== conn.boot))) {
        fail(job, 502, d.v < 2 ? 'the device went offline during the request' : 'the device restarted during the request; it may or may not have been carried out');
        continue;
      }
      sendJob(conn, job);
    }
  }

  function sendJob(conn, job) {
    const id = conn.nextStream;
    conn.nextStream += 2;
    conn.streams.set(id, job);
    job.conn = conn;
    job.stream = id;
    job.head = null;
    job.chunks = [];
    job.boot = conn.boot;
    if (job.attempts++ > 0) stats.replays++;
    const head = { method: job.method, target: job.target, headers: job.headers, length: job.body.length, rid: job.rid, ...(job.attempts > 1 ? { replay: job.attempts - 1 } : {}) };
    // One write for the whole request: small writes in a row would wait on TCP's delayed acknowledgement.
    const frames = [encodeFrame(F.REQ, id, head)];
    for (let at = 0; at < job.body.length; at += BODY_CHUNK) frames.push(encodeFrame(F.BODY, id, job.body.subarray(at, at + BODY_CHUNK)));
    frames.push(encodeFrame(F.END, id));
    if (!conn.dark) conn.link.write(Buffer.concat(frames));
  }

  /** Accepts one request for a device; resolves with its answer (never rejects). */
  function enqueue(d, { method, target, headers, body }) {
    return new Promise((resolveRes) => {
      const job = { rid: `r${(nextRid++).toString(36)}`, device: d, method, target, headers, body, resolve: resolveRes, conn: null, stream: 0, head: null, chunks: [], attempts: 0, boot: null, unsure: false, done: false, timer: null };
      job.timer = timers.setTimeout(() => {
        if (job.conn) {
          job.conn.send(F.RESET, job.stream, { reason: 'timeout' });
          job.conn.streams.delete(job.stream);
          job.conn = null;
        }
        fail(job, 504, 'the device did not answer in time');
      }, REQUEST_MS);
      stats.requests++;
      d.queue.push(job);
      pump(d);
    });
  }

  return {
    stats,
    attach,
    /** Links a pairing code to an account: the device is told its id and credential. */
    claim(account, code) {
      const key = String(code ?? '').toUpperCase().replace(/[\s-]/g, '');
      const entry = [...pairings].find(([c]) => c.replace('-', '') === key);
      if (!entry) return { ok: false, error: 'no such pairing code (or it expired)' };
      const [c, { conn, timer }] = entry;
      timers.clearTimeout(timer);
      pairings.delete(c);
      conn.code = null;
      const id = `d${randomBytes(8).toString('hex')}`;
      const cred = randomBytes(32).toString('base64url');
      const v = conn.v ?? 1;
      const d = { id, cred, owner: account, fw: conn.fw, board: conn.board, conn, v, streams: v >= 2 ? Math.max(1, Math.min(MAX_STREAMS, conn.wants)) : V1_STREAMS, queue: [], grace: false, graceTimer: null };
      devices.set(id, d);
      conn.device = id;
      conn.state = 'online';
      conn.send(F.PAIRED, 0, { id, cred });
      conn.send(F.WELCOME, 0, { limits: { maxPayload: MAX_PAYLOAD } });
      log(`relay: ${c} claimed: device ${id}`);
      return { ok: true, deviceId: id };
    },
    devices(account) {
      return [...devices.values()].filter((d) => account === undefined || d.owner === account).map((d) => ({ id: d.id, owner: d.owner, online: !!d.conn, fw: d.fw, board: d.board }));
    },
    /** Forgets a device (its next HELLO is refused as unknown). */
    revoke(id) {
      const d = devices.get(id);
      devices.delete(id);
      d?.conn?.close('revoked');
      for (const job of [...(d?.queue ?? [])]) fail(job, 404, 'no such device');
    },
    /** Closes the device's connection from the relay's side (a network cut, or a relay restart). */
    cut(id) {
      devices.get(id)?.conn?.close('cut by the relay');
    },
    /**
     * The device's connection goes dark: nothing is read or written on it any
     * more, and its close goes unheard, as on a link that died where the relay
     * cannot see. The device's next HELLO replaces it.
     */
    darken(id) {
      const conn = devices.get(id)?.conn;
      if (conn) conn.dark = true;
    },
    /** A request from an owner: 404 unknown, 403 not theirs, 502 offline, else the device's answer. */
    async request(account, id, req) {
      const d = devices.get(id);
      const refuse = (status, message) => ({ status, headers: [['content-type', 'application/json']], body: Buffer.from(JSON.stringify({ error: 'relay', message })) });
      if (!d) return refuse(404, 'no such device');
      if (d.owner !== account) return refuse(403, 'not your device');
      const online = d.conn && d.conn.state === 'online';
      if (!online && !d.grace) return refuse(502, 'the device is offline');
      const headers = (req.headers ?? []).filter(([k]) => !HOP.has(String(k).toLowerCase()));
      return enqueue(d, { method: String(req.method ?? 'GET').toUpperCase(), target: req.target ?? '/', headers, body: Buffer.from(req.body ?? []) });
    },
  };
}

function selfSigned(names) {
  const tmp = mkdtempSync(join(tmpdir(), 'relay-untrusted-'));
  try {
    const san = [...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(tmp, 'k.pem'), '-out', join(tmp, 'c.pem'), '-days', '30', '-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${san}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { cert: readFileSync(join(tmp, 'c.pem'), 'utf8'), key: readFileSync(join(tmp, 'k.pem'), 'utf8') };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Serves the relay: devices over TLS on devicePort, owners over HTTP on
 * ownerPort (both 127.0.0.1; 0 = any free port). untrusted: a self-signed
 * certificate the firmware must refuse.
 */
export function start({ devicePort = 0, ownerPort = 0, untrusted = false, accounts = [DEFAULT_ACCOUNT], log = () => {} } = {}) {
  const relay = createRelay({ log });
  const sockets = new Set();
  const creds = untrusted ? selfSigned([RELAY_HOST]) : issueTestCert([RELAY_HOST]);
  const tlsServer = createTlsServer(creds, (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const h = relay.attach({ write: (b) => socket.write(b), end: () => socket.end() });
    socket.on('data', (d) => h.data(d));
    socket.on('close', () => {
      sockets.delete(socket);
      h.closed();
    });
    socket.on('error', () => {});
  });
  tlsServer.on('tlsClientError', () => {}); // a device refusing our certificate hangs up: expected
  const accountOf = (req) => {
    const a = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    return a && accounts.includes(a) ? a : null;
  };
  const owner = createHttpServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const reply = (status, value) => {
        const b = Buffer.from(JSON.stringify(value));
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': b.length });
        res.end(b);
      };
      const account = accountOf(req);
      if (!account) return reply(401, { error: 'relay', message: 'Authorization: Bearer <account key> is required' });
      const url = req.url ?? '/';
      if (req.method === 'POST' && url === '/claim') {
        let code = '';
        const text = body.toString('utf8');
        try {
          code = JSON.parse(text).code;
        } catch {
          code = new URLSearchParams(text).get('code') ?? '';
        }
        const r = relay.claim(account, code);
        return reply(r.ok ? 200 : 404, r);
      }
      if (req.method === 'GET' && url === '/devices') return reply(200, { devices: relay.devices(account) });
      const m = /^\/d\/([A-Za-z0-9]+)(\/.*)$/s.exec(url);
      if (!m) return reply(404, { error: 'relay', message: 'no such route' });
      const headers = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
      const r = await relay.request(account, m[1], { method: req.method, target: m[2], headers, body });
      const out = {};
      for (const [k, v] of r.headers) if (!/^(content-length|transfer-encoding|connection)$/i.test(k)) out[k] = v;
      res.writeHead(r.status, { ...out, 'Content-Length': r.body.length });
      res.end(r.body);
    });
  });
  owner.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = (server, port) =>
    new Promise((ok, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', () => ok(server.address().port));
    });
  return Promise.all([listen(tlsServer, devicePort), listen(owner, ownerPort)]).then(([dp, op]) => ({
    relay,
    devicePort: dp,
    ownerPort: op,
    ownerUrl: `http://127.0.0.1:${op}`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        tlsServer.close(() => owner.close(() => r()));
      }),
  }));
}

/** The board arguments that send the relay's name to this relay. */
export function routeArgs(devicePort) {
  return ['--route', `${RELAY_HOST}:443=127.0.0.1:${devicePort}`];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'device-port': { type: 'string', default: '8445' },
      'owner-port': { type: 'string', default: '8446' },
      account: { type: 'string', multiple: true, default: [] },
      untrusted: { type: 'boolean', default: false },
    },
  });
  const accounts = values.account.length ? values.account : [DEFAULT_ACCOUNT];
  const r = await start({ devicePort: Number(values['device-port']), ownerPort: Number(values['owner-port']), untrusted: values.untrusted, accounts, log: (l) => console.log(l) });
  console.log(`cloud relay: devices on tls://127.0.0.1:${r.devicePort} (as ${RELAY_HOST}), owners on ${r.ownerUrl}`);
  console.log(`simulator: ${routeArgs(r.devicePort).join(' ')}`);
  console.log(`owner: curl -H 'Authorization: Bearer ${accounts[0]}' ${r.ownerUrl}/d/<device id>/api/state`);
  console.log('type "claim <code>" after CLOUDPAIR on the device');
  createInterface({ input: process.stdin }).on('line', (line) => {
    const m = /^claim\s+(\S+)/i.exec(line.trim());
    if (m) console.log(JSON.stringify(r.relay.claim(accounts[0], m[1])));
  });
}
