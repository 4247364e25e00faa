// The HTTP/1.1 server on the in-memory network: framing, keep-alive, bodies,
// streaming, and every limit answering its status while the server stays up.
import { describe, expect, it } from 'vitest';
import { Router } from '../../../src/core/router.ts';
import { parseForm, parseJsonBody } from '../../../src/net/http/body.ts';
import { jsonResponse } from '../../../src/net/http/errors.ts';
import { percentDecode } from '../../../src/net/http/parse.ts';
import { HttpServer, DEFAULT_LIMITS } from '../../../src/net/http/server.ts';
import type { HttpRequest } from '../../../src/net/http/types.ts';
import type { Socket } from '../../../src/hal/index.ts';
import { decode } from '../../../src/util/utf8.ts';
import { VirtualClock, flushJobs } from '../../support/clock.ts';
import { exchange, parseResponses, request } from '../../support/http.ts';
import { MemNet } from '../../support/memnet.ts';

/** The device's gate in small: the header decides when present, else a form field. */
const gate = Object.assign(
  (req: HttpRequest): boolean => {
    const header = req.headers.get('x-device-token');
    if (header !== undefined) return header === 'secret';
    const form = parseForm(req);
    return form.ok && form.form.fields.get('token') === 'secret';
  },
  { presented: (headers: Map<string, string>) => headers.has('x-device-token') },
);

function setup(limits = DEFAULT_LIMITS) {
  const net = new MemNet();
  const clock = new VirtualClock();
  const seen: HttpRequest[] = [];
  const router = new Router(gate);
  router.add({ method: 'GET', path: '/', access: 'open', handler: () => ({ status: 200, body: 'home' }) });
  router.add({
    method: 'POST',
    path: '/echo',
    access: 'open',
    bodyLimit: 64,
    handler: (req) => {
      seen.push(req);
      return { status: 200, headers: { 'Content-Type': 'application/octet-stream' }, body: req.body };
    },
  });
  router.add({
    method: 'POST',
    path: '/form',
    access: 'open',
    bodyLimit: 4096,
    handler: (req) => {
      const form = parseForm(req);
      if (!form.ok) return jsonResponse({ error: form.error }, 400);
      return jsonResponse({ fields: Object.fromEntries(form.form.fields), files: form.form.files.map((f) => ({ name: f.name, filename: f.filename, text: decode(f.data) })) });
    },
  });
  router.add({
    method: 'POST',
    path: '/json',
    access: 'open',
    handler: (req) => {
      const body = parseJsonBody(req);
      return body.ok ? jsonResponse({ got: body.value }) : jsonResponse({ error: body.error }, 400);
    },
  });
  router.add({
    method: 'GET',
    path: '/stream',
    access: 'open',
    handler: () => ({
      status: 200,
      stream: {
        start(w) {
          let i = 0;
          const pump = (): void => {
            while (i < 5) {
              if (!w.write(`part${i++};`)) {
                w.onDrain = pump;
                return;
              }
            }
            w.end();
          };
          pump();
        },
      },
    }),
  });
  router.add({ method: 'GET', path: '/slow', access: 'open', handler: () => new Promise(() => {}) });
  router.add({ method: 'GET', path: '/private', handler: () => ({ status: 200, body: 'secret stuff' }) });
  router.add({ method: 'GET', path: '/private-slow', handler: () => new Promise(() => {}) });
  router.add({
    method: 'POST',
    path: '/upload',
    bodyLimit: 64 * 1024,
    handler: (req) => {
      seen.push(req);
      return { status: 200, body: String(req.body.length) };
    },
  });
  const server = new HttpServer(net, clock, router, limits);
  server.listen(80);
  return { net, clock, server, seen };
}

