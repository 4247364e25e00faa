// The cloud relay on the simulator: the real firmware pairs with the local
// relay (tools/cloud-relay.mjs, TLS with a test-CA certificate for the
// relay's name), an owner requests /api/state through it (200, no token in
// it), the denied routes answer 403 under every form an owner's client can
// send byte for byte, the setup handout's token never leaves, JSON answers
// lose token keys, and a relay with an untrusted certificate is refused
// with tlsVerify off.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT, routeArgs, start as startRelay, type RelayServer } from '../../tools/cloud-relay.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let relay: RelayServer;
let device: Device;
let token = '';
let id = '';

/** An owner's request through the relay, the target sent byte for byte. */
function owner(method: string, target: string, body?: string, account = DEFAULT_ACCOUNT): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: relay.ownerPort, method, path: `/d/${id}${target}`, headers: { Authorization: `Bearer ${account}`, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  relay = await startRelay();
  device = await startDevice({ args: routeArgs(relay.devicePort) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
});

afterAll(async () => {
  await cleanup();
  await relay?.close();
});

describe('the cloud relay on the simulator', () => {
  it('pairs: CLOUDPAIR prints a code, the owner claims it on the relay, the device goes online', async () => {
    const out = await device.command('CLOUDPAIR', 20_000);
    const code = /code=(\S+)/.exec(out)?.[1];
    expect(code, out).toBeTruthy();
    const res = await fetch(`${relay.ownerUrl}/claim`, { method: 'POST', headers: { Authorization: `Bearer ${DEFAULT_ACCOUNT}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
    const claimed = (await res.json()) as { ok: boolean; deviceId: string };
    expect(claimed.ok).toBe(true);
    id = claimed.deviceId;
    await waitFor(async () => /state=online paired=yes/.test(await device.command('CLOUD?')));
    expect(await device.command('CLOUD?')).toContain(`device=${id}`);
  });

  it('answers /api/state through the tunnel with the device\'s own token, which never comes back', async () => {
    const r = await owner('GET', '/api/state');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ cloud: { state: 'online', paired: true } });
    expect(r.text).not.toContain(token);
    expect((await owner('GET', '/api/state', undefined, 'not-an-account')).status).toBe(401);
  });

  it('refuses /api/connect and the other credential routes with 403 in every form, and nothing rotates', async () => {
    const forms = [
      '/api/connect',
      '/api/connect/',
      '/api/connect?x=1',
      '/API/Connect',
      '/api//connect',
      '/api/./connect',
      '/api/x/../connect',
      '/api/%63onnect',
      '/api%2Fconnect',
      '/api%252Fconnect',
      '/api/connect%3F',
      '/api/token/regen',
      '/api/token/regen/',
      '/api/TOKEN/%72egen?z',
      '/api/signin/code',
      '/api/signin/code?purpose=hand',
      '/api/signin/exchange',
      '/api/signin/%2565xchange',
    ];
    for (const target of forms) {
      for (const method of ['GET', 'POST']) {
        const r = await owner(method, target, method === 'POST' ? 'code=ABCDEFGH' : undefined);
        expect(r.status, `${method} ${target}`).toBe(403);
        expect(r.text).not.toContain(token);
      }
    }
    expect((await device.command('WEBTOK?')).split('\n')[0]).toBe(token);
    expect(await device.command('CLOUDLOOP /api/connect', 20_000)).toMatch(/via=relay status=403/);
    expect(await device.command('CLOUDLOOP', 20_000)).toMatch(/via=relay status=200 .*secrets=none/);
  });

  it('never lets the token out: the setup handout is withheld, JSON answers lose token and apPass keys', async () => {
    // Nothing is saved on this simulator, so GET / on the LAN hands the token out (a redirect to /?t=).
    const lan = await device.fetch('/', { redirect: 'manual' });
    expect(lan.headers.get('location') ?? '').toContain(token);
    const handout = await owner('GET', '/');
    expect(handout.status).toBe(403);
    expect(JSON.stringify(handout.headers) + handout.text).not.toContain(token);
    // A JSON file with token keys, saved over /mcp, comes back without them.
    const saved = await device.fetch('/mcp', {
      method: 'POST',
      token,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'artifact.save', arguments: { project: 'e2e', name: 'keys.json', text: JSON.stringify({ token: 'abc', keep: true, inner: { apPass: 'x' } }) } } }),
    });
    expect(((await saved.json()) as { result: { isError: boolean } }).result.isError).toBe(false);
    const r = await owner('GET', '/api/files/dl?project=e2e&name=keys.json');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ keep: true, inner: {} });
  });

  it('refuses a relay whose certificate is not from the bundle, even with tlsVerify off', async () => {
    const rogue = await startRelay({ untrusted: true });
    try {
      const other = await startDevice({ args: routeArgs(rogue.devicePort) });
      const t = (await other.command('WEBTOK?')).split('\n')[0]!;
      expect((await other.fetch('/api/orch', { method: 'POST', token: t, body: new URLSearchParams({ tlsVerify: '0' }) })).status).toBe(200);
      expect(await other.command('CLOUDPAIR', 20_000)).toMatch(/^ERR .*(certificate|ETLS)/im);
      expect(await other.command('CLOUD?')).toMatch(/state=off paired=no/);
      expect(rogue.relay.stats.frames).toBe(0);
      await other.stop();
    } finally {
      await rogue.close();
    }
  });

  it('CLOUDOFF makes the relay forget the device', async () => {
    expect(await device.command('CLOUDOFF')).toMatch(/unpaired/);
    await waitFor(async () => relay.relay.devices().length === 0);
    expect((await owner('GET', '/api/state')).status).toBe(404);
  });
});
