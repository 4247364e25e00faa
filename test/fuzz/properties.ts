// Fuzz properties of every parser that takes bytes from outside the device
// (issue 26): the HTTP server's request heads, chunked bodies and the server
// itself fed raw bytes; urlencoded and multipart forms; JSON-RPC and POST
// /mcp; the turn contract; the cloud relay's frames, the tunnel guard's
// canonical paths and its secret screen (whatever bytes a route answers);
// the Notifier link's BLE FRAME, CONFIG and STATUS values;
// the OTA manifest and image addresses; and the HTTP client's answers.
//
// Each property is fast-check over random inputs, half of them near valid
// (valid inputs with bytes flipped, inserted, dropped or cut), and says what
// must always hold: no parser throws, a refusal is a clear typed result, and
// what is encoded is read back unchanged. They run ON XS (test/fuzz/run.xs.ts,
// bundled and run by test/e2e/fuzz.test.ts) within a fixed number of cases
// each; check() is also what replays a kept failing case
// (test/fuzz/regressions.json) directly. Host-independent, like src/.

import fc from 'fast-check';
import { Router } from '../../src/core/router.ts';
import { canonicalPath, TUNNEL_DENIED, tunnelAllows } from '../../src/auth/tunnel-guard.ts';
import { SecretScreen, secretForms } from '../../src/auth/secret-screen.ts';
import type { LiveSecret, SecretKind } from '../../src/auth/secrets.ts';
import { TunnelDispatcher } from '../../src/cloud/dispatch.ts';
import { F, FrameDecoder, frame, jsonFrame, MAX_PAYLOAD, payloadJson } from '../../src/cloud/frames.ts';
import { CloudRelay, MAX_STREAMS } from '../../src/cloud/relay.ts';
import { MAX_RUNS } from '../../src/cloud/runs.ts';
import type { Store } from '../../src/core/store.ts';
import type { Clock, ConnectOptions, Net, PendingSocket, Socket, Timer } from '../../src/hal/index.ts';
import { classify } from '../../src/mcp/jsonrpc.ts';
import { ToolRegistry } from '../../src/core/tools/registry.ts';
import { McpServer } from '../../src/mcp/server.ts';
import type { ToolCaller } from '../../src/core/tools/types.ts';
import { parseForm, parseMultipart } from '../../src/net/http/body.ts';
import { HttpClient } from '../../src/net/http/client.ts';
import { bodyFraming, ChunkedDecoder, findHeadEnd, parseHead, parseUrlEncoded, percentDecode } from '../../src/net/http/parse.ts';
import { HttpServer } from '../../src/net/http/server.ts';
import { decodeStatus, encodeStatus } from '../../src/notifier/status.ts';
import { parseConfigWrite } from '../../src/notifier/config.ts';
import { encodeFrame as encodeBleFrame, parseFrame as parseBleFrame, RECORD } from '../../src/notifier/frame.ts';
import { parseManifest, resolveImageUrl, selectVariant } from '../../src/ota/manifest.ts';
import { parseTurn } from '../../src/turn/parse.ts';
import { concatBytes } from '../../src/util/bytes.ts';
import { fromHex, toHex } from '../../src/util/encoding.ts';
import { decode, encode } from '../../src/util/utf8.ts';

export interface FuzzProperty<T = unknown> {
  name: string;
  /** Cases per run (the suite's fixed budget). */
  runs: number;
  arb: fc.Arbitrary<T>;
  /** check() returns a promise (the server, /mcp, the client). */
  async?: boolean;
  /** Throws when the property does not hold. */
  check(value: T): void | Promise<void>;
  /** The value as JSON, to keep a failing case; and back. */
  toJson(value: T): unknown;
  fromJson(json: unknown): T;
}

class PropertyFailed extends Error {}

function must(cond: unknown, message: string): asserts cond {
  if (!cond) throw new PropertyFailed(message);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const concat = concatBytes;

const hex = (b: Uint8Array): string => toHex(b);
const unhex = (j: unknown): Uint8Array => fromHex(String(j)) ?? new Uint8Array(0);
const bytesJson = { toJson: (v: Uint8Array) => hex(v), fromJson: unhex };
const pieceJson = {
  toJson: (v: Uint8Array[]) => v.map(hex),
  fromJson: (j: unknown) => (j as string[]).map(unhex),
};

// ---------------------------------------------------------------------------
// Arbitraries.

type Mutation = { kind: 'flip' | 'insert' | 'delete' | 'cut' | 'dup'; at: number; byte: number; len: number };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('flip', 'insert', 'delete', 'cut', 'dup'),
  at: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
  len: fc.integer({ min: 1, max: 16 }),
});

function mutate(bytes: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = Array.from(bytes);
  for (const m of ms) {
    const at = b.length ? m.at % (b.length + 1) : 0;
    if (m.kind === 'flip' && b.length) b[at % b.length] = m.byte;
    else if (m.kind === 'insert') b.splice(at, 0, m.byte);
    else if (m.kind === 'delete') b.splice(at, m.len);
    else if (m.kind === 'cut') b = b.slice(0, at);
    else if (m.kind === 'dup') b.splice(at, 0, ...b.slice(at, at + m.len));
  }
  return Uint8Array.from(b);
}

/**
 * Random bytes: short ones byte by byte (they shrink to the byte), longer
 * ones from a seed and a length (fast-check makes each byte of a long array
 * through its generic machinery, about 2 us a byte on XS; these shrink to a
 * shorter length instead).
 */
function noise(maxLength: number): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: Math.min(24, maxLength) }),
    fc.tuple(fc.integer(), fc.nat({ max: maxLength })).map(([seed, n]) => expand(seed, n)),
  );
}

/** Random bytes, or a valid input with a few mutations, or a valid one. */
function nearly(valid: fc.Arbitrary<Uint8Array>, maxLength = 512): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    noise(maxLength),
    fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([b, ms]) => mutate(b, ms)),
    valid,
  );
}

