// The outbound HTTP client against fake servers on the in-memory network.
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/net/http/client.ts';
import { joinUrl, parseUrl } from '../../../src/net/url.ts';
import { decode } from '../../../src/util/utf8.ts';
import { VirtualClock, flushJobs } from '../../support/clock.ts';
import { MemNet, type MemSocket } from '../../support/memnet.ts';

function setup(verify = true) {
  const net = new MemNet();
  const clock = new VirtualClock();
  const client = new HttpClient(net, clock, { verify: () => verify, caBundle: () => '-----BEGIN CERTIFICATE-----test' });
  return { net, clock, client };
}

/** A fake server that answers each request with `reply(requestText)` and closes (unless keep). */
function serve(net: MemNet, host: string, port: number, reply: (req: string, s: MemSocket) => string | null, trusted = true) {
  const seen: string[] = [];
  net.serve(
    host,
    port,
    (s) => {
      s.onData = () => {
        const text = s.text();
        if (!text.includes('\r\n\r\n')) return;
        seen.push(text);
        const out = reply(text, s);
        if (out !== null) {
          s.send(out);
          s.end();
        }
      };
    },
    { trusted },
  );
  return seen;
}

describe('HTTP client', () => {
  it('sends the request as one write with Host and Content-Length, and reads a Content-Length body', async () => {
    const { net, client } = setup();
    let chunks = 0;
    net.serve('api.example.com', 443, (s) => {
      s.onData = () => {
        chunks = s.inbox.length;
        if (s.text().endsWith('{"q":1}')) {
          s.send('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"a":"ok"}\n');
          s.end();
        }
      };
    });
    const res = await client.request({ method: 'POST', url: 'https://api.example.com/v1/x?y=1', headers: { 'Content-Type': 'application/json' }, body: '{"q":1}' });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.response.status).toBe(200);
    expect(decode(res.response.body)).toBe('{"a":"ok"}\n');
    expect(chunks).toBe(1);
    const attempt = net.attempts[0]!;
    expect(attempt).toMatchObject({ host: 'api.example.com', port: 443, tls: { serverName: 'api.example.com', verify: true } });
  });

  it('reads chunked and close-delimited bodies, and streams through onBody', async () => {
    const { net, client } = setup();
    serve(net, 'h', 80, () => 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n');
    const a = await client.request({ method: 'GET', url: 'http://h/' });
    expect(a.ok && decode(a.response.body)).toBe('abcdefg');
    serve(net, 'h', 81, () => 'HTTP/1.1 200 OK\r\n\r\nuntil the end');
    const b = await client.request({ method: 'GET', url: 'http://h:81/' });
    expect(b.ok && decode(b.response.body)).toBe('until the end');
    const streamed: string[] = [];
    const c = await client.request({ method: 'GET', url: 'http://h/', onBody: (chunk) => void streamed.push(decode(chunk)) });
    expect(c.ok && c.response.body.length).toBe(0);
    expect(streamed.join('')).toBe('abcdefg');
  });

  it('types its failures: refused, untrusted certificate, timeout, truncated, too large, bad URL', async () => {
    const { net, clock, client } = setup();
    expect(await client.request({ method: 'GET', url: 'https://nobody.example/' })).toMatchObject({ ok: false, error: 'connect' });
    serve(net, 'evil.example', 443, () => 'HTTP/1.1 200 OK\r\n\r\n', false);
    expect(await client.request({ method: 'GET', url: 'https://evil.example/' })).toMatchObject({ ok: false, error: 'tls' });
    serve(net, 'slow.example', 443, () => null);
    const pending = client.request({ method: 'GET', url: 'https://slow.example/', timeoutMs: 5000 });
    await flushJobs();
    await clock.advance(5000);
    expect(await pending).toMatchObject({ ok: false, error: 'timeout' });
    serve(net, 'short.example', 443, () => 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
    expect(await client.request({ method: 'GET', url: 'https://short.example/' })).toMatchObject({ ok: false, error: 'protocol' });
    serve(net, 'big.example', 443, () => `HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n${'x'.repeat(2000)}`);
    expect(await client.request({ method: 'GET', url: 'https://big.example/', maxBodyBytes: 1000 })).toMatchObject({ ok: false, error: 'too-large' });
    expect(await client.request({ method: 'GET', url: 'ftp://x/' })).toMatchObject({ ok: false, error: 'bad-url' });
    expect(await client.request({ method: 'GET', url: 'https://x/', headers: { 'X-A': 'a\r\nInjected: 1' } })).toMatchObject({ ok: false, error: 'bad-url' });
  });

  it('connects to an untrusted server when tlsVerify is off, but not when the caller always verifies', async () => {
    const { net, client } = setup(false);
    serve(net, 'self.example', 443, () => 'HTTP/1.1 204 No Content\r\n\r\n', false);
    expect(await client.request({ method: 'GET', url: 'https://self.example/' })).toMatchObject({ ok: true, response: { status: 204 } });
    expect(await client.request({ method: 'GET', url: 'https://self.example/', alwaysVerify: true })).toMatchObject({ ok: false, error: 'tls' });
  });

  it('can be cancelled', async () => {
    const { net, client } = setup();
    serve(net, 'slow.example', 443, () => null);
    const cancel = { onCancel: null as (() => void) | null };
    const pending = client.request({ method: 'GET', url: 'https://slow.example/', cancel });
    await flushJobs();
    cancel.onCancel?.();
    expect(await pending).toMatchObject({ ok: false, error: 'aborted' });
  });
});

describe('URLs', () => {
  it('parses scheme, host, port and target', () => {
    expect(parseUrl('https://Api.Example.com/v1/x?y=1')).toEqual({
      ok: true,
      url: { scheme: 'https', host: 'api.example.com', port: 443, target: '/v1/x?y=1', authority: 'api.example.com' },
    });
    expect(parseUrl('http://127.0.0.1:8080')).toMatchObject({ ok: true, url: { port: 8080, target: '/', authority: '127.0.0.1:8080' } });
    expect(parseUrl('http://[::1]:9000/a')).toMatchObject({ ok: true, url: { host: '[::1]', port: 9000 } });
    expect(parseUrl('https://user:pw@host/')).toMatchObject({ ok: false });
    expect(parseUrl('https://host:99999/')).toMatchObject({ ok: false });
    expect(parseUrl('mailto:x')).toMatchObject({ ok: false });
  });
  it('joins a base and a path', () => {
    expect(joinUrl('https://h/api/paas/v4/', '/models')).toBe('https://h/api/paas/v4/models');
    expect(joinUrl('https://h', 'v1/x')).toBe('https://h/v1/x');
  });
});

describe('a streamed request body (BodySource)', () => {
  it('is pulled only while the socket queue is under the high-water mark, resumes on drain, and sends Content-Length', async () => {
    const clock = new VirtualClock();
    const written: Uint8Array[] = [];
    const sock = {
      remote: 'x',
      buffered: 0,
      onData: null as ((c: Uint8Array) => void) | null,
      onDrain: null as (() => void) | null,
      onEnd: null as (() => void) | null,
      onClose: null as ((e: string | null) => void) | null,
      onConnect: null as (() => void) | null,
      write(b: Uint8Array) {
        written.push(b.slice());
        this.buffered += b.length;
      },
      end() {},
      destroy() {},
    };
    const net = { connect: () => sock, listen: () => ({ port: 0, close() {} }), udp: () => ({ port: 0, onMessage: null, send() {}, close() {} }) };
    const client = new HttpClient(net as never, clock, { verify: () => true, caBundle: () => '' });
    let pulls = 0;
    const total = 100 * 1024;
    const source = { length: total, next: () => (pulls * 4096 >= total ? null : (pulls++, new Uint8Array(Math.min(4096, total - (pulls - 1) * 4096)).fill(7))) };
    const done = client.request({ method: 'POST', url: 'http://up.example/v1/x', headers: { 'Content-Type': 'application/octet-stream' }, bodySource: source });
    sock.onConnect!();
    expect(decode(written[0]!)).toContain(`Content-Length: ${total}\r\n`);
    // the head plus chunks until the queue passed 8 KB: then it waits
    expect(pulls).toBe(2);
    for (let i = 0; i < 100 && pulls * 4096 < total; i++) {
      sock.buffered = 0;
      sock.onDrain!();
    }
    expect(written.slice(1).reduce((n, c) => n + c.length, 0)).toBe(total);
    sock.onData!(new TextEncoder().encode('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const r = await done;
    expect(r.ok && decode(r.response.body)).toBe('ok');
    // a source that gives fewer bytes than it promised fails the request
    const short = client.request({ method: 'POST', url: 'http://up.example/', bodySource: { length: 10, next: () => null } });
    sock.buffered = 0;
    sock.onConnect!();
    expect(await short).toMatchObject({ ok: false, error: 'aborted', message: 'the request body gave 0 of 10 bytes' });
    expect(await client.request({ method: 'POST', url: 'http://up.example/', body: 'x', bodySource: source })).toMatchObject({ ok: false });
  });
});
