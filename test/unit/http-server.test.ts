// The HTTP/1.1 server on the in-memory network: framing, keep-alive, bodies,
// streaming, and every limit answering its status while the server stays up.
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/api/router.ts';
import { parseForm, parseJsonBody } from '../../src/net/http/body.ts';
import { jsonResponse } from '../../src/net/http/errors.ts';
import { percentDecode } from '../../src/net/http/parse.ts';
import { HttpServer, DEFAULT_LIMITS } from '../../src/net/http/server.ts';
import type { HttpRequest } from '../../src/net/http/types.ts';
import { decode } from '../../src/util/utf8.ts';
import { VirtualClock, flushJobs } from '../support/clock.ts';
import { exchange, parseResponses, request } from '../support/http.ts';
import { MemNet } from '../support/memnet.ts';

function setup(limits = DEFAULT_LIMITS) {
  const net = new MemNet();
  const clock = new VirtualClock();
  const seen: HttpRequest[] = [];
  const router = new Router((req) => req.headers.get('x-device-token') === 'secret');
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

describe('percent-decoding', () => {
  it('decodes UTF-8 escapes and refuses malformed ones', () => {
    expect(percentDecode('a%20b')).toBe('a b');
    expect(percentDecode('%E2%82%AC%F0%9F%98%80x')).toBe('€😀x');
    expect(percentDecode('😀%41')).toBe('😀A');
    expect(percentDecode('%zz')).toBeNull();
    expect(percentDecode('%4')).toBeNull();
  });
});
