// The captive portal on the simulator: a phone that joins the setup network
// uses the device as its DNS server (the board maps the device's port 53 on
// the setup network to a loopback port: control op ap.dns). Node's own
// resolver (c-ares, a client we did not write) gets the device's address
// for any name; garbage is survived; the phone's connectivity check then
// lands on the token handout. Once the setup network drops, so does the DNS.

import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlError } from '../../hosts/sim/board/control-client.ts';
import { cleanup, startDevice, type Device } from './harness.ts';

let device: Device;

/** One datagram to the device's DNS and what comes back within ms (null: nothing). */
function exchange(port: number, bytes: Uint8Array, ms = 500): Promise<Buffer | null> {
  const sock = createSocket('udp4');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sock.close();
      resolve(null);
    }, ms);
    sock.on('message', (m) => {
      clearTimeout(timer);
      sock.close();
      resolve(m);
    });
    sock.send(bytes, port, '127.0.0.1');
  });
}

function resolver(port: number): Resolver {
  const r = new Resolver({ timeout: 1000, tries: 1 });
  r.setServers([`127.0.0.1:${port}`]);
  return r;
}

beforeAll(async () => {
  // A fresh device: nothing saved, so the setup network is up.
  device = await startDevice();
});

afterAll(cleanup);

describe('the captive portal on the simulated setup network', () => {
  it("answers a phone's DNS with the device's address for any name; other types are empty", async () => {
    const { address, port } = await device.board.request<{ address: string; port: number }>('ap.dns');
    expect(address).toBe('192.168.4.1');
    const r = resolver(port);
    expect(await r.resolve4('connectivitycheck.gstatic.com')).toEqual(['192.168.4.1']);
    expect(await r.resolve4('captive.apple.com', { ttl: true })).toEqual([{ address: '192.168.4.1', ttl: 60 }]);
    expect(await r.resolve4('www.msftconnecttest.com')).toEqual(['192.168.4.1']);
    await expect(r.resolve6('connectivitycheck.gstatic.com')).rejects.toMatchObject({ code: 'ENODATA' });
    const state = (await (await device.fetch('/api/state', { token: await webToken() })).json()) as { captive: { dns: boolean; answered: number } };
    expect(state.captive.dns).toBe(true);
    expect(state.captive.answered).toBeGreaterThanOrEqual(3);
  });

  it('survives garbage: drops what has no header, answers a broken question with FORMERR, then answers as before', async () => {
    const { port } = await device.board.request<{ port: number }>('ap.dns');
    expect(await exchange(port, new Uint8Array([0xde, 0xad]))).toBeNull();
    const broken = new Uint8Array([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 63, 0x61]);
    const reply = await exchange(port, broken);
    expect(reply).not.toBeNull();
    const d = dnsPacket.decode(reply!) as dnsPacket.DecodedPacket & { rcode: string };
    expect(d).toMatchObject({ id: 0x1234, type: 'response', rcode: 'FORMERR' });
    for (let i = 0; i < 200; i++) await exchange(port, new Uint8Array(Array.from({ length: (i * 7) % 300 }, (_, k) => (k * 31 + i) & 0xff)), 0);
    expect(await resolver(port).resolve4('neverssl.com')).toEqual(['192.168.4.1']);
  });

  it("lands the phone's connectivity check on the token handout", async () => {
    const token = await webToken();
    for (const path of ['/generate_204', '/hotspot-detect.html', '/connecttest.txt']) {
      const res = await device.fetch(path, { redirect: 'manual' });
      expect([res.status, res.headers.get('location')], path).toEqual([302, `/?t=${token}`]);
    }
  });

  it('stops answering when the setup network drops after the handoff', async () => {
    const { port } = await device.board.request<{ port: number }>('ap.dns');
    const token = await webToken();
    expect(await device.command('WIFI SimNet|simnet-pass', 30_000)).toMatch(/joined "SimNet" as 192\.168\.1\.50\nOK$/);
    expect((await device.fetch('/api/wifi/handoff', { method: 'POST', token })).status).toBe(200);
    await device.board.request('clock.warp', { ms: 4_500 });
    await device.board.request('wait', { for: 'log', match: 'wifi: captive DNS off', timeoutMs: 10_000 });
    await expect(device.board.request('ap.dns')).rejects.toBeInstanceOf(ControlError);
    expect(await exchange(port, new Uint8Array(dnsPacket.encode({ type: 'query', id: 5, questions: [{ type: 'A', name: 'example.com' }] })))).toBeNull();
  });
});

let cachedToken: string | null = null;
async function webToken(): Promise<string> {
  cachedToken ??= (await device.command('WEBTOK?')).split('\n')[0]!;
  return cachedToken;
}
