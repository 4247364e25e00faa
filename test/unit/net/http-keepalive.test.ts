// The HTTP client's kept-alive connections and its silence deadline, on the
// in-memory network and the virtual clock: requests to one origin share one
// connection (counted: every connect is a TCP and TLS handshake), only when
// the server keeps it; the pool is bounded per origin and in all and closes
// what stays idle; a connection the server closed while idle is never used;
// one found closed under a request is replaced once for requests that are
// safe to send again (idempotent methods, idempotent POSTs, rewindable
// bodies) and never for the others; and a streamed answer is cut by silence,
// not by its length.
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/net/http/client.ts';
import { POOL_IDLE_MS, POOL_PER_HOST, POOL_TOTAL } from '../../../src/net/http/pool.ts';
import { decode } from '../../../src/util/utf8.ts';
import { VirtualClock, flushJobs } from '../../support/clock.ts';
import { MemNet, type MemSocket } from '../../support/memnet.ts';

const enc = new TextEncoder();

function setup(verify = true) {
  const net = new MemNet();
  const clock = new VirtualClock();
  const client = new HttpClient(net, clock, { verify: () => verify, caBundle: () => 'ca' });
  return { net, clock, client };
}

interface Seen {
  socket: number;
  method: string;
  path: string;
  body: string;
  headers: string;
}

/**
 * A keep-alive server: reads request after request on each connection (head and Content-Length body)
 * and answers each with reply(); 'drop' closes the connection instead of answering (as a server that
 * closed it just as the request went out), 'hold' answers nothing.
 */
function keepAliveServer(net: MemNet, host: string, port: number, reply: (r: Seen, n: number) => string | 'drop' | 'hold' = () => ok('fine'), trusted = true) {
  const seen: Seen[] = [];
  const sockets: MemSocket[] = [];
  net.serve(
    host,
    port,
    (s) => {
      const id = sockets.push(s) - 1;
      let buf = '';
      s.onData = (c) => {
        buf += decode(c);
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buf.slice(0, end);
          const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buf.length < end + 4 + len) return;
          const [method, path] = head.split(' ');
          const r = { socket: id, method: method!, path: path!, body: buf.slice(end + 4, end + 4 + len), headers: head };
          buf = buf.slice(end + 4 + len);
          seen.push(r);
          const out = reply(r, seen.length);
          if (out === 'drop') return s.destroy();
          if (out !== 'hold') s.send(out);
        }
      };
    },
    { trusted },
  );
  return { seen, sockets };
}

const ok = (body: string, extra = ''): string => `HTTP/1.1 200 OK\r\nContent-Length: ${enc.encode(body).length}\r\n${extra}\r\n${body}`;