/** Cuts bytes into pieces at random points (how a network delivers them). */
function pieces(bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array[]> {
  return fc.tuple(bytes, fc.array(fc.nat(), { maxLength: 8 })).map(([b, cuts]) => {
    const points = [...new Set(cuts.map((c) => (b.length ? c % b.length : 0)))].sort((x, y) => x - y);
    const out: Uint8Array[] = [];
    let from = 0;
    for (const p of points) {
      if (p > from) out.push(b.slice(from, p));
      from = Math.max(from, p);
    }
    out.push(b.slice(from));
    return out;
  });
}

/** Xorshift bytes from a seed: the cheap source of long random inputs. */
function expand(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * Strings of an alphabet, min to max long, from a seed and a length (one
 * unit at a time costs fast-check on XS tens of microseconds a character).
 */
function chars(alphabet: string, min: number, max: number): fc.Arbitrary<string> {
  const units = [...alphabet];
  return fc.tuple(fc.integer(), fc.integer({ min, max })).map(([seed, n]) => {
    let out = '';
    for (const b of expand(seed, n)) out += units[b % units.length];
    return out;
  });
}

/** Text that looks like JSON and more: short strings unit by unit, longer ones from a seed. */
const TEXT_ALPHABET = '{}[]":,\\ .-+eE0123456789truefalsnl\u00e9\u20ac\ud83d\ude00abcxyzREPLYmemoryask_\n\t';
function text(max: number): fc.Arbitrary<string> {
  return fc.oneof(fc.string({ maxLength: 12 }), chars(TEXT_ALPHABET, 0, max));
}

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const token = chars(TOKEN_CHARS, 1, 12);
const PATH_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&()*+,;=:@/?';
const pathChars = chars(PATH_CHARS, 0, 40);
let PRINTABLE = '';
for (let c = 0x20; c < 0x7f; c++) PRINTABLE += String.fromCharCode(c);
const headerValue = chars(PRINTABLE, 0, 40).map((v) => v.trim());

interface HeadSpec {
  method: string;
  target: string;
  http10: boolean;
  headers: Array<[string, string]>;
}
const headSpec: fc.Arbitrary<HeadSpec> = fc.record({
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'), token),
  target: pathChars.map((p) => '/' + p),
  http10: fc.boolean(),
  headers: fc.array(fc.tuple(token, headerValue), { maxLength: 8 }),
});
function headText(h: HeadSpec): string {
  return `${h.method} ${h.target} HTTP/1.${h.http10 ? 0 : 1}\r\n${h.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}`;
}
const headBytes = headSpec.map((h) => encode(headText(h) + '\r\n'));

// ---------------------------------------------------------------------------
// A fake clock and sockets, so the server and the client run whole.

class FakeClock implements Clock {
  now = 0;
  timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  monoMs(): number {
    return this.now;
  }
  wallBase = 1_700_000_000_000;
  wallMs(): number {
    return this.wallBase + this.now;
  }
  synced(): boolean {
    return true;
  }
  setWall(ms: number): void {
    this.wallBase = ms - this.now;
  }
  setTimeout(fn: () => void, ms: number): Timer {
    const t = { at: this.now + ms, fn, live: true };
    this.timers.push(t);
    return { cancel: () => void (t.live = false) };
  }
  setInterval(fn: () => void, ms: number): Timer {
    const t = { at: this.now + ms, fn, live: true };
    const again = (): void => {
      fn();
      if (t.live) {
        t.at = this.now + ms;
        this.timers.push(t);
      }
    };
    t.fn = again;
    this.timers.push(t);
    return { cancel: () => void (t.live = false) };
  }
  /** Moves time on by ms, firing what falls due, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.now = Math.max(this.now, due.at);
      due.live = false;
      due.fn();
    }
    this.now = end;
  }
}

class FakeSocket implements PendingSocket {
  onData: ((chunk: Uint8Array) => void) | null = null;
  onDrain: (() => void) | null = null;
  onEnd: (() => void) | null = null;
  onClose: ((error: string | null) => void) | null = null;
  onConnect: (() => void) | null = null;
  remote = 'fuzz';
  buffered = 0;
  written: Uint8Array[] = [];
  closed = false;
  ended = false;
  write(bytes: Uint8Array): void {
    if (!this.closed) this.written.push(bytes.slice());
  }
  end(): void {
    this.ended = true;
    this.destroy();
  }
  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.(null);
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await Promise.resolve();
};

// ---------------------------------------------------------------------------
// The properties.

interface BleSpec {
  led: [number, number, number, number, number | null] | null;
  anim: [number, number | null] | null;
  notice: [number, string, string] | null;
  wake: boolean;
}

const OWNER: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };

/** Keeps a property's own value type inside, one list outside. */
function prop<T>(p: FuzzProperty<T>): FuzzProperty {
  return p as unknown as FuzzProperty;
}

export const PROPERTIES: FuzzProperty[] = [
  prop({
    name: 'http.head: any bytes parse to a head or a clear refusal, never a throw',
    runs: 300,
    arb: nearly(headBytes),
    check(b: Uint8Array) {
      const end = findHeadEnd(b, 0, b.length);
      must(end === -1 || (end >= 4 && end <= b.length), `findHeadEnd gave ${end} for ${b.length} bytes`);
      const r = parseHead(end > 0 ? b.subarray(0, end - 4) : b);
      if (!r.ok) {
        must(r.status === 400 && r.reason.length > 0, 'a refusal is 400 with a reason');
        return;
      }
      must(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(r.head.method), `method ${JSON.stringify(r.head.method)}`);
      must(r.head.path === '*' || r.head.path.startsWith('/'), `path ${JSON.stringify(r.head.path)}`);
      for (const [k, v] of r.head.headers) {
        must(k === k.toLowerCase() && k.length > 0, `header name ${JSON.stringify(k)}`);
        must(!/[\r\n\x00]/.test(v), `header value ${JSON.stringify(v)}`);
      }
      const framing = bodyFraming(r.head.headers);
      must(['none', 'length', 'chunked', 'error'].includes(framing.kind), 'framing kind');
      if (framing.kind === 'length') must(Number.isSafeInteger(framing.length) && framing.length > 0, 'a length');
    },
    ...bytesJson,
  }),
  prop({
    name: 'http.head: a valid head is read back exactly (duplicate headers joined), whatever the pieces it arrives in',
    runs: 300,
    arb: fc.tuple(headSpec, fc.array(fc.nat(), { maxLength: 6 })),
    check([h, cuts]: [HeadSpec, number[]]) {
      const b = encode(headText(h) + '\r\n');
      // findHeadEnd scanning in pieces, as the server does, finds the same end.
      let from = 0;
      let end = -1;
      for (const c of [...cuts.map((x) => x % (b.length + 1)), b.length].sort((x, y) => x - y)) {
        end = findHeadEnd(b, from, c);
        if (end >= 0) break;
        from = Math.max(0, c - 3);
      }
      must(end === b.length, `head end ${end} of ${b.length}`);
      const r = parseHead(b.subarray(0, b.length - 4));
      must(r.ok, `refused: ${r.ok ? '' : r.reason}`);
      must(r.head.method === h.method, 'method');
      const q = h.target.indexOf('?');
      must(r.head.path === (q < 0 ? h.target : h.target.slice(0, q)), 'path');
      must(r.head.query === (q < 0 ? '' : h.target.slice(q + 1)), 'query');
      must(r.head.version === (h.http10 ? '1.0' : '1.1'), 'version');
      const want = new Map<string, string>();
      for (const [k, v] of h.headers) {
        const n = k.toLowerCase();
        want.set(n, want.has(n) ? `${want.get(n)}, ${v}` : v);
      }
      must(want.size === r.head.headers.size, 'header count');
      for (const [k, v] of want) must(r.head.headers.get(k) === v, `header ${k}`);
    },
    toJson: (v: [HeadSpec, number[]]) => v,
    fromJson: (j: unknown) => j as [HeadSpec, number[]],
  }),
  prop({
    name: 'http.chunked: a chunked body is decoded exactly whatever its chunks, extensions, trailers and pieces',
    runs: 250,
    arb: fc.record({
      body: noise(3000),
      sizes: fc.array(fc.integer({ min: 1, max: 700 }), { maxLength: 12 }),
      upper: fc.boolean(),
      ext: fc.boolean(),
      trailers: fc.array(fc.tuple(token, headerValue), { maxLength: 3 }),
      cuts: fc.array(fc.nat(), { maxLength: 10 }),
    }),
    check(v: { body: Uint8Array; sizes: number[]; upper: boolean; ext: boolean; trailers: Array<[string, string]>; cuts: number[] }) {
      const parts: Uint8Array[] = [];
      let at = 0;
      let i = 0;
      while (at < v.body.length) {
        const n = Math.min(v.sizes.length ? v.sizes[i++ % v.sizes.length]! : v.body.length, v.body.length - at);
        const size = v.upper ? n.toString(16).toUpperCase() : n.toString(16);
        parts.push(encode(`${size}${v.ext ? ';name=value' : ''}\r\n`), v.body.subarray(at, at + n), encode('\r\n'));
        at += n;
      }
      parts.push(encode(`0\r\n${v.trailers.map(([k, x]) => `${k}: ${x}\r\n`).join('')}\r\n`));
      const wire = concat(parts);
      const got: Uint8Array[] = [];
      const d = new ChunkedDecoder((b) => got.push(b.slice()));
      let from = 0;
      for (const c of [...v.cuts.map((x) => x % (wire.length + 1)), wire.length].sort((x, y) => x - y)) {
        if (c < from) continue;
        // The server keeps unused bytes for the next round, as here.
        const used = d.feed(wire.subarray(from, c));
        from += used;
      }
      must(d.error === null, `error ${d.error}`);
      must(d.done, 'not done');
      must(from === wire.length, `used ${from} of ${wire.length}`);
      must(sameBytes(concat(got), v.body), 'body differs');
    },
    toJson: (v) => ({ ...v, body: hex(v.body) }),
    fromJson: (j: unknown) => {
      const v = j as { body: string; sizes: number[]; upper: boolean; ext: boolean; trailers: Array<[string, string]>; cuts: number[] };
      return { ...v, body: unhex(v.body) };
    },
  }),
  prop({
    name: 'http.chunked: any bytes, in any pieces, never throw; an error is sticky; no byte is used twice',
    runs: 300,
    arb: pieces(nearly(noise(200).map((b) => concat([encode(`${b.length.toString(16)}\r\n`), b, encode('\r\n0\r\n\r\n')])))),
    check(ps: Uint8Array[]) {
      const d = new ChunkedDecoder(() => {});
      let error: string | null = null;
      let pending: Uint8Array = new Uint8Array(0);
      for (const p of ps) {
        pending = concat([pending, p]);
        const used = d.feed(pending);
        must(used >= 0 && used <= pending.length, `used ${used} of ${pending.length}`);
        if (error) must(d.error === error && used === 0, 'error not sticky');
        error = d.error;
        pending = pending.slice(used);
      }
    },
    ...pieceJson,
  }),
  prop({
    name: 'http.server: raw bytes in any pieces never break the server; every answer is a whole HTTP/1.1 response',
    async: true,
    runs: 150,
    arb: fc.tuple(
      pieces(
        fc
          .array(
            fc.oneof(
              headBytes,
              fc.constantFrom(
                encode('POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello'),
                encode('POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'),
                encode('GET /private HTTP/1.1\r\nX-Device-Token: secret\r\n\r\n'),
                encode('POST /private HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 12\r\n\r\ntoken=secret'),
              ),
              noise(64),
            ),
            { maxLength: 5 },
          )
          .chain((parts) => nearly(fc.constant(concat(parts)), 1)),
      ),
      fc.boolean(),
    ),
    async check([ps, halfClose]: [Uint8Array[], boolean]) {
      const clock = new FakeClock();
      const gate = Object.assign((req: { headers: Map<string, string>; body: Uint8Array }) => req.headers.get('x-device-token') === 'secret' || decode(req.body).includes('token=secret'), {
        presented: (h: Map<string, string>) => h.has('x-device-token'),
      });
      const router = new Router(gate as never);
      router.add({ method: 'POST', path: '/echo', access: 'open', bodyLimit: 64, handler: (req) => ({ status: 200, body: req.body }) });
      router.add({ method: 'GET', path: '/', access: 'open', handler: () => ({ status: 200, body: 'home' }) });
      router.add({ method: 'GET', path: '/private', handler: () => ({ status: 200, body: 'yes' }) });
      router.add({ method: 'POST', path: '/private', handler: () => ({ status: 200, body: 'yes' }) });
      let accept: ((s: Socket) => void) | null = null;
      const net: Net = {
        listen: (_p, a) => ((accept = a), { port: 80, close() {} }),
        connect: () => {
          throw new Error('no');
        },
        udp: () => {
          throw new Error('no');
        },
        multicast: () => {
          throw new Error('no');
        },
      };
      const server = new HttpServer(net, clock, router);
      server.listen(80);
      const s = new FakeSocket();
      accept!(s);
      for (const p of ps) {
        if (s.closed) break;
        s.onData?.call(s, p);
        await settle();
      }
      if (halfClose && !s.closed) s.onEnd?.call(s);
      await settle();
      clock.advance(120_000);
      await settle();
      const out = concat(s.written);
      // Each answer: a status line, headers, and a body of the length it says (in bytes).
      let at = 0;
      while (at < out.length) {
        const end = findHeadEnd(out, at, out.length);
        must(end > 0, `a head without its end: ${JSON.stringify(decode(out.subarray(at, at + 40)))}`);
        const head = decode(out.subarray(at, end));
        must(/^HTTP\/1\.1 \d{3} /.test(head), `not a response: ${JSON.stringify(head.slice(0, 40))}`);
        if (/^HTTP\/1\.1 100 /.test(head)) {
          at = end;
          continue;
        }
        const len = /\r\nContent-Length: (\d+)\r\n/.exec(head);
        must(len !== null, `no Content-Length in ${JSON.stringify(head)}`);
        // An answer to HEAD carries the length of the body it does not send: the next answer (or the end) follows at once.
        const next = decode(out.subarray(end, end + 9));
        at = next === 'HTTP/1.1 ' || end === out.length ? end : end + Number(len[1]);
        must(at <= out.length, 'a body shorter than its Content-Length');
      }
      // Every deadline has passed: nothing is left open or counted.
      must(s.closed, 'the connection outlived every deadline');
      must(server.stats.open === 0, `${server.stats.open} connection(s) still counted`);
    },
    toJson: (v: [Uint8Array[], boolean]) => [v[0].map(hex), v[1]],
    fromJson: (j: unknown) => {
      const [ps, half] = j as [string[], boolean];
      return [ps.map(unhex), half] as [Uint8Array[], boolean];
    },
  }),
  prop({
    name: 'forms: urlencoded fields come back exactly; percent-decoding never throws',
    runs: 200,
    arb: fc.tuple(fc.dictionary(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }), fc.string({ unit: 'grapheme', maxLength: 20 }), { maxKeys: 6 }), fc.string({ unit: 'binary', maxLength: 60 })),
    check([fields, junk]: [Record<string, string>, string]) {
      const text = Object.entries(fields)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .join('&');
      const got = parseUrlEncoded(text);
      must(got.size === Object.keys(fields).length, 'field count');
      for (const [k, v] of Object.entries(fields)) must(got.get(k) === v, `field ${JSON.stringify(k)}`);
      const d = percentDecode(junk);
      must(d === null || typeof d === 'string', 'percentDecode result');
      parseUrlEncoded(junk);
    },
    toJson: (v) => v,
    fromJson: (j: unknown) => j as [Record<string, string>, string],
  }),
  prop({
    name: 'forms: a multipart body comes back exactly; any bytes and boundary never throw',
    runs: 150,
    arb: fc.record({
      boundary: chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_', 1, 70),
      parts: fc.uniqueArray(
        fc.record({ name: chars('abcdefghijklmnopqrstuvwxyz0123456789_', 1, 10), file: fc.option(fc.constantFrom('a.wav', 'b c.txt', 'x.mp3')), data: noise(300) }),
        { selector: (p) => p.name, maxLength: 5 },
      ),
      junk: noise(300),
      mutations: fc.array(mutation, { maxLength: 3 }),
    }),
    check(v: { boundary: string; parts: Array<{ name: string; file: string | null; data: Uint8Array }>; junk: Uint8Array; mutations: Mutation[] }) {
      const delim = encode(`\r\n--${v.boundary}`);
      const contains = (hay: Uint8Array, needle: Uint8Array): boolean => {
        outer: for (let i = 0; i + needle.length <= hay.length; i++) {
          for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
          return true;
        }
        return false;
      };
      const segs: Uint8Array[] = [];
      for (const p of v.parts) {
        const disp = `form-data; name="${p.name}"${p.file ? `; filename="${p.file}"` : ''}`;
        segs.push(encode(`--${v.boundary}\r\nContent-Disposition: ${disp}\r\n${p.file ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`), p.data, encode('\r\n'));
      }
      segs.push(encode(`--${v.boundary}--\r\n`));
      const body = concat(segs);
      const clean = v.parts.every((p) => !contains(concat([p.data, encode('\r\n')]), delim) && (p.file !== null || isUtf8RoundTrip(p.data)));
      if (v.parts.length && clean) {
        const r = parseMultipart(body, v.boundary);
        must(r.ok, `refused: ${r.ok ? '' : r.error}`);
        for (const p of v.parts) {
          if (p.file) {
            const f = r.form.files.find((x) => x.name === p.name);
            must(f && f.filename === p.file && sameBytes(f.data, p.data), `file ${p.name}`);
          } else must(r.form.fields.get(p.name) === decode(p.data), `field ${p.name}`);
        }
      }
      for (const b of [mutate(body, v.mutations), v.junk]) {
        const r = parseMultipart(b, v.boundary);
        must(r.ok === true || typeof r.error === 'string', 'a result');
        parseForm({ method: 'POST', path: '/', query: '', remote: '', headers: new Map([['content-type', `multipart/form-data; boundary=${v.boundary}`]]), body: b });
      }
    },
    toJson: (v: { parts: Array<{ data: Uint8Array }>; junk: Uint8Array }) => ({ ...v, parts: v.parts.map((p) => ({ ...p, data: hex(p.data) })), junk: hex(v.junk) }),
    fromJson: (j: unknown) => {
      const v = j as { boundary: string; parts: Array<{ name: string; file: string | null; data: string }>; junk: string; mutations: Mutation[] };
      return { ...v, parts: v.parts.map((p) => ({ ...p, data: unhex(p.data) })), junk: unhex(v.junk) };
    },
  }),
  prop({
    name: 'json-rpc: any JSON value is classified as exactly one kind of message, with the rules of each',
    runs: 300,
    arb: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0', 2), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.double()), method: fc.oneof(fc.string(), fc.integer()), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    ),
    check(v: unknown) {
      const m = classify(v);
      must(['request', 'notification', 'response', 'invalid'].includes(m.kind), `kind ${m.kind}`);
      if (m.kind === 'request') must((typeof m.id === 'string' || Number.isFinite(m.id)) && typeof m.method === 'string' && m.method.length > 0, 'a request');
      if (m.kind === 'invalid') must(m.reason.length > 0 && (m.id === null || typeof m.id === 'string' || Number.isFinite(m.id)), 'an invalid message');
    },
    toJson: (v) => v,
    fromJson: (j) => j,
  }),
  prop({
    name: 'POST /mcp: any body, batch or not, gets a JSON-RPC answer (or 202), never a throw',
    async: true,
    runs: 200,
    arb: fc.tuple(
      fc.oneof(
        fc.json({ maxDepth: 3 }),
        text(80),
        fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string()), method: fc.constantFrom('ping', 'tools/list', 'tools/call', 'initialize', 'nope'), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['jsonrpc'] }), { maxLength: 4 }).map((a) => JSON.stringify(a.length === 1 ? a[0] : a)),
      ),
      fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
      fc.option(fc.constantFrom('2025-03-26', '2026-07-28', '1999-01-01')),
    ),
    async check([body, type, version]: [string, string, string | null]) {
      const server = new McpServer(new ToolRegistry(), { name: 'fuzz', title: 'Fuzz', version: 'v1' }, () => OWNER, '');
      const headers = new Map([['content-type', type]]);
      if (version) headers.set('mcp-protocol-version', version);
      const res = await server.handle({ method: 'POST', path: '/mcp', query: '', remote: '', headers, body: encode(body) });
      must(res.status >= 200 && res.status < 500, `status ${res.status}`);
      if (res.status === 202) return;
      const parsed = JSON.parse(String(res.body)) as unknown;
      const each = Array.isArray(parsed) ? parsed : [parsed];
      for (const r of each) must(r && (r as Record<string, unknown>)['jsonrpc'] === '2.0' && ('result' in (r as object) || 'error' in (r as object)), 'a JSON-RPC response');
    },
    toJson: (v) => v,
    fromJson: (j) => j as [string, string, string | null],
  }),
  prop({
    name: 'turn contract: any text is Ok with a turn or one of the four errors with none, never a throw',
    runs: 300,
    arb: fc.oneof(
      text(200),
      fc.json({ maxDepth: 3 }),
      fc.record({ reply: fc.oneof(fc.string(), fc.integer()), memory: fc.string(), ask: fc.string(), device: fc.jsonValue({ maxDepth: 2 }), mem_write: fc.jsonValue({ maxDepth: 2 }), session_ops: fc.jsonValue({ maxDepth: 2 }), scratchpad: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
    ).chain((t) => fc.oneof(fc.constant(t), fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => decode(mutate(encode(t), ms))))),
    check(t: string) {
      const r = parseTurn(t);
      must(['Ok', 'JsonError', 'NotObject', 'MissingField', 'WrongType'].includes(r.code), `code ${r.code}`);
      must(typeof r.detail === 'string', 'detail');
      must((r.code === 'Ok') === (r.turn !== null), 'a turn only when Ok');
    },
    toJson: (v) => v,
    fromJson: (j) => String(j),
  }),
  prop({
    name: 'relay frames: frames are read back exactly whatever the pieces; any bytes never throw and an error is final',
    runs: 300,
    arb: fc.tuple(
      fc.array(fc.record({ type: fc.integer({ min: 0, max: 255 }), stream: fc.nat(), payload: noise(600) }), { maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      nearly(fc.constant(frame(F.REQ, 1, '{"method":"GET","target":"/"}')), 64),
    ),
    check([frames, cuts, junk]: [Array<{ type: number; stream: number; payload: Uint8Array }>, number[], Uint8Array]) {
      const wire = concat(frames.map((f) => frame(f.type, f.stream, f.payload)));
      const d = new FrameDecoder();
      const got: Array<{ type: number; stream: number; payload: Uint8Array }> = [];
      let from = 0;
      for (const c of [...cuts.map((x) => x % (wire.length + 1)), wire.length].sort((x, y) => x - y)) {
        got.push(...d.feed(wire.subarray(from, c)));
        from = c;
      }
      must(d.error === null, `error ${d.error}`);
      must(got.length === frames.length, `${got.length} of ${frames.length} frames`);
      frames.forEach((f, i) => must(got[i]!.type === f.type && got[i]!.stream === f.stream >>> 0 && sameBytes(got[i]!.payload, f.payload), `frame ${i}`));
      const j = new FrameDecoder();
      const out = j.feed(junk);
      for (const f of out) {
        must(f.payload.length <= MAX_PAYLOAD, 'payload size');
        payloadJson(f);
      }
      if (j.error) must(j.feed(junk).length === 0, 'error not final');
    },
    toJson: (v: [Array<{ payload: Uint8Array }>, number[], Uint8Array]) => [v[0].map((f) => ({ ...f, payload: hex(f.payload) })), v[1], hex(v[2])],
    fromJson: (j: unknown) => {
      const [fs, cuts, junk] = j as [Array<{ type: number; stream: number; payload: string }>, number[], string];
      return [fs.map((f) => ({ ...f, payload: unhex(f.payload) })), cuts, unhex(junk)] as [Array<{ type: number; stream: number; payload: Uint8Array }>, number[], Uint8Array];
    },
  }),
  prop({
    name: 'relay client: any frames from the relay, in any pieces, are answered with well-formed frames; streams and kept requests stay bounded',
    runs: 120,
    async: true,
    arb: fc.tuple(
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: fc
            .record({ stream: fc.integer({ min: 0, max: 15 }), method: fc.constantFrom('GET', 'POST', 'HEAD', ''), target: fc.constantFrom('/api/x', '/api/slow', '/api/connect', '/api/%63onnect', 'nope', '/'), rid: fc.option(fc.constantFrom('r1', 'r2', 'r3', '')), length: fc.integer({ min: -1, max: 70_000 }) })
            .map((r) => jsonFrame(F.REQ, r.stream, { method: r.method, target: r.target, headers: [['content-type', 'application/json']], length: r.length, ...(r.rid === null ? {} : { rid: r.rid }) })) },
          fc.record({ type: fc.constantFrom(F.BODY, F.END, F.RESET, F.DONE, F.PING, F.PONG, F.LOOPRES, F.PAIRED, 0x7f), stream: fc.integer({ min: 0, max: 9 }), payload: fc.oneof(noise(40), fc.constantFrom(encode('{"rid":"r1"}'), encode('{}'), encode('{"tag":1}'))) }).map((f) => frame(f.type, f.stream, f.payload)),
          noise(32),
        ),
        { maxLength: 20 },
      ).chain((frames) =>
        // Now and then a relay that opens many streams and never ends them.
        fc.oneof({ weight: 3, arbitrary: fc.constant(frames) }, { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 1000 }), { maxLength: 40 }).map((ids) => [...frames, ...ids.map((id) => jsonFrame(F.REQ, id, { method: 'GET', target: '/api/slow', headers: [], length: 0 }))]) }),
      ),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.boolean(),
    ),
    async check([frames, cuts, drop]: [Uint8Array[], number[], boolean]) {
      const clock = new FakeClock();
      const sockets: FakeSocket[] = [];
      const net: Net = {
        listen: () => {
          throw new Error('no');
        },
        connect: (_o: ConnectOptions) => {
          const s = new FakeSocket();
          sockets.push(s);
          return s;
        },
        udp: () => {
          throw new Error('no');
        },
        multicast: () => {
          throw new Error('no');
        },
      };
      const kept = new Map<string, string>([
        ['id', 'd1'],
        ['cred', 'c'.repeat(43)],
      ]);
      const store = {
        strOrNull: (k: string) => kept.get(k) ?? null,
        str: (k: string, f: string) => kept.get(k) ?? f,
        setMany: (es: ReadonlyArray<readonly [string, unknown]>) => {
          for (const [k, v] of es) {
            if (v === undefined) kept.delete(k);
            else kept.set(k, String(v));
          }
        },
      } as unknown as Store;
      const router = new Router(() => true);
      router.add({ method: 'GET', path: '/api/x', handler: () => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"x":1,"token":"t"}' }) });
      router.add({ method: 'POST', path: '/api/x', handler: () => ({ status: 200, body: 'ok' }) });
      router.add({ method: 'GET', path: '/api/slow', handler: () => new Promise((r) => clock.setTimeout(() => r({ status: 200, body: 'late' }), 3000)) });
      const dispatcher = new TunnelDispatcher({ router, token: () => 't'.repeat(24), secrets: () => [{ kind: 'token', value: 't'.repeat(24) }] });
      let n = 0;
      const relay = new CloudRelay({
        net,
        clock,
        store,
        random: (b) => b.forEach((_, i) => (b[i] = (n++ * 37 + i) & 0xff)),
        caBundle: () => '',
        log: { info() {}, warn() {} },
        secret() {},
        dispatcher,
        identity: { fw: 'v1.0.0', board: 'fuzz' },
      });
      relay.start();
      const s = sockets[0]!;
      s.onConnect?.call(s);
      const wire = concat([frame(F.WELCOME, 0, '{}'), ...frames]);
      let from = 0;
      for (const c of [...cuts.map((x) => x % (wire.length + 1)), wire.length].sort((x, y) => x - y)) {
        if (s.closed) break;
        if (c > from) s.onData?.call(s, wire.subarray(from, c));
        from = Math.max(from, c);
        await settle();
      }
      if (drop && !s.closed) s.destroy();
      await settle();
      clock.advance(5000);
      await settle();
      must(relay.inFlight() <= 2 * MAX_STREAMS, `${relay.inFlight()} streams held`);
      must(relay.remembered() <= MAX_RUNS, `${relay.remembered()} requests remembered`);
      // What the device wrote is frames, each whole.
      for (const sock of sockets) {
        const d = new FrameDecoder();
        d.feed(concat(sock.written));
        must(d.error === null, `the device wrote a bad frame: ${d.error}`);
      }
      relay.stop();
    },
    toJson: (v: [Uint8Array[], number[], boolean]) => [v[0].map(hex), v[1], v[2]],
    fromJson: (j: unknown) => {
      const [fs, cuts, drop] = j as [string[], number[], boolean];
      return [fs.map(unhex), cuts, drop] as [Uint8Array[], number[], boolean];
    },
  }),
  prop({
    name: 'tunnel guard: the credential routes are refused however they are written; canonical paths are stable',
    runs: 400,
    arb: fc.tuple(
      fc.constantFrom(...TUNNEL_DENIED),
      fc.array(fc.constantFrom('encode', 'encode2', 'upper', 'slash', 'dot', 'dotdot', 'query', 'trail', 'backslash'), { maxLength: 6 }),
      fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
      fc.oneof(fc.string({ unit: 'binary', maxLength: 16 }), chars('/%2fF5cC.\\?#aApPi0123456789', 0, 60)),
    ),
    check([denied, steps, picks, junk]: [string, string[], number[], string]) {
      let p = denied;
      steps.forEach((s, i) => {
        const at = 1 + (picks[i]! % Math.max(1, p.length - 1));
        const ch = p[at] ?? '';
        const pct = (c: string): string => '%' + c.charCodeAt(0).toString(16).padStart(2, '0');
        if (s === 'encode' && ch) p = p.slice(0, at) + pct(ch) + p.slice(at + 1);
        else if (s === 'encode2' && ch) p = p.slice(0, at) + '%25' + pct(ch).slice(1) + p.slice(at + 1);
        else if (s === 'upper') p = p.toUpperCase();
        else if (s === 'slash') p = p.replace('/', '//');
        else if (s === 'dot') p = p.replace('/api/', '/api/./');
        else if (s === 'dotdot') p = p.replace('/api/', '/api/x/../');
        else if (s === 'query') p = p + '?x=1';
        else if (s === 'trail') p = p + '/';
        else if (s === 'backslash') p = p.replace('/api/', '/api\\');
      });
      must(!tunnelAllows(p).allowed, `${p} (from ${denied}) was allowed`);
      const c = canonicalPath(junk);
      if (c !== null) {
        must(c.startsWith('/') && c === c.toLowerCase(), `canonical ${JSON.stringify(c)}`);
        must(canonicalPath(c) === c, `canonical of ${JSON.stringify(c)} moved`);
      }
    },
    toJson: (v) => v,
    fromJson: (j) => j as [string, string[], number[], string],
  }),
  prop({
    name: 'tunnel screen: a secret in any form anywhere in any bytes is found, whole or in pieces, and nothing of it leaves first; none is found where none is',
    runs: 200,
    arb: fc.tuple(
      // Small alphabets, so near misses and overlaps are common.
      fc.array(fc.tuple(fc.constantFrom<SecretKind>('token', 'signin-code', 'setup-passphrase', 'launch-key', 'credential'), chars('AB23ab-+ "&', 8, 20)), { minLength: 1, maxLength: 4 }),
      chars('AB23ab-+ "&%\u00e9', 0, 200),
      fc.option(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()), { nil: null }),
      fc.array(fc.nat(), { maxLength: 6 }),
    ),
    check([list, around, plant, cuts]: [Array<[SecretKind, string]>, string, [number, number, number, boolean] | null, number[]]) {
      const secrets: LiveSecret[] = list.map(([kind, value]) => ({ kind, value }));
      let text = around;
      if (plant) {
        const forms = secretForms(secrets[plant[0] % secrets.length]!);
        const form = forms[plant[1] % forms.length]!;
        const at = plant[2] % (text.length + 1);
        text = text.slice(0, at) + (plant[3] ? form.toUpperCase() : form) + text.slice(at);
      }
      const body = encode(text);
      const fold = (b: Uint8Array): string => {
        let s = '';
        for (const x of b) s += String.fromCharCode(x >= 0x41 && x <= 0x5a ? x + 0x20 : x);
        return s;
      };
      const needles = secrets.flatMap((s) => secretForms(s)).map((f) => fold(encode(f)));
      const holds = (b: Uint8Array): boolean => {
        const t = fold(b);
        return needles.some((n) => t.includes(n));
      };
      const screen = new SecretScreen(secrets);
      const expected = holds(body);
      if (plant) must(expected, 'a planted secret is in the body');
      must((screen.find(body) !== null) === expected, `find said ${screen.find(body)} for ${JSON.stringify(text)}`);
      const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((x, y) => x - y);
      const stream = screen.stream();
      const passed: Uint8Array[] = [];
      let found = false;
      let from = 0;
      for (const p of [...points, body.length]) {
        const step = stream.push(body.subarray(from, Math.max(from, p)));
        from = Math.max(from, p);
        if (!step.ok) {
          found = true;
          break;
        }
        passed.push(step.pass);
      }
      if (!found) passed.push(stream.end());
      must(found === expected, `the stream said ${found}`);
      const out = concat(passed);
      must(!holds(out), 'a secret left before it was found');
      if (!expected) must(sameBytes(out, body), 'a clean body came out changed');
    },
    toJson: (v) => v,
    fromJson: (j) => j as [Array<[SecretKind, string]>, string, [number, number, number, boolean] | null, number[]],
  }),
  prop({
    name: 'BLE: a valid FRAME is read back exactly; any bytes are refused with a code, never a throw; CONFIG and STATUS alike',
    runs: 300,
    arb: fc.tuple(
      fc.nat(),
      fc.record({
        led: fc.option(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.option(fc.integer({ min: 0, max: 255 })))),
        anim: fc.option(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.option(fc.integer({ min: 0, max: 65535 })))),
        notice: fc.option(fc.tuple(fc.integer({ min: 0, max: 65535 }), chars('ab cdé€😀', 1, 12), chars('xy z\né', 0, 60))),
        wake: fc.boolean(),
      }),
      nearly(fc.constant(encodeBleFrame(7, [{ type: RECORD.wake, body: new Uint8Array(0) }])), 600),
    ),
    check([seq, r, junk]: [number, BleSpec, Uint8Array]) {
      const records: Array<{ type: number; body: Uint8Array }> = [];
      if (r.led) records.push({ type: RECORD.led, body: Uint8Array.from(r.led[4] === null ? r.led.slice(0, 4) : r.led) });
      if (r.anim) records.push({ type: RECORD.anim, body: r.anim[1] === null ? Uint8Array.of(r.anim[0]) : Uint8Array.of(r.anim[0], r.anim[1] & 0xff, r.anim[1] >> 8) });
      if (r.notice) {
        const t = encode(r.notice[1]);
        records.push({ type: RECORD.notice, body: concat([Uint8Array.of(r.notice[0] & 0xff, r.notice[0] >> 8, t.length), t, encode(r.notice[2])]) });
      }
      if (r.wake) records.push({ type: RECORD.wake, body: new Uint8Array(0) });
      const wire = encodeBleFrame(seq, records);
      const got = parseBleFrame(wire);
      must(got.ok, `refused: ${got.ok ? '' : got.reason}`);
      must(got.frame.seq === seq >>> 0 && got.frame.records.length === records.length, 'records');
      const notice = got.frame.records.find((x) => x.kind === 'notice');
      if (r.notice) must(notice && notice.kind === 'notice' && notice.title === r.notice[1] && notice.body === r.notice[2] && notice.holdS === r.notice[0], 'notice');
      for (const parse of [parseBleFrame, parseConfigWrite]) {
        const x = parse(junk);
        must(x.ok === true || (typeof (x as { code: unknown }).code === 'number' && (x as { reason: string }).reason.length > 0), 'a refusal has a code and a reason');
      }
      const status = decodeStatus(junk);
      must(status === null || status.version === 1, 'status');
      const s = { bonded: r.wake, notice: false, ring: true, hasBonds: r.wake, seq, frames: seq >> 1, last: 0, firmware: 'v1.2.3' };
      const back = decodeStatus(encodeStatus(s));
      must(back !== null && back.seq === s.seq >>> 0 && back.firmware === s.firmware && back.bonded === s.bonded, 'STATUS read back');
    },
    toJson: (v) => [v[0], v[1], hex(v[2])],
    fromJson: (j: unknown) => {
      const [seq, r, junk] = j as [number, BleSpec, string];
      return [seq, r, unhex(junk)] as [number, BleSpec, Uint8Array];
    },
  }),
  prop({
    name: 'OTA manifest: any text is a manifest or a typed refusal; a variant, and an image address, never throw',
    runs: 200,
    arb: fc.tuple(
      fc.oneof(
        text(200),
        fc.json({ maxDepth: 3 }),
        fc
          .record({
            schema: fc.constantFrom(1, 2, 3, '2'),
            version: fc.constantFrom('v1.2.3', 'v0.0.1', '1.2.3', 'v9.9.9-rc1', ''),
            notes: fc.string({ maxLength: 40 }),
            variants: fc.dictionary(fc.constantFrom('ring-tft', 'panel-28', 'x'), fc.record({ url: fc.constantFrom('fw.img', 'https://u.example/f.img', '//evil/x', 'ftp://x', ''), size: fc.oneof(fc.nat(), fc.double()), sha256: fc.constantFrom('0'.repeat(64), 'AB', ''), sig: fc.string({ maxLength: 20 }) }, { requiredKeys: [] })),
          }, { requiredKeys: [] })
          .map((m) => JSON.stringify(m)),
      ),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
    ),
    check([text, key, ref]: [string, string, string]) {
      const r = parseManifest(text);
      if (!r.ok) must(r.error.length > 0 && typeof r.detail === 'string', 'a refusal');
      else for (const k of [key, ...Object.keys(r.manifest.variants)]) selectVariant(r.manifest, k, 6_815_744);
      for (const base of ['https://u.example/rel/manifest.json', 'http://127.0.0.1:9/m.json', ref]) {
        const u = resolveImageUrl(base, ref);
        must(u === null || /^https?:\/\//i.test(u), `image address ${JSON.stringify(u)}`);
      }
    },
    toJson: (v) => v,
    fromJson: (j) => j as [string, string, string],
  }),
  prop({
    name: 'HTTP client: any answer, in any pieces, ends in a response or a typed error, never a throw or a hang',
    async: true,
    runs: 200,
    arb: fc.tuple(
      pieces(
        nearly(
          fc.tuple(fc.integer({ min: 100, max: 599 }), noise(400), fc.boolean()).map(([status, body, chunked]) =>
            chunked
              ? concat([encode(`HTTP/1.1 ${status} X\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`), body, encode('\r\n0\r\n\r\n')])
              : concat([encode(`HTTP/1.1 ${status} X\r\nContent-Length: ${body.length}\r\n\r\n`), body]),
          ),
          800,
        ),
      ),
      fc.constantFrom('close', 'end', 'silence'),
    ),
    async check([ps, ending]: [Uint8Array[], string]) {
      const clock = new FakeClock();
      let sock: FakeSocket | null = null;
      const net: Net = {
        listen: () => {
          throw new Error('no');
        },
        connect: (_o: ConnectOptions) => (sock = new FakeSocket()),
        udp: () => {
          throw new Error('no');
        },
        multicast: () => {
          throw new Error('no');
        },
      };
      const client = new HttpClient(net, clock, { verify: () => true, caBundle: () => '' });
      let result: unknown = null;
      void client.request({ method: 'GET', url: 'http://u.example/x', maxBodyBytes: 600, timeoutMs: 10_000 }).then((r) => (result = r));
      await settle();
      const s = sock as FakeSocket | null;
      must(s !== null, 'no connection');
      s.onConnect?.call(s);
      for (const p of ps) {
        if (s.closed) break;
        s.onData?.call(s, p);
        await settle();
      }
      if (ending === 'close') s.destroy();
      else if (ending === 'end' && !s.closed) s.onEnd?.call(s);
      await settle();
      clock.advance(20_000);
      await settle();
      must(result !== null, 'no result after the deadline');
      const r = result as { ok: boolean; error?: string; response?: { status: number; body: Uint8Array } };
      if (r.ok) must(r.response!.status >= 100 && r.response!.status <= 999 && r.response!.body.length <= 600, 'a response');
      else must(['bad-url', 'connect', 'tls', 'timeout', 'protocol', 'too-large', 'aborted'].includes(r.error!), `error ${r.error}`);
    },
    toJson: (v: [Uint8Array[], string]) => [v[0].map(hex), v[1]],
    fromJson: (j: unknown) => {
      const [ps, ending] = j as [string[], string];
      return [ps.map(unhex), ending] as [Uint8Array[], string];
    },
  }),
];

