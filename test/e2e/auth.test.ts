// The HTTP interface and authentication on the simulator with real clients:
// first-run provisioning through the token handout, /savewifi and the
// handoff; the printed sign-in link; the gate over every route; and a
// bounded fuzz of malformed requests the server survives without leaking.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';

afterAll(cleanup);

let device: Device;
let token = '';
let port = 0;

beforeAll(async () => {
  device = await startDevice();
  port = Number(new URL(device.url!).port);
});

async function heapLive(): Promise<number> {
  const reply = await device.command('HEAP?');
  return Number(/xs=(\d+)/.exec(reply)![1]);
}

/** Sends raw bytes on a fresh connection, half-closes, and resolves with what came back. */
function raw(bytes: Buffer, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = connect(port, '127.0.0.1');
    const timer = setTimeout(() => s.destroy(), timeoutMs);
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    s.on('connect', () => {
      s.write(bytes);
      s.end();
    });
  });
}

describe('first-run provisioning', () => {
  it('hands the token out through the setup network redirect while nothing is saved', async () => {
    const res = await device.fetch('/', { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/\?t=[0-9a-f]{24}$/);
    token = location.slice(4);
    const probe = await device.fetch('/hotspot-detect.html', { redirect: 'manual' });
    expect(probe.headers.get('location')).toBe(location);
  });

  it('saves Wi-Fi ungated, joins the network, and drops the setup network after the handoff', async () => {
    const saved = await device.fetch('/savewifi', { method: 'POST', body: new URLSearchParams({ ssid: 'SimNet', pass: 'simnet-pass' }) });
    expect(saved.status).toBe(202);
    let station = '';
    for (let i = 0; i < 100 && station !== 'connected'; i++) {
      const state = (await (await device.fetch('/api/state', { token })).json()) as { wifi: { station: { state: string } } };
      station = state.wifi.station.state;
      if (station !== 'connected') await new Promise((r) => setTimeout(r, 20));
    }
    expect(station).toBe('connected');
    const handoff = await device.fetch('/api/wifi/handoff', { method: 'POST', token });
    expect(handoff.status).toBe(200);
    const body = (await handoff.json()) as { next: string; dropInMs: number };
    expect(body.next).toMatch(/^http:\/\/[\d.]+\/\?c=[2-9A-HJKMNP-Z]{12}$/);
    expect((await device.board.request<{ wifi: { ap: unknown } }>('status')).wifi.ap).toBeTruthy();
    await device.board.request('clock.warp', { ms: 4000 });
    let ap: unknown = true;
    for (let i = 0; i < 50 && ap; i++) {
      ap = (await device.board.request<{ wifi: { ap: unknown } }>('status')).wifi.ap;
      if (ap) await new Promise((r) => setTimeout(r, 10));
    }
    expect(ap).toBeFalsy();
    expect((await device.fetch('/', { redirect: 'manual' })).status).toBe(200);
  });
});

describe('sign-in from the printed link', () => {
  it('opens the page from the link, exchanges its code once for the token, which then works', async () => {
    const link = new URL(device.signIn!);
    const page = await fetch(link, { redirect: 'manual' });
    expect(page.status).toBe(200);
    const code = link.searchParams.get('c')!;
    const exchange = await device.fetch('/api/signin/exchange', { method: 'POST', body: new URLSearchParams({ code }) });
    expect(exchange.status).toBe(200);
    const { token: got } = (await exchange.json()) as { token: string };
    expect(got).toBe(token);
    expect((await device.fetch('/api/state', { token: got })).status).toBe(200);
    const again = await device.fetch('/api/signin/exchange', { method: 'POST', body: new URLSearchParams({ code }) });
    expect(again.status).toBe(401);
  });
});

describe('the gate', () => {
  it('answers 401 on every gated route without, with a wrong and with a ?t= token, and not 401 with it', async () => {
    const lines = (await device.command('ROUTES?')).split('\n').slice(0, -1);
    const routes = lines.map((l) => l.split(' ')).filter(([, , access]) => access === 'token' || access === 'bootstrap');
    expect(routes.length).toBeGreaterThan(10);
    const last: string[][] = [];
    for (const route of routes) {
      const [method, path] = route as [string, string];
      if (path === '/api/token/regen') {
        last.push(route);
        continue;
      }
      for (const [why, init, url] of [
        ['no token', {}, path],
        ['wrong token', { token: 'f'.repeat(24) }, path],
        ['?t=', {}, `${path}?t=${token}`],
      ] as const) {
        const res = await device.fetch(url, { method, ...init });
        expect(res.status, `${method} ${path} with ${why}`).toBe(401);
      }
      const ok = await device.fetch(path, { method, token });
      expect(ok.status, `${method} ${path} with the token`).not.toBe(401);
    }
    // Regen last: it rotates the token the checks above use.
    for (const [method, path] of last as Array<[string, string]>) {
      expect((await device.fetch(path, { method })).status).toBe(401);
      const res = await device.fetch(path, { method, token });
      expect(res.status).toBe(200);
      const fresh = ((await res.json()) as { token: string }).token;
      expect((await device.fetch('/api/state', { token })).status).toBe(401);
      token = fresh;
      expect((await device.fetch('/api/state', { token })).status).toBe(200);
    }
  });
});

describe('malformed requests', () => {
  it('survives 10,000 malformed requests, answers a valid one, and its heap comes back', async () => {
    const before = await heapLive();
    let seed = 0x2545f491;
    const rnd = (n: number): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const junk = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => rnd(256)));
    const makers: Array<() => Buffer> = [
      () => junk(1 + rnd(300)),
      () => Buffer.from(`${['GET', 'POST', 'PUT', 'G\x00T', 'GET GET'][rnd(5)]} /${junk(rnd(20)).toString('latin1')} HTTP/1.1\r\n\r\n`, 'latin1'),
      () => Buffer.from(`GET / HTTP/${rnd(10)}.${rnd(10)}\r\nHost: x\r\n\r\n`),
      () => Buffer.from(`GET / HTTP/1.1\r\nX: ${'a'.repeat(8000 + rnd(4000))}\r\n\r\n`),
      () => Buffer.from(`POST /api/signin/exchange HTTP/1.1\r\nContent-Length: ${rnd(2) ? '5, 6' : '-1'}\r\n\r\nhello`),
      () => Buffer.from('POST /api/orch HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
      () => Buffer.from(`POST /api/orch HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${['zz', 'FFFFFFFFFF', '5\r\nab'][rnd(3)]}\r\n`),
      () => Buffer.from(`POST /api/signin/exchange HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n`),
      () => Buffer.from(`GET /${'%'.repeat(rnd(50))}${junk(10).toString('latin1')} HTTP/1.1\r\n folded: x\r\n\r\n`, 'latin1'),
      () => Buffer.from(`GET / HTTP/1.1\r\nBad Header\r\n\r\n`),
      () => Buffer.from(`GET / HTTP/1.1\r\nX-Device-Token: ${junk(30).toString('latin1')}\r\n\r\n`, 'latin1'),
      () => Buffer.from(`POST /savewifi HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=${'b'.repeat(rnd(100))}\r\nContent-Length: 20\r\n\r\n--bb\r\nbroken-part\r\n`),
    ];
    const total = 10_000;
    let sent = 0;
    let answered = 0;
    const statuses = new Map<string, number>();
    const worker = async (): Promise<void> => {
      while (sent < total) {
        sent++;
        const reply = await raw(makers[rnd(makers.length)]!());
        if (!reply.startsWith('HTTP/1.1 ')) continue; // an incomplete request at EOF gets no answer
        answered++;
        const status = reply.slice(9, 12);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(sent).toBeGreaterThanOrEqual(total);
    // Most requests are complete enough to be answered (incomplete ones at EOF are
    // just closed), and none made a handler fail.
    expect(answered).toBeGreaterThan(total * 0.75);
    expect(statuses.get('500')).toBeUndefined();
    expect(statuses.get('400')).toBeGreaterThan(total / 4);
    const valid = await device.fetch('/api/state', { token });
    expect(valid.status).toBe(200);
    const after = await heapLive();
    expect(after).toBeLessThan(before * 1.1 + 16 * 1024);
    const status = await device.board.request<{ bootCount: number }>('status');
    expect(status.bootCount).toBe(1);
  }, 180_000);
});
