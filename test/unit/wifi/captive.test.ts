// The setup network's captive portal: the DNS answer (src/net/dns.ts) read
// and written by a DNS library we did not write (dns-packet, with its own
// encoder making the queries), its refusals, malformed and hostile packets
// (answered with an error or dropped, never a crash, fuzzed), the responder
// following the setup network (src/wifi/captive.ts; Wi-Fi mounted on a test
// kernel with the device's token gate and HTTP server), and the HTTP side:
// the connectivity checks phones make land on the token handout while
// nothing is saved, on the page once a network is.

import * as dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAPTIVE_TTL_S, captiveDnsAnswer, ipv4Bytes } from '../../../src/net/dns.ts';
import { CAPTIVE_PROBES } from '../../../src/wifi/captive.ts';
import { SETUP_ADDRESS } from '../../../src/wifi/provisioning.ts';
import { request } from '../../support/http.ts';
import { deviceKernel, mountWifi, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';

const ADDRESS = ipv4Bytes(SETUP_ADDRESS)!;

type Decoded = dnsPacket.DecodedPacket & { rcode: string; opcode: string };

function query(name: string, type: dnsPacket.RecordType = 'A', extra: Partial<dnsPacket.Packet> = {}): Uint8Array {
  return new Uint8Array(dnsPacket.encode({ type: 'query', id: 0x4d2a, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name, class: 'IN' }], ...extra }));
}

function answer(q: Uint8Array): Decoded | null {
  const r = captiveDnsAnswer(q, ADDRESS);
  return r.reply ? (dnsPacket.decode(Buffer.from(r.reply)) as Decoded) : null;
}

/** The raw header of a reply: id, flags, counts. */
function head(bytes: Uint8Array) {
  const v = new DataView(bytes.buffer, bytes.byteOffset);
  return { id: v.getUint16(0), flags: v.getUint16(2), qd: v.getUint16(4), an: v.getUint16(6), ns: v.getUint16(8), ar: v.getUint16(10), rcode: v.getUint16(2) & 15 };
}