describe('HTTP server', () => {
  it('answers a simple request and closes on Connection: close', async () => {
    const { net } = setup();
    const res = await request(net, 80, 'GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toBe('home');
    expect(res.headers.get('connection')).toBe('close');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps a connection alive across requests and answers pipelined requests in order', async () => {
    const { net, server } = setup();
    const raw = 'GET / HTTP/1.1\r\nHost: d\r\n\r\nPOST /echo HTTP/1.1\r\nHost: d\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: d\r\n\r\n';
    const { socket, responses } = await exchange(net, 80, raw, 3);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(responses[1]!.body).toBe('hello');
    expect(socket.closed).toBe(false);
    expect(server.stats.requests).toBe(3);
  });

  it('reads chunked bodies', async () => {
    const { net, seen } = setup();
    const raw = 'POST /echo HTTP/1.1\r\nHost: d\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n';
    const { responses } = await exchange(net, 80, raw);
    expect(responses[0]?.status).toBe(200);
    expect(decode(seen[0]!.body)).toBe('hello world');
  });

  it('parses urlencoded, multipart and JSON bodies', async () => {
    const { net } = setup();
    const form = await request(net, 80, 'POST', '/form', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'a=1&name=J%C3%BCrgen+M&empty=&%F0%9F%98%80=smile',
    });
    expect(JSON.parse(form.body).fields).toEqual({ a: '1', name: 'Jürgen M', empty: '', '😀': 'smile' });
    const boundary = 'XyZ';
    const multipart =
      `--${boundary}\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue 1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="song.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....\r\n` +
      `--${boundary}--\r\n`;
    const mp = await request(net, 80, 'POST', '/form', { headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: multipart });
    expect(JSON.parse(mp.body)).toEqual({ fields: { field: 'value 1' }, files: [{ name: 'file', filename: 'song.wav', text: 'RIFF....' }] });
    const json = await request(net, 80, 'POST', '/json', { headers: { 'Content-Type': 'application/json' }, body: '{"x":[1,2]}' });
    expect(JSON.parse(json.body)).toEqual({ got: { x: [1, 2] } });
    const bad = await request(net, 80, 'POST', '/json', { headers: { 'Content-Type': 'application/json' }, body: '{"x":' });
    expect(bad.status).toBe(400);
  });

  it('streams a response body with chunked encoding and honours back-pressure', async () => {
    const { net } = setup();
    const res = await request(net, 80, 'GET', '/stream');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.body).toBe('part0;part1;part2;part3;part4;');
  });

  it('answers 431 to an over-large head, 413 to an over-large body, 400 to garbage, and stays up', async () => {
    const { net } = setup();
    const huge = `GET / HTTP/1.1\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`;
    expect((await exchange(net, 80, huge)).responses[0]?.status).toBe(431);
    const big = `POST /echo HTTP/1.1\r\nContent-Length: 65\r\n\r\n${'b'.repeat(65)}`;
    expect((await exchange(net, 80, big)).responses[0]?.status).toBe(413);
    const chunkedBig = `POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n${'c'.repeat(65)}\r\n0\r\n\r\n`;
    expect((await exchange(net, 80, chunkedBig)).responses[0]?.status).toBe(413);
    for (const junk of ['\x00\x01\x02\r\n\r\n', 'GET\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET / HTTP/1.1\r\n folded\r\n\r\n', 'GET nope HTTP/1.1\r\n\r\n']) {
      const res = (await exchange(net, 80, junk)).responses[0];
      expect(res?.status, JSON.stringify(junk)).toBe(400);
      expect(JSON.parse(res!.body).error).toBe('bad-request');
    }
    expect((await request(net, 80, 'GET', '/')).status).toBe(200);
  });

  it('refuses request-smuggling framing (both Content-Length and Transfer-Encoding, conflicting lengths)', async () => {
    const { net } = setup();
    const both = 'POST /echo HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    expect((await exchange(net, 80, both)).responses[0]?.status).toBe(400);
    const conflict = 'POST /echo HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd';
    expect((await exchange(net, 80, conflict)).responses[0]?.status).toBe(400);
  });

  it('times out a slow sender with 408 and drops an idle keep-alive connection', async () => {
    const { net, clock } = setup();
    const slow = net.client(80);
    slow.send('GET / HTTP/1.1\r\nHost: d\r\n');
    await flushJobs();
    await clock.advance(DEFAULT_LIMITS.headTimeoutMs);
    expect(parseResponses(slow.text())[0]?.status).toBe(408);
    expect(slow.closed).toBe(true);
    const body = net.client(80);
    body.send('POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc');
    await clock.advance(DEFAULT_LIMITS.bodyIdleTimeoutMs);
    expect(parseResponses(body.text())[0]?.status).toBe(408);
    const idle = net.client(80);
    await clock.advance(DEFAULT_LIMITS.keepAliveIdleMs);
    expect(idle.closed).toBe(true);
    expect(idle.text()).toBe('');
  });

  it('refuses connections beyond the limit with 503 and serves again once they close', async () => {
    const { net, clock } = setup({ ...DEFAULT_LIMITS, maxConnections: 2 });
    const a = net.client(80);
    const b = net.client(80);
    a.send('GET /slow HTTP/1.1\r\n\r\n');
    b.send('GET /slow HTTP/1.1\r\n\r\n');
    await flushJobs();
    const c = (await exchange(net, 80, 'GET / HTTP/1.1\r\n\r\n')).responses[0];
    expect(c?.status).toBe(503);
    a.destroy();
    b.destroy();
    await clock.advance(1);
    expect((await request(net, 80, 'GET', '/')).status).toBe(200);
  });

  it('at the limit, closes the connection idle longest to serve a newcomer; a half-sent request is not idle', async () => {
    const { net, clock, server } = setup({ ...DEFAULT_LIMITS, maxConnections: 3 });
    const oldest = net.client(80);
    await clock.advance(100);
    const newer = net.client(80);
    newer.send('GET / HTTP/1.1\r\n\r\n'); // answered, then waits for its next request
    await flushJobs();
    const partial = net.client(80);
    partial.send('GET / HTTP/1.1\r\nX-Slow: 1\r\n'); // a request on its way
    await clock.advance(100);
    expect((await request(net, 80, 'GET', '/')).status).toBe(200);
    expect(oldest.closed).toBe(true);
    expect(newer.closed).toBe(false);
    expect(partial.closed).toBe(false);
    await clock.advance(100);
    const newest = net.client(80); // idle, but since later than the one that was answered
    expect((await request(net, 80, 'GET', '/')).status).toBe(200);
    expect(newer.closed).toBe(true);
    expect(newest.closed).toBe(false);
    // The request on its way is still answered.
    partial.send('\r\n');
    await flushJobs();
    expect(parseResponses(partial.text())[0]?.status).toBe(200);
    expect(server.stats.evicted).toBe(2);
  });

  it('gates every route not marked open, answering 401 before 404 and 405', async () => {
    const { net } = setup();
    expect((await request(net, 80, 'GET', '/private')).status).toBe(401);
    expect((await request(net, 80, 'GET', '/nope')).status).toBe(401);
    expect((await request(net, 80, 'GET', '/private', { headers: { 'X-Device-Token': 'secret' } })).status).toBe(200);
    expect((await request(net, 80, 'GET', '/nope', { headers: { 'X-Device-Token': 'secret' } })).status).toBe(404);
    expect((await request(net, 80, 'DELETE', '/private', { headers: { 'X-Device-Token': 'secret' } })).status).toBe(405);
  });

  it('answers a client that half-closes after its request, and drops one whose request is incomplete', async () => {
    const { net } = setup();
    const done = net.client(80);
    done.send('GET / HTTP/1.1\r\nHost: d\r\n\r\n');
    done.halfClose();
    for (let i = 0; i < 20 && !done.closed; i++) await flushJobs();
    expect(parseResponses(done.text())[0]?.body).toBe('home');
    expect(done.closed).toBe(true);
    const cut = net.client(80);
    cut.send('GET / HTTP/1.1\r\nHost');
    cut.halfClose();
    for (let i = 0; i < 20 && !cut.closed; i++) await flushJobs();
    expect(cut.closed).toBe(true);
    expect(cut.text()).toBe('');
  });

  it('answers HEAD like GET without a body', async () => {
    const { net } = setup();
    const { socket } = await exchange(net, 80, 'HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(socket.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: 4\r\n[\s\S]*\r\n\r\n$/);
  });
});