function isUtf8RoundTrip(b: Uint8Array): boolean {
  return sameBytes(encode(decode(b)), b);
}

export interface Outcome {
  name: string;
  runs: number;
  failed: boolean;
  seed: number;
  path?: string;
  counterexample?: unknown;
  error?: string;
  ms: number;
}

/** Runs one property for its budget (times scale) from seed. */
export async function runProperty(p: FuzzProperty, seed: number, scale = 1, now: () => number = () => 0): Promise<Outcome> {
  const t0 = now();
  const runs = Math.max(1, Math.round(p.runs * scale));
  const prop = p.async ? fc.asyncProperty(p.arb, async (v) => void (await p.check(v))) : fc.property(p.arb, (v) => void p.check(v));
  const r = await fc.check(prop as fc.IRawProperty<[unknown]>, { numRuns: runs, seed, endOnFailure: false });
  const out: Outcome = { name: p.name, runs: r.numRuns, failed: r.failed, seed, ms: now() - t0 };
  if (r.failed) {
    out.path = r.counterexamplePath ?? undefined;
    out.counterexample = r.counterexample ? p.toJson(r.counterexample[0]) : null;
    out.error = r.errorInstance instanceof Error ? r.errorInstance.message : String(r.errorInstance);
  }
  return out;
}

/** Replays a kept case straight through the property's check. */
export async function replay(p: FuzzProperty, json: unknown): Promise<string | null> {
  try {
    await p.check(p.fromJson(json));
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