describe('the captive DNS answer', () => {
  it('answers an A query with the setup address: the question echoed, authoritative, recursion as asked, TTL 60 s', () => {
    const r = answer(query('connectivitycheck.gstatic.com'))!;
    expect(r).toMatchObject({ type: 'response', id: 0x4d2a, rcode: 'NOERROR', flag_qr: true, flag_aa: true, flag_rd: true, flag_ra: true, flag_tc: false });
    expect(r.questions).toEqual([{ name: 'connectivitycheck.gstatic.com', type: 'A', class: 'IN' }]);
    expect(r.answers).toEqual([{ name: 'connectivitycheck.gstatic.com', type: 'A', class: 'IN', ttl: CAPTIVE_TTL_S, flush: false, data: '192.168.4.1' }]);
    expect(r.authorities).toEqual([]);
    expect(r.additionals).toEqual([]);
  });

  it("keeps the resolver's 0x20 case mixing, answers ANY and the root, and ignores EDNS", () => {
    expect(answer(query('CaPtIvE.ApPlE.cOm'))!.answers![0]).toMatchObject({ name: 'CaPtIvE.ApPlE.cOm', data: '192.168.4.1' });
    // ANY (255): dns-packet encodes it, though its type list does not name it.
    expect(answer(query('www.msftconnecttest.com', 'ANY' as dnsPacket.RecordType))!.answers).toEqual([expect.objectContaining({ type: 'A', data: '192.168.4.1' })]);
    expect(answer(query('.'))!.answers).toEqual([expect.objectContaining({ name: '.', data: '192.168.4.1' })]);
    const edns = query('detectportal.firefox.com', 'A', { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: 0 } as unknown as dnsPacket.Answer] });
    expect(head(edns).ar).toBe(1);
    const r = captiveDnsAnswer(edns, ADDRESS);
    expect(head(r.reply!)).toMatchObject({ qd: 1, an: 1, ns: 0, ar: 0, rcode: 0 });
    expect(r).toMatchObject({ outcome: 'answered', name: 'detectportal.firefox.com' });
  });

  it('answers other types empty (NOERROR, no records), so the phone falls back to A at once', () => {
    for (const type of ['AAAA', 'MX', 'TXT', 'PTR', 'SRV'] as const) {
      const r = answer(query('clients3.google.com', type))!;
      expect(r).toMatchObject({ rcode: 'NOERROR', flag_qr: true });
      expect(r.questions).toEqual([{ name: 'clients3.google.com', type, class: 'IN' }]);
      expect(r.answers).toEqual([]);
    }
    // HTTPS (type 65, which browsers ask beside A; dns-packet has no name for it).
    const https = query('clients3.google.com', 'A');
    https[https.length - 3] = 65;
    expect(captiveDnsAnswer(https, ADDRESS)).toMatchObject({ outcome: 'empty' });
    expect(head(captiveDnsAnswer(https, ADDRESS).reply!)).toMatchObject({ qd: 1, an: 0, rcode: 0 });
  });

  it('refuses another class, says NOTIMP to another opcode, FORMERR to no or two questions', () => {
    const chaos = new Uint8Array(dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'TXT', name: 'version.bind', class: 'CH' }] }));
    expect(answer(chaos)).toMatchObject({ rcode: 'REFUSED', answers: [] });
    const notify = query('example.com');
    notify[2] = (notify[2]! & 0x87) | (4 << 3);
    expect(head(captiveDnsAnswer(notify, ADDRESS).reply!)).toMatchObject({ id: 0x4d2a, rcode: 4, qd: 0, an: 0 });
    const none = new Uint8Array(dnsPacket.encode({ type: 'query', id: 9, questions: [] }));
    expect(head(captiveDnsAnswer(none, ADDRESS).reply!)).toMatchObject({ id: 9, rcode: 1, qd: 0 });
    const two = new Uint8Array(dnsPacket.encode({ type: 'query', id: 10, questions: [{ type: 'A', name: 'a.example' }, { type: 'A', name: 'b.example' }] }));
    expect(head(captiveDnsAnswer(two, ADDRESS).reply!)).toMatchObject({ id: 10, rcode: 1, qd: 0, an: 0 });
  });

  it('answers a question that does not parse with FORMERR: cut short, a pointer, a label over 63 or a name over 255 octets', () => {
    const q = query('neverssl.com');
    for (const cut of [13, 17, q.length - 1]) expect(head(captiveDnsAnswer(q.subarray(0, cut), ADDRESS).reply!).rcode).toBe(1);
    const pointer = q.slice();
    pointer.set([0xc0, 0x0c], 12);
    expect(captiveDnsAnswer(pointer, ADDRESS)).toMatchObject({ outcome: 'error' });
    const longLabel = new Uint8Array([...q.subarray(0, 12), 64, ...new Array(64).fill(97), 0, 0, 1, 0, 1]);
    expect(head(captiveDnsAnswer(longLabel, ADDRESS).reply!).rcode).toBe(1);
    const labels: number[] = [];
    for (let i = 0; i < 5; i++) labels.push(60, ...new Array(60).fill(98));
    const longName = new Uint8Array([...q.subarray(0, 12), ...labels, 0, 0, 1, 0, 1]);
    expect(head(captiveDnsAnswer(longName, ADDRESS).reply!).rcode).toBe(1);
  });

  it('drops what cannot be answered: under 12 bytes, and every response (no ping-pong with another responder)', () => {
    expect(captiveDnsAnswer(new Uint8Array(11), ADDRESS)).toEqual({ reply: null, outcome: 'dropped', name: null });
    const ours = captiveDnsAnswer(query('example.com'), ADDRESS).reply!;
    expect(captiveDnsAnswer(ours, ADDRESS)).toMatchObject({ reply: null, outcome: 'dropped' });
  });

  it('never throws on any datagram; every reply is a response to that ID, at most 512 bytes, and decodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const r = captiveDnsAnswer(bytes, ADDRESS);
        if (!r.reply) return;
        expect(r.reply.length).toBeLessThanOrEqual(512);
        expect(head(r.reply).id).toBe((bytes[0]! << 8) | bytes[1]!);
        expect(head(r.reply).flags & 0x8000).toBe(0x8000);
        dnsPacket.decode(Buffer.from(r.reply));
      }),
      { numRuns: 5000 },
    );
  });

  it('answers every well-formed A query, whatever the name, with the setup address (fuzzed names)', () => {
    fc.assert(
      fc.property(fc.domain(), fc.boolean(), (name, rd) => {
        const q = new Uint8Array(dnsPacket.encode({ type: 'query', id: 1, flags: rd ? dnsPacket.RECURSION_DESIRED : 0, questions: [{ type: 'A', name }] }));
        const r = answer(q)!;
        expect(r.flag_rd).toBe(rd);
        expect(r.answers).toEqual([expect.objectContaining({ name, type: 'A', data: '192.168.4.1' })]);
      }),
      { numRuns: 2000 },
    );
  });
});