describe('kept-alive connections', () => {
  it('requests to one origin share one connection (one handshake), and none says Connection: close', async () => {
    const { net, client } = setup();
    const srv = keepAliveServer(net, 'api.example.com', 443);
    for (let i = 0; i < 5; i++) {
      const r = await client.request({ method: i % 2 ? 'GET' : 'POST', url: `https://api.example.com/v1/x${i}`, body: i % 2 ? undefined : `{"i":${i}}` });
      expect(r.ok && decode(r.response.body)).toBe('fine');
    }
    expect(net.attempts).toHaveLength(1);
    expect(srv.seen.map((s) => s.socket)).toEqual([0, 0, 0, 0, 0]);
    expect(srv.seen.map((s) => s.path)).toEqual(['/v1/x0', '/v1/x1', '/v1/x2', '/v1/x3', '/v1/x4']);
    expect(srv.seen.every((s) => !/connection:/i.test(s.headers))).toBe(true);
    expect(client.pool.stats).toEqual({ opened: 1, reused: 4, retried: 0 });
  });

  it('a connection is kept only when the server keeps it: Connection: close, HTTP/1.0, a body read to the close, extra bytes (negative controls)', async () => {
    const { net, client } = setup();
    const variants: Record<string, string> = {
      'keeps.example': ok('a'),
      'close.example': ok('a', 'Connection: close\r\n'),
      'http10.example': 'HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\na',
      'unframed.example': 'HTTP/1.1 200 OK\r\n\r\na',
      'extra.example': `${ok('a')}HTTP/1.1 200 OK`,
    };
    for (const [host, answer] of Object.entries(variants)) {
      net.serve(host, 443, (s) => {
        s.onData = () => {
          if (!s.text().endsWith('\r\n\r\n')) return;
          s.send(answer);
          // The unframed body ends only when the server closes.
          if (host === 'unframed.example') s.end();
          s.inbox.length = 0;
        };
      });
      for (let i = 0; i < 2; i++) {
        const r = await client.request({ method: 'GET', url: `https://${host}/` });
        expect(r.ok && decode(r.response.body)).toBe('a');
      }
    }
    const per = (host: string): number => net.attempts.filter((a) => a.host === host).length;
    expect(per('keeps.example')).toBe(1);
    for (const host of Object.keys(variants).slice(1)) expect([host, per(host)]).toEqual([host, 2]);
  });

  it('keeps at most POOL_PER_HOST idle connections per origin and POOL_TOTAL in all, closing the least recently used', async () => {
    const { net, client } = setup();
    const a = keepAliveServer(net, 'a.example', 443);
    const hosts = ['b.example', 'c.example', 'd.example'];
    const others = hosts.map((h) => keepAliveServer(net, h, 443));
    // Three at once to one origin: three connections, two kept.
    await Promise.all([0, 1, 2].map(() => client.request({ method: 'GET', url: 'https://a.example/' })));
    await flushJobs();
    expect(net.attempts).toHaveLength(3);
    expect(client.pool.size('https://a.example:443|v')).toBe(POOL_PER_HOST);
    expect(a.sockets.filter((s) => s.closed)).toHaveLength(1);
    for (const h of hosts) await client.request({ method: 'GET', url: `https://${h}/` });
    await flushJobs();
    expect(client.pool.size()).toBe(POOL_TOTAL);
    // The least recently used (one of a.example's) went first.
    expect(client.pool.size('https://a.example:443|v')).toBe(POOL_TOTAL - hosts.length);
    expect(a.sockets.filter((s) => s.closed)).toHaveLength(3 - (POOL_TOTAL - hosts.length));
    expect(others.every((o) => o.sockets.length === 1)).toBe(true);
  });

  it('an idle connection is closed after POOL_IDLE_MS, and one the server closes is dropped at once: the next request connects afresh, without an error', async () => {
    const { net, clock, client } = setup();
    const srv = keepAliveServer(net, 'api.example.com', 443);
    await client.request({ method: 'GET', url: 'https://api.example.com/' });
    await clock.advance(POOL_IDLE_MS - 1);
    expect(srv.sockets[0]!.closed).toBe(false);
    await clock.advance(1);
    expect(srv.sockets[0]!.closed).toBe(true);
    expect(client.pool.size()).toBe(0);
    await client.request({ method: 'GET', url: 'https://api.example.com/' });
    expect(net.attempts).toHaveLength(2);
    // The server closes the idle connection (its own keep-alive timeout).
    srv.sockets[1]!.destroy();
    await flushJobs();
    expect(client.pool.size()).toBe(0);
    const r = await client.request({ method: 'POST', url: 'https://api.example.com/', body: 'x' });
    expect(r.ok).toBe(true);
    expect(net.attempts).toHaveLength(3);
    expect(client.pool.stats.retried).toBe(0);
  });

  it('a kept-alive connection found closed under a request: sent again once on a fresh one when safe (GET, an idempotent POST, a rewindable body), never otherwise', async () => {
    const { net, client } = setup();
    // A request right after a /warm one on the same connection finds it closed (the server closed it as the request left).
    const srv = keepAliveServer(net, 'api.example.com', 443, (r) => {
      const mine = srv.seen.filter((s) => s.socket === r.socket);
      return r.path !== '/warm' && mine[mine.length - 2]?.path === '/warm' ? 'drop' : ok(`got ${r.body}`);
    });
    const warm = async (): Promise<void> => void (await client.request({ method: 'GET', url: 'https://api.example.com/warm' }));
    await warm();
    const get = await client.request({ method: 'GET', url: 'https://api.example.com/get' });
    expect(get.ok && decode(get.response.body)).toBe('got ');
    expect(client.pool.stats.retried).toBe(1);
    // A POST the server acts on (a chat message): not sent twice.
    await client.request({ method: 'GET', url: 'https://api.example.com/warm' });
    const before = srv.seen.length;
    const post = await client.request({ method: 'POST', url: 'https://api.example.com/send', body: 'hello' });
    expect(post).toMatchObject({ ok: false, error: 'connect', message: expect.stringContaining('not idempotent') });
    expect(srv.seen.length - before).toBe(1);
    // A provider round (store false) is marked idempotent: sent again, whole.
    await client.request({ method: 'GET', url: 'https://api.example.com/warm' });
    const round = await client.request({ method: 'POST', url: 'https://api.example.com/v1/messages', body: '{"round":1}', idempotent: true });
    expect(round.ok && decode(round.response.body)).toBe('got {"round":1}');
    // A pulled body is sent again only if it rewinds.
    const source = (rewind: boolean) => {
      let at = 0;
      const bytes = enc.encode('0123456789');
      return { length: 10, next: () => (at >= 10 ? null : bytes.subarray(at, (at += 5))), ...(rewind ? { rewind: () => void (at = 0) } : {}) };
    };
    await client.request({ method: 'GET', url: 'https://api.example.com/warm' });
    const up = await client.request({ method: 'POST', url: 'https://api.example.com/up', bodySource: source(true), idempotent: true });
    expect(up.ok && decode(up.response.body)).toBe('got 0123456789');
    await client.request({ method: 'GET', url: 'https://api.example.com/warm' });
    expect(await client.request({ method: 'POST', url: 'https://api.example.com/up', bodySource: source(false), idempotent: true })).toMatchObject({ ok: false, error: 'connect' });
    expect(client.pool.stats.retried).toBe(3);
  });

  it('a connection made without certificate checks is not handed to a request that always verifies', async () => {
    const { net, client } = setup(false);
    keepAliveServer(net, 'self.example', 443, () => ok('x'), false);
    expect(await client.request({ method: 'GET', url: 'https://self.example/' })).toMatchObject({ ok: true });
    expect(await client.request({ method: 'GET', url: 'https://self.example/', alwaysVerify: true })).toMatchObject({ ok: false, error: 'tls' });
  });

  it('a cancelled or refused request closes its connection instead of keeping it', async () => {
    const { net, client } = setup();
    const srv = keepAliveServer(net, 'api.example.com', 443, (r) => (r.path === '/slow' ? 'hold' : ok('x')));
    const cancel = { onCancel: null as (() => void) | null };
    const pending = client.request({ method: 'GET', url: 'https://api.example.com/slow', cancel });
    await flushJobs();
    cancel.onCancel?.();
    expect(await pending).toMatchObject({ ok: false, error: 'aborted' });
    await flushJobs();
    expect(srv.sockets[0]!.closed).toBe(true);
    expect(await client.request({ method: 'GET', url: 'https://api.example.com/', onBody: () => false })).toMatchObject({ ok: false, error: 'aborted' });
    await flushJobs();
    expect(client.pool.size()).toBe(0);
  });
});