describe('staying available under attack (docs/decisions.md)', () => {
  const TOKEN = 'X-Device-Token: secret\r\n';

  it('refuses at the head what the gate will refuse, without reading the body: a wrong token, or a body that cannot carry one', async () => {
    const { net, seen, server } = setup();
    // A wrong token in the head: 401 at once, although 4000 body bytes were announced and none sent.
    const wrong = net.client(80);
    wrong.send('POST /upload HTTP/1.1\r\nX-Device-Token: nope\r\nContent-Length: 4000\r\n\r\n');
    for (let i = 0; i < 10 && !wrong.closed; i++) await flushJobs();
    expect(parseResponses(wrong.text())[0]?.status).toBe(401);
    expect(wrong.closed).toBe(true);
    // No token, a JSON body to a gated (or unknown) route: the same.
    for (const path of ['/upload', '/no-such-route']) {
      const json = net.client(80);
      json.send(`POST ${path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{`);
      for (let i = 0; i < 10 && !json.closed; i++) await flushJobs();
      expect(parseResponses(json.text())[0]?.status, path).toBe(401);
    }
    expect(seen).toHaveLength(0);
    expect(server.stats.refused).toBe(3);
    // A form body may carry the token: it is read, and the token in it works.
    const form = await request(net, 80, 'POST', '/upload', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=secret&x=1' });
    expect(form.status).toBe(200);
    // Open routes and the token in the head are served as before.
    expect((await request(net, 80, 'POST', '/echo', { body: 'hi' })).status).toBe(200);
    expect((await request(net, 80, 'POST', '/upload', { headers: { 'X-Device-Token': 'secret' }, body: 'x'.repeat(20_000) })).body).toBe('20000');
  });

  it('a stranger\'s body is small and must keep a minimum rate; a token holder\'s may be large and slow', async () => {
    const { net, clock } = setup();
    // Over the untrusted cap (though under the route's own limit): 413 before it is read.
    const big = `POST /upload HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${DEFAULT_LIMITS.untrustedBodyMax + 1}\r\n\r\n`;
    expect((await exchange(net, 80, big)).responses[0]?.status).toBe(413);
    // A stranger sending a byte a second: a 1000-byte form body must be in by base + 1000 / rate.
    const slow = net.client(80);
    slow.send('POST /upload HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n');
    const deadline = DEFAULT_LIMITS.untrustedBodyBaseMs + Math.ceil((1000 * 1000) / DEFAULT_LIMITS.untrustedBodyRate);
    for (let t = 0; t + 1000 < deadline; t += 1000) {
      slow.send('a');
      await clock.advance(1000);
    }
    expect(slow.closed).toBe(false);
    slow.send('a');
    await clock.advance(1000);
    expect(parseResponses(slow.text())[0]?.status).toBe(408);
    // The owner on a slow link: 3 s between pieces of a body is fine (only 10 s of silence is not).
    const owner = net.client(80);
    owner.send(`POST /upload HTTP/1.1\r\n${TOKEN}Content-Length: 30000\r\n\r\n`);
    for (let i = 0; i < 10; i++) {
      owner.send('b'.repeat(3000));
      await clock.advance(3000);
    }
    expect(parseResponses(owner.text())[0]?.status).toBe(200);
    expect(parseResponses(owner.text())[0]?.body).toBe('30000');
  });

  it('a stranger gets 5 s from connecting to the first byte and 5 s for the whole head; a token holder\'s keep-alive waits 30 s', async () => {
    const { net, clock } = setup();
    const silent = net.client(80);
    const dribble = net.client(80);
    const owner = net.client(80);
    owner.send(`GET /private HTTP/1.1\r\n${TOKEN}\r\n`);
    await flushJobs();
    expect(parseResponses(owner.text())[0]?.status).toBe(200);
    for (let i = 0; i < 4; i++) {
      dribble.send('G');
      await clock.advance(1000);
    }
    await clock.advance(DEFAULT_LIMITS.untrustedIdleMs - 4000);
    expect(silent.closed).toBe(true);
    expect(silent.text()).toBe('');
    await clock.advance(1000);
    expect(parseResponses(dribble.text())[0]?.status).toBe(408);
    await clock.advance(DEFAULT_LIMITS.keepAliveIdleMs - clock.monoMs() - 1);
    expect(owner.closed).toBe(false);
    await clock.advance(1);
    expect(owner.closed).toBe(true);
  });

  it('at the limit strangers go first, oldest first: the owner\'s kept-alive connection stays, the newest stranger stays', async () => {
    const { net, clock, server } = setup({ ...DEFAULT_LIMITS, maxConnections: 4, steadyConnections: 4 });
    const owner = net.client(80);
    owner.send(`GET /private HTTP/1.1\r\n${TOKEN}\r\n`);
    await flushJobs();
    const strangers = [];
    for (let i = 0; i < 3; i++) {
      strangers.push(net.client(80));
      await clock.advance(10);
    }
    strangers[1]!.send('GET / HTTP/1.1\r\nX-Slow: 1\r\n'); // a head on its way
    await flushJobs();
    // Each newcomer pushes out the oldest stranger, whatever it is doing; never the owner, idle longest.
    for (let i = 0; i < 3; i++) {
      net.client(80);
      await clock.advance(10);
    }
    expect(strangers.map((s) => s.closed)).toEqual([true, true, true]);
    expect(owner.closed).toBe(false);
    expect(server.stats.trusted).toBe(1);
    owner.send(`GET /private HTTP/1.1\r\n${TOKEN}\r\n`);
    await flushJobs();
    expect(parseResponses(owner.text())).toHaveLength(2);
  });

  it('above the steady count, strangers older than the trim delay are closed, oldest first; a burst\'s newest are kept', async () => {
    const { net, clock, server } = setup();
    const steady = DEFAULT_LIMITS.steadyConnections;
    const delay = DEFAULT_LIMITS.trimDelayMs;
    const old = Array.from({ length: steady }, () => net.client(80));
    await clock.advance(40);
    // Above the steady count from here: the trim runs trimDelayMs after this first extra one.
    const first = Array.from({ length: 10 }, () => net.client(80));
    await clock.advance(9);
    const second = Array.from({ length: 10 }, () => net.client(80));
    expect(server.stats.open).toBe(steady + 20);
    await clock.advance(40 + delay - clock.monoMs());
    expect(old.every((s) => s.closed)).toBe(true);
    expect(first.every((s) => s.closed)).toBe(true);
    expect(second.some((s) => s.closed)).toBe(false);
    expect(server.stats.open).toBe(10);
    // Still above: the next trim takes the oldest of the rest, down to the steady count.
    await clock.advance(delay);
    expect(server.stats.open).toBe(steady);
    expect(second.filter((s) => s.closed)).toHaveLength(10 - steady);
  });

  it('strangers together hold at most the byte budget: beyond it the oldest one holding bytes goes', async () => {
    const { net, server } = setup({ ...DEFAULT_LIMITS, untrustedBytesMax: 10_000 });
    const heads = [];
    for (let i = 0; i < 3; i++) {
      const s = net.client(80);
      s.send(`GET / HTTP/1.1\r\nX-Pad: ${'p'.repeat(4000)}`);
      heads.push(s);
      await flushJobs();
    }
    expect(heads.map((s) => s.closed)).toEqual([true, false, false]);
    expect(server.stats.evicted).toBe(1);
  });

  it('an answer the client does not take is abandoned after sendStallMs', async () => {
    const clock = new VirtualClock();
    const router = new Router(gate);
    router.add({ method: 'GET', path: '/big', access: 'open', handler: () => ({ status: 200, stream: { start: (w) => void w.write('x'.repeat(100)) } }) });
    let accept: ((s: Socket) => void) | null = null;
    const unused = (): never => {
      throw new Error('not used');
    };
    const net = { listen: (_p: number, a: (s: Socket) => void) => ((accept = a), { port: 80, close() {} }), connect: unused, udp: unused, multicast: unused };
    const server = new HttpServer(net, clock, router);
    server.listen(80);
    let destroyed = false;
    const queued = { bytes: 0 };
    const socket: Socket = {
      remote: 'r',
      get buffered() {
        return queued.bytes;
      },
      onData: null,
      onDrain: null,
      onEnd: null,
      onClose: null,
      write(b) {
        queued.bytes += b.length;
      },
      end() {},
      destroy() {
        destroyed = true;
      },
    };
    accept!(socket);
    socket.onData!.call(socket, new TextEncoder().encode('GET /big HTTP/1.1\r\n\r\n'));
    await flushJobs();
    expect(socket.buffered).toBeGreaterThan(0);
    await clock.advance(DEFAULT_LIMITS.sendStallMs - 1);
    socket.onDrain!.call(socket); // some of it went: the wait starts again
    await clock.advance(DEFAULT_LIMITS.sendStallMs - 1);
    expect(destroyed).toBe(false);
    await clock.advance(1);
    expect(destroyed).toBe(true);
    expect(server.stats.timedOut).toBe(1);
  });
});

describe('percent-decoding', () => {
  it('decodes UTF-8 escapes and refuses malformed ones', () => {
    expect(percentDecode('a%20b')).toBe('a b');
    expect(percentDecode('%E2%82%AC%F0%9F%98%80x')).toBe('€😀x');
    expect(percentDecode('😀%41')).toBe('😀A');
    expect(percentDecode('%zz')).toBeNull();
    expect(percentDecode('%4')).toBeNull();
  });
});