/** Wi-Fi alone, on a kernel with the device's token gate and HTTP server. */
function wifiAlone(mem: MemHal) {
  const dk = deviceKernel({ mem });
  mountWifi(dk);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token } };
}

describe('the captive portal on the booted firmware', () => {
  it('answers DNS on the setup network while it is up, and stops when it drops', async () => {
    const mem = createMemHal();
    const device = wifiAlone(mem);
    expect(mem.wifi.apActive()).toBe(true);
    expect(mem.net.udpBound(53)).toBe(true);
    const [reply] = await mem.net.udpExchange(53, query('connectivitycheck.gstatic.com'));
    expect((dnsPacket.decode(Buffer.from(reply!)) as Decoded).answers![0]).toMatchObject({ data: SETUP_ADDRESS });
    expect(await mem.net.udpExchange(53, new Uint8Array([1, 2, 3]))).toEqual([]);
    expect(device.ctx.status.snapshot()['captive']).toEqual({ dns: true, queries: 2, answered: 1, dropped: 1 });

    // First run to the end: saved, joined, handed off; the setup network drops 4 s later and the DNS with it.
    mem.wifi.networks.set('Home', 'home-pass-1');
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    expect((await request(mem.net, HTTP_PORT, 'POST', '/savewifi', { headers: form, body: 'ssid=Home&pass=home-pass-1' })).status).toBe(202);
    await mem.clock.advance(10);
    expect((await request(mem.net, HTTP_PORT, 'POST', '/api/wifi/handoff', { headers: { 'X-Device-Token': device.ctx.token.reveal() } })).status).toBe(200);
    await mem.clock.advance(4000);
    expect(mem.wifi.apActive()).toBe(false);
    expect(mem.net.udpBound(53)).toBe(false);
    expect(await mem.net.udpExchange(53, query('connectivitycheck.gstatic.com'))).toEqual([]);
    expect(device.ctx.status.snapshot()['captive']).toMatchObject({ dns: false });
    expect(device.ctx.log.text()).toContain('wifi: captive DNS off');

    // The link goes down: the setup network, and its DNS, come back.
    mem.wifi.linkDown();
    await mem.clock.advance(1);
    expect(mem.wifi.apActive()).toBe(true);
    expect(mem.net.udpBound(53)).toBe(true);
  });

  it('runs no DNS in Notifier mode (no setup network)', async () => {
    const mem = createMemHal();
    mem.nvs.set('sys', 'mode', 0);
    const device = wifiAlone(mem);
    await mem.clock.advance(10);
    expect(mem.net.udpBound(53)).toBe(false);
    expect(device.ctx.status.snapshot()['captive']).toEqual({ dns: false, queries: 0, answered: 0, dropped: 0 });
  });

  it('lands every connectivity check on the token handout while nothing is saved, on the page once a network is', async () => {
    const mem = createMemHal();
    const device = wifiAlone(mem);
    const token = device.ctx.token.reveal();
    for (const path of CAPTIVE_PROBES) {
      expect(device.ctx.router.knows(path), path).toBe(false);
      const res = await request(mem.net, HTTP_PORT, 'GET', path, { headers: { Host: 'connectivitycheck.gstatic.com' } });
      expect([res.status, res.headers.get('location')], path).toEqual([302, `/?t=${token}`]);
    }
    // Saved (its router out of reach, so the setup network is up again): no token, the page, which asks for a code.
    const saved = createMemHal();
    saved.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
    const again = wifiAlone(saved);
    await saved.clock.advance(10);
    expect(saved.wifi.apActive()).toBe(true);
    for (const path of CAPTIVE_PROBES) {
      const res = await request(saved.net, HTTP_PORT, 'GET', path, { headers: { Host: 'captive.apple.com' } });
      expect([res.status, res.headers.get('location')], path).toEqual([302, '/']);
      expect(res.raw).not.toContain(again.ctx.token.reveal());
    }
    // Any other unknown path is gated as before.
    expect((await request(saved.net, HTTP_PORT, 'GET', '/not-a-probe')).status).toBe(401);
  });
});