describe('the silence deadline', () => {
  /** A server streaming a chunked answer: one chunk every `every` ms, `count` of them, then the end. */
  function streaming(net: MemNet, clock: VirtualClock, every: number[], host = 'stream.example') {
    net.serve(host, 443, (s) => {
      s.onData = () => {
        if (!s.text().includes('\r\n\r\n')) return;
        s.send('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n');
        let i = 0;
        const next = (): void => {
          if (i >= every.length) return void s.send('0\r\n\r\n');
          clock.setTimeout(() => {
            const line = `data:${i}\n`;
            s.send(`${line.length.toString(16)}\r\n${line}\r\n`);
            i++;
            next();
          }, every[i]!);
        };
        next();
      };
    });
  }

  it('a long answer that keeps flowing never times out; one that falls silent does, and the whole-exchange deadline still holds', async () => {
    const { net, clock, client } = setup();
    // Twenty minutes of an answer, a byte every 9 s, against a 10 s silence limit.
    streaming(net, clock, Array.from({ length: 133 }, () => 9000));
    const got: string[] = [];
    const flowing = client.request({ method: 'POST', url: 'https://stream.example/', body: '{}', timeoutMs: 3_600_000, idleTimeoutMs: 10_000, onBody: (c) => void got.push(decode(c)) });
    await clock.advance(133 * 9000 + 10);
    expect(await flowing).toMatchObject({ ok: true });
    expect(got).toHaveLength(133);
    // Silent for 10 s after the third chunk.
    streaming(net, clock, [1000, 1000, 1000, 10_500], 'stall.example');
    const stalled = client.request({ method: 'POST', url: 'https://stall.example/', body: '{}', timeoutMs: 3_600_000, idleTimeoutMs: 10_000, onBody: () => true });
    await clock.advance(3000 + 9999);
    let settled = false;
    void stalled.then(() => (settled = true));
    await flushJobs();
    expect(settled).toBe(false);
    await clock.advance(1);
    expect(await stalled).toMatchObject({ ok: false, error: 'timeout', message: 'no byte of the answer for 10000 ms' });
    // Silence before the first byte counts too (the provider never starts).
    keepAliveServer(net, 'mute.example', 443, () => 'hold');
    const mute = client.request({ method: 'POST', url: 'https://mute.example/', body: '{}', timeoutMs: 3_600_000, idleTimeoutMs: 10_000 });
    await clock.advance(10_000);
    expect(await mute).toMatchObject({ ok: false, error: 'timeout' });
    // And the whole-exchange deadline still bounds a flowing answer.
    streaming(net, clock, Array.from({ length: 50 }, () => 1000), 'long.example');
    const capped = client.request({ method: 'POST', url: 'https://long.example/', body: '{}', timeoutMs: 20_000, idleTimeoutMs: 10_000, onBody: () => true });
    await clock.advance(20_000);
    expect(await capped).toMatchObject({ ok: false, error: 'timeout', message: 'no complete answer within 20000 ms' });
  });
});
