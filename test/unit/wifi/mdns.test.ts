// The mDNS responder (src/wifi/mdns-responder.ts) on the in-memory home
// network and the virtual clock, with every datagram read by dns-packet
// (the codec multicast-dns and bonjour-service use: not ours) and every
// query written by it. Timing rules are checked exactly here, where the
// clock is ours; test/e2e/mdns.test.ts has bonjour-service and
// multicast-dns judge the simulated device on the loopback. Each assertion
// names the rule (RFC 6762 or RFC 6763 section) or the field it checks.

import * as dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShutdownHooks } from '../../../src/core/shutdown.ts';
import { decodeMessage, encodeMessage } from '../../../src/net/dns-message.ts';
import { CONFLICT_BACKOFF_MS, CONFLICT_BURST, tiebreak } from '../../../src/wifi/mdns-responder.ts';
import { deviceKernel, mountWifi } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import type { LanPeer } from '../../support/memnet.ts';

const GROUP = '224.0.0.251';
const HOST = 'desk-3456.local';
const HTTP_INSTANCE = 'desk-3456._http._tcp.local';
const OWN_INSTANCE = 'desk-3456._desk-assistant._tcp.local';
const ADDRESS = '192.168.1.50';
/** dns-packet 5.6.1 reads a question's QU bit (RFC 6762 §5.4) into its class, as 'UNKNOWN_32769' (class IN | 0x8000); it cannot write it (withQu). */
const QU_IN = 'UNKNOWN_32769';

/** A message as dns-packet decodes it (its typing's unions narrowed to what these tests read). */
interface Packet {
  type: 'query' | 'response';
  id: number;
  flags: number;
  questions: Array<{ name: string; type: string; class: string }>;
  answers: Rec[];
  authorities: Rec[];
  additionals: Rec[];
}
/** What a test writes: dns-packet's own shape (its typing lacks type ANY and classes by number). */
type Query = Record<string, unknown> & { questions?: Array<{ name: string; type: string; class?: string }> };
interface Rec {
  name: string;
  type: string;
  class: string;
  flush?: boolean;
  ttl: number;
  data: unknown;
}
interface Sent {
  p: Packet;
  address: string;
  port: number;
  atMs: number;
  bytes: Uint8Array;
}

const decode = (b: Uint8Array): Packet => dnsPacket.decode(Buffer.from(b)) as unknown as Packet;
const encode = (p: Query): Uint8Array => new Uint8Array(dnsPacket.encode(p as unknown as dnsPacket.Packet));
/** A message whose first question has the QU bit set (dns-packet writes no such class). */
function withQu(p: Query): Uint8Array {
  const b = encode(p);
  // The header, then the name (a length octet a label, the root's zero), then the type: the class's top byte.
  const nameLength = p.questions![0]!.name.split('.').reduce((n, label) => n + label.length + 1, 1);
  b[12 + nameLength + 2]! |= 0x80;
  return b;
}
const txtOf = (data: unknown): Record<string, string> => Object.fromEntries((data as Buffer[]).map((b) => b.toString().split(/=(.*)/s).slice(0, 2)));

function rig(options: { shutdown?: ShutdownHooks; peers?: (mem: MemHal) => void } = {}) {
  const mem = createMemHal();
  mem.nvs.set('wifi', 'known', JSON.stringify([{ ssid: 'Home', pass: 'home-pass-1' }]));
  mem.wifi.networks.set('Home', 'home-pass-1');
  // A laptop on the home network, on the group from the start: it hears the probes.
  const laptop = mem.net.lanPeer('192.168.1.20');
  options.peers?.(mem);
  const dk = deviceKernel({ mem });
  const provisioning = mountWifi(dk, options.shutdown);
  dk.start();
  const sent = (): Sent[] => mem.net.lanSent.map((d) => ({ p: decode(d.bytes), address: d.address, port: d.port, atMs: d.atMs, bytes: d.bytes }));
  const probes = (): Sent[] => sent().filter((s) => s.p.type === 'query' && s.p.authorities.length > 0);
  const responses = (): Sent[] => sent().filter((s) => s.p.type === 'response');
  const state = (): { host: string; instance: string; state: string; renamed: number } | null => dk.kernel.status.snapshot()['mdns'] as never;
  /** Runs the clock until the responder has announced (or the limit). */
  const claimed = async (limitMs = 5000): Promise<void> => {
    expect(await mem.clock.until(() => state()?.state === 'ready', limitMs), 'the names are claimed (RFC 6762 §8.1, §8.3)').toBe(true);
  };
  /** A query from a peer, then the clock run for ms: what the device sent since. */
  const ask = async (peer: LanPeer, q: Query, ms = 200, qu = false): Promise<Sent[]> => {
    const from = mem.net.lanSent.length;
    const p: Query = { type: 'query', id: 0, flags: 0, ...q };
    peer.send(qu ? withQu(p) : encode(p), GROUP, 5353);
    await mem.clock.advance(ms);
    return sent().slice(from);
  };
  return { mem, dk, provisioning, laptop, sent, probes, responses, state, claimed, ask };
}

/** A rival responder on the network that owns HOST at another address and answers any query for it, as the RFC's owner would. */
function rivalOwner(mem: MemHal, name = HOST, address = '192.168.1.77'): LanPeer {
  const rival = mem.net.lanPeer(address);
  rival.onMessage = (bytes) => {
    const q = decode(bytes);
    if (q.type !== 'query' || !q.questions.some((x) => x.name.toLowerCase() === name.toLowerCase())) return;
    rival.send(encode({ type: 'response', id: 0, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [{ name, type: 'A', class: 'IN', flush: true, ttl: 120, data: address }] }), GROUP, 5353);
  };
  return rival;
}

describe('probing (RFC 6762 §8.1)', () => {
  it('sends three QU probes of type ANY 250 ms apart, after 0-250 ms, proposing its records in the Authority Section', async () => {
    const { mem, probes, responses } = rig();
    const joinedAt = mem.clock.monoMs();
    await mem.clock.advance(2000);
    const p = probes();
    expect(p.length, '§8.1: three probes').toBe(3);
    expect(p[0]!.atMs - joinedAt, '§8.1: the first probe after a random delay of 0-250 ms').toBeLessThanOrEqual(250);
    expect(p[1]!.atMs - p[0]!.atMs, '§8.1: probes 250 ms apart').toBe(250);
    expect(p[2]!.atMs - p[1]!.atMs, '§8.1: probes 250 ms apart').toBe(250);
    for (const { p: probe, address, port } of p) {
      expect(`${address}:${port}`, '§5: queries go to 224.0.0.251:5353').toBe(`${GROUP}:5353`);
      expect(probe.flags! & dnsPacket.AUTHORITATIVE_ANSWER, '§18.4: AA is zero in queries').toBe(0);
      expect(probe.questions.map((q) => [q.name, q.type, q.class]), '§8.1: one question of type ANY for each unique name, QU (§5.4)').toEqual([
        [HOST, 'ANY', QU_IN],
        [HTTP_INSTANCE, 'ANY', QU_IN],
        [OWN_INSTANCE, 'ANY', QU_IN],
      ]);
      const proposed = probe.authorities.map((r) => `${r.name} ${r.type}`).sort();
      expect(proposed, '§8.2: the Authority Section holds every record being probed').toEqual(
        [`${HOST} A`, `${HTTP_INSTANCE} SRV`, `${HTTP_INSTANCE} TXT`, `${OWN_INSTANCE} SRV`, `${OWN_INSTANCE} TXT`].sort(),
      );
      expect(probe.authorities.find((r) => r.type === 'A')!.data, 'the proposed A record: the station address').toBe(ADDRESS);
    }
    expect(responses()[0]!.atMs - p[2]!.atMs, '§8.1: announcing 250 ms after the third probe').toBe(250);
  });

  it('answers nothing for its names while probing them', async () => {
    const { mem, laptop, ask, probes } = rig();
    expect(await mem.clock.until(() => probes().length === 1, 1000)).toBe(true);
    const got = await ask(laptop, { questions: [{ name: HOST, type: 'A' }] }, 100);
    expect(got.filter((s) => s.p.type === 'response'), '§8.1: a name is not answered for before it is claimed').toEqual([]);
  });

  it('a response naming a probed name with other data is a conflict: the host becomes desk-3456-2 and is probed anew (§8.1, §9)', async () => {
    const { mem, state, claimed, probes, responses, provisioning } = rig({ peers: (m) => void rivalOwner(m) });
    await claimed(10_000);
    expect(state()!.host, '§9: the conflicting host name is replaced').toBe('desk-3456-2.local');
    expect(state()!.instance, 'the service instance did not conflict: it keeps its name').toBe('desk-3456');
    expect(state()!.renamed).toBe(1);
    expect(probes().slice(-3).map((s) => s.p.questions[0]!.name), '§8.1: the new name is probed three times').toEqual(['desk-3456-2.local', 'desk-3456-2.local', 'desk-3456-2.local']);
    const announced = responses()[0]!.p;
    expect(announced.answers.find((r) => r.type === 'A')!.name, 'the A record announced: the new name').toBe('desk-3456-2.local');
    for (const srv of announced.answers.filter((r) => r.type === 'SRV')) expect((srv.data as { target: string }).target, 'SRV target: the claimed host').toBe('desk-3456-2.local');
    expect(provisioning.addresses().find((a) => a.label === 'local name')!.base, 'the sign-in links follow the claimed name').toBe('http://desk-3456-2.local');
    expect(mem.system.logs.join('\n')).toMatch(/desk-3456\.local in use on the network: trying desk-3456-2\.local/);
  });

  it('a conflicting service instance is renamed "desk-3456 (2)" (RFC 6763 §4.1 instance names; RFC 6762 §9)', async () => {
    const { state, claimed, responses } = rig({
      peers: (m) => {
        const rival = m.net.lanPeer('192.168.1.78');
        rival.onMessage = (bytes) => {
          const q = decode(bytes);
          if (q.type !== 'query' || !q.questions.some((x) => x.name === HTTP_INSTANCE)) return;
          rival.send(encode({ type: 'response', id: 0, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [{ name: HTTP_INSTANCE, type: 'SRV', class: 'IN', flush: true, ttl: 120, data: { priority: 0, weight: 0, port: 8080, target: 'printer.local' } }] }), GROUP, 5353);
        };
      },
    });
    await claimed(10_000);
    expect(state()!.instance).toBe('desk-3456 (2)');
    expect(state()!.host, 'the host name did not conflict').toBe(HOST);
    const names = responses()[0]!.p.answers.filter((r) => r.type === 'PTR').map((r) => r.data);
    expect(names, 'the PTRs point at the renamed instances').toContain('desk-3456 (2)._http._tcp.local');
  });

  it('a response from a port other than 5353 is ignored (§11): no conflict', async () => {
    const { mem, state, claimed } = rig({
      peers: (m) => {
        const odd = m.net.lanPeer('192.168.1.79', 5354);
        m.net.lanPeer('192.168.1.80').onMessage = () =>
          odd.send(encode({ type: 'response', id: 0, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [{ name: HOST, type: 'A', class: 'IN', ttl: 120, data: '192.168.1.79' }] }), ADDRESS, 5353);
      },
    });
    await claimed();
    expect(state()!.host, '§11: a response from another port is no conflict').toBe(HOST);
    expect(mem.system.logs.join('\n')).not.toMatch(/in use on the network/);
  });

  it(`${CONFLICT_BURST} conflicts within ten seconds: each further probe waits five seconds (§8.1)`, async () => {
    const { mem, probes, state } = rig({
      peers: (m) => {
        // A host that claims every name the device tries.
        const rival = m.net.lanPeer('192.168.1.77');
        rival.onMessage = (bytes) => {
          const q = decode(bytes);
          if (q.type !== 'query' || !q.authorities.length) return;
          const name = q.questions[0]!.name;
          rival.send(encode({ type: 'response', id: 0, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [{ name, type: 'A', class: 'IN', flush: true, ttl: 120, data: '192.168.1.77' }] }), GROUP, 5353);
        };
      },
    });
    expect(await mem.clock.until(() => (state()?.renamed ?? 0) >= CONFLICT_BURST, 10_000)).toBe(true);
    const before = probes().length;
    const renamedAt = mem.clock.monoMs();
    // The rename happened within the last 10 ms step of until().
    await mem.clock.advance(CONFLICT_BACKOFF_MS - 20);
    expect(probes().length, '§8.1: no probe for five seconds after the fifteenth conflict').toBe(before);
    await mem.clock.advance(30);
    expect(probes().length).toBe(before + 1);
    expect(probes().at(-1)!.atMs - renamedAt).toBeGreaterThanOrEqual(CONFLICT_BACKOFF_MS - 10);
  });
});

describe('simultaneous probe tiebreaking (RFC 6762 §8.2)', () => {
  const rivalProbe = (address: string): Query =>
    ({
      type: 'query',
      id: 0,
      flags: 0,
      questions: [{ name: HOST, type: 'ANY', class: 'IN' }],
      authorities: [{ name: HOST, type: 'A', class: 'IN', ttl: 120, data: address }],
    });

  it('a probe with lexicographically later data wins: the device waits one second, then probes again', async () => {
    const { mem, laptop, probes } = rig();
    expect(await mem.clock.until(() => probes().length === 1, 1000)).toBe(true);
    const lostAt = mem.clock.monoMs();
    // 192.168.1.77 > 192.168.1.50 byte by byte.
    laptop.send(withQu(rivalProbe('192.168.1.77')), GROUP, 5353);
    await mem.clock.advance(999);
    expect(probes().length, '§8.2: the loser sends no probe for one second').toBe(1);
    await mem.clock.advance(1);
    expect(probes().length, '§8.2: then it probes again').toBe(2);
    expect(probes()[1]!.atMs - lostAt, 'one second after the losing comparison').toBe(1000);
  });

  it('a probe with lexicographically earlier data loses: the device goes on and claims the name', async () => {
    const { mem, laptop, probes, state, claimed } = rig();
    expect(await mem.clock.until(() => probes().length === 1, 1000)).toBe(true);
    // 192.168.1.7 < 192.168.1.50: the last byte 7 < 50.
    laptop.send(withQu(rivalProbe('192.168.1.7')), GROUP, 5353);
    await claimed();
    expect(probes().length, '§8.2: the winner ignores the other probe').toBe(3);
    expect(state()!.host).toBe(HOST);
  });

  it('orders as the RFC says: class, type, then data bytes; equal so far, the longer list wins', () => {
    const rec = (type: number, bytes: number[]) => ({ name: 'x.local', type, cls: 1, flush: false, ttl: 120, rdata: Uint8Array.from(bytes) });
    expect(tiebreak([rec(1, [192, 168, 1, 50])], [rec(1, [192, 168, 1, 77])])).toBeLessThan(0);
    expect(tiebreak([rec(1, [192, 168, 1, 50])], [rec(1, [192, 168, 1, 7])])).toBeGreaterThan(0);
    expect(tiebreak([rec(16, [0])], [rec(33, [0])]), 'type before data').toBeLessThan(0);
    expect(tiebreak([rec(1, [1])], [rec(1, [1]), rec(16, [0])]), 'the longer list wins').toBeLessThan(0);
    expect(tiebreak([rec(1, [1, 2])], [rec(1, [1])]), 'data that runs on is later').toBeGreaterThan(0);
  });
});

describe('announcing (RFC 6762 §8.3, §10, §10.2, §18)', () => {
  it('announces every record three times, one then two seconds apart, unique records with the cache-flush bit', async () => {
    const { mem, responses, claimed } = rig();
    await claimed();
    await mem.clock.advance(10_000);
    const r = responses();
    expect(r.length, '§8.3: at least two announcements (here three), and none later').toBe(3);
    expect(r[1]!.atMs - r[0]!.atMs, '§8.3: the second one second after the first').toBe(1000);
    expect(r[2]!.atMs - r[1]!.atMs, '§8.3: the interval at least doubles').toBe(2000);
    for (const { p, address, port } of r) {
      expect(`${address}:${port}`).toBe(`${GROUP}:5353`);
      expect(p.id, '§18.1: ID zero in multicast responses').toBe(0);
      expect(p.flags! & dnsPacket.AUTHORITATIVE_ANSWER, '§18.4: AA set in responses').toBe(dnsPacket.AUTHORITATIVE_ANSWER);
      expect(p.questions, '§6: no questions in a response').toEqual([]);
      const rows = p.answers.map((a) => `${a.name} ${a.type} ttl=${a.ttl} flush=${a.flush}`).sort();
      expect(rows, '§10: 120 s for host-named records, 75 min for the rest; §10.2: cache flush on unique records only').toEqual(
        [
          `${HOST} A ttl=120 flush=true`,
          `_http._tcp.local PTR ttl=4500 flush=false`,
          `_desk-assistant._tcp.local PTR ttl=4500 flush=false`,
          `${HTTP_INSTANCE} SRV ttl=120 flush=true`,
          `${HTTP_INSTANCE} TXT ttl=4500 flush=true`,
          `${OWN_INSTANCE} SRV ttl=120 flush=true`,
          `${OWN_INSTANCE} TXT ttl=4500 flush=true`,
          `_services._dns-sd._udp.local PTR ttl=4500 flush=false`,
          `_services._dns-sd._udp.local PTR ttl=4500 flush=false`,
        ].sort(),
      );
    }
  });

  it('the TXT record reads as documented and carries no secret (RFC 6763 §6)', async () => {
    const { mem, dk, responses, claimed } = rig();
    await claimed();
    const txt = responses()[0]!.p.answers.filter((a) => a.type === 'TXT');
    for (const t of txt) {
      expect(Object.keys(txtOf(t.data)), 'TXT keys in order, txtvers first (RFC 6763 §6.7)').toEqual(['txtvers', 'model', 'fw', 'path']);
      expect(txtOf(t.data), 'TXT values').toEqual({ txtvers: '1', model: 'panel-35', fw: 'v0.1.0', path: '/' });
    }
    const wire = mem.net.lanSent.map((d) => Buffer.from(d.bytes).toString('latin1')).join('');
    for (const secret of [dk.token.reveal(), dk.kernel.store('auth').str('apPass', 'x'), 'home-pass-1']) expect(wire, 'no secret on the network').not.toContain(secret);
  });
});

describe('answering (RFC 6762 §5.4, §6, §7.1, §6.7; RFC 6763 §9, §12)', () => {
  const later = async (r: ReturnType<typeof rig>): Promise<void> => {
    await r.claimed();
    // Past the announcements' one-second multicast limit (§6).
    await r.mem.clock.advance(5000);
  };

  it('a PTR browse gets the PTR after 20-120 ms with the SRV, TXT and address in the Additional Section', async () => {
    const r = rig();
    await later(r);
    const from = r.mem.clock.monoMs();
    const got = (await r.ask(r.laptop, { questions: [{ name: '_http._tcp.local', type: 'PTR' }] })).filter((s) => s.p.type === 'response');
    expect(got.length).toBe(1);
    const { p, atMs } = got[0]!;
    expect(atMs - from, '§6: a shared answer waits 20-120 ms').toBeGreaterThanOrEqual(20);
    expect(atMs - from, '§6: a shared answer waits 20-120 ms').toBeLessThanOrEqual(120);
    expect(p.answers.map((a) => [a.name, a.type, a.data]), 'the answer').toEqual([['_http._tcp.local', 'PTR', HTTP_INSTANCE]]);
    expect(p.additionals.map((a) => `${a.name} ${a.type}`).sort(), 'RFC 6763 §12.1: SRV, TXT and the target address; §6.1 NSECs').toEqual(
      [`${HTTP_INSTANCE} SRV`, `${HTTP_INSTANCE} TXT`, `${HOST} A`, `${HOST} NSEC`, `${HTTP_INSTANCE} NSEC`].sort(),
    );
  });

  it('the own service type is browsable and enumerated among the service types (RFC 6763 §9)', async () => {
    const r = rig();
    await later(r);
    const own = (await r.ask(r.laptop, { questions: [{ name: '_desk-assistant._tcp.local', type: 'PTR' }] })).find((s) => s.p.type === 'response')!.p;
    expect(own.answers.map((a) => a.data)).toEqual([OWN_INSTANCE]);
    const types = (await r.ask(r.laptop, { questions: [{ name: '_services._dns-sd._udp.local', type: 'PTR' }] })).find((s) => s.p.type === 'response')!.p;
    expect(types.answers.map((a) => a.data).sort(), 'RFC 6763 §9: one PTR a service type').toEqual(['_desk-assistant._tcp.local', '_http._tcp.local']);
  });

  it('a unique answer goes at once; a type the name lacks gets the restricted NSEC (§6, §6.1)', async () => {
    const r = rig();
    await later(r);
    const from = r.mem.clock.monoMs();
    const a = (await r.ask(r.laptop, { questions: [{ name: 'DESK-3456.local', type: 'A' }] }, 5)).find((s) => s.p.type === 'response');
    expect(a?.atMs, '§6: a unique answer is not delayed (§16: names match without regard to ASCII case)').toBe(from);
    expect(a!.p.answers.map((x) => [x.name, x.type, x.data])).toEqual([[HOST, 'A', ADDRESS]]);
    const aaaa = (await r.ask(r.laptop, { questions: [{ name: HOST, type: 'AAAA' }] }, 5)).find((s) => s.p.type === 'response')!.p;
    const nsec = aaaa.answers[0]!;
    expect([nsec.name, nsec.type], '§6.1: the nonexistence of AAAA asserted with NSEC').toEqual([HOST, 'NSEC']);
    expect(nsec.data, '§6.1: next name the record\'s own, the types that exist').toEqual({ nextDomain: HOST, rrtypes: ['A'] });
    const srvNsec = (await r.ask(r.laptop, { questions: [{ name: HTTP_INSTANCE, type: 'AAAA' }] }, 5)).find((s) => s.p.type === 'response')!.p.answers[0]!;
    expect((srvNsec.data as { rrtypes: string[] }).rrtypes.sort(), '§6.1: the instance has TXT and SRV').toEqual(['SRV', 'TXT']);
    const none = await r.ask(r.laptop, { questions: [{ name: 'printer.local', type: 'A' }] }, 200);
    expect(none.length, '§6: no answer for a name it does not own').toBe(0);
  });

  it('a record multicast less than a second ago is not multicast again; a QU question then gets a unicast answer (§6, §5.4)', async () => {
    const r = rig();
    await r.claimed();
    // Right after the last announcement.
    const muted = await r.ask(r.laptop, { questions: [{ name: HOST, type: 'A' }] }, 50);
    expect(muted.length, '§6: not multicast again within one second').toBe(0);
    const qu = await r.ask(r.laptop, { id: 4321, questions: [{ name: HOST, type: 'A' }] }, 50, true);
    expect(qu.map((s) => `${s.address}:${s.port}`), '§5.4: multicast within a quarter TTL: the QU answer is unicast to the querier').toEqual(['192.168.1.20:5353']);
    expect(qu[0]!.p.id, '§18.1: a unicast reply to a query carries its ID').toBe(4321);
    expect(r.laptop.heard.some((h) => decode(h.bytes).id === 4321), 'the querier hears it').toBe(true);
  });

  it('a known answer with at least half its TTL is not repeated (§7.1)', async () => {
    const r = rig();
    await later(r);
    const known = (ttl: number) => ({ questions: [{ name: '_http._tcp.local', type: 'PTR' }], answers: [{ name: '_http._tcp.local', type: 'PTR', class: 'IN', ttl, data: HTTP_INSTANCE }] });
    expect((await r.ask(r.laptop, known(4000))).length, '§7.1: TTL 4000 >= 4500/2: suppressed').toBe(0);
    await r.mem.clock.advance(2000);
    expect((await r.ask(r.laptop, known(2000))).length, '§7.1: TTL 2000 < 4500/2: answered').toBe(1);
  });

  it('a one-shot query from another port gets a legacy unicast reply: its ID and question, TTL at most 10 s, no cache flush (§6.7)', async () => {
    const r = rig();
    await r.claimed();
    const resolver = r.mem.net.lanPeer('192.168.1.21', 53_535);
    const got = await r.ask(resolver, { id: 777, questions: [{ name: HOST, type: 'A' }] }, 5);
    expect(got.map((s) => `${s.address}:${s.port}`), '§6.7: sent to the query\'s address and port').toEqual(['192.168.1.21:53535']);
    const p = got[0]!.p;
    expect(p.id, '§6.7: the query ID repeated').toBe(777);
    expect(p.questions.map((q) => [q.name, q.type]), '§6.7: the question repeated').toEqual([[HOST, 'A']]);
    for (const a of [...p.answers, ...p.additionals]) {
      expect(a.ttl, `§6.7: ${a.name} ${a.type} TTL at most 10 s`).toBeLessThanOrEqual(10);
      expect(a.flush, `§10.2: no cache-flush bit in a legacy reply (${a.name} ${a.type})`).toBe(false);
    }
    expect(p.answers[0]!.data).toBe(ADDRESS);
  });

  it('ignores what does not parse, a nonzero opcode or response code (§18.3, §18.11)', async () => {
    const r = rig();
    await later(r);
    const before = r.mem.net.lanSent.length;
    r.laptop.send(Uint8Array.of(0, 0, 0, 0, 0, 1), GROUP, 5353);
    const q = encode({ type: 'query', id: 0, flags: 0, questions: [{ name: HOST, type: 'A' }] } );
    const opcode = q.slice();
    opcode[2]! |= 0x10; // opcode 2 (STATUS)
    const rcode = q.slice();
    rcode[3]! |= 0x03;
    r.laptop.send(opcode, GROUP, 5353);
    r.laptop.send(rcode, GROUP, 5353);
    await r.mem.clock.advance(200);
    expect(r.mem.net.lanSent.length).toBe(before);
    expect(decodeMessage(Uint8Array.of(0, 0, 0, 0, 0, 1)), 'a header that promises a question it lacks does not parse').toBeNull();
  });
});

describe('conflicts after the claim and goodbyes (RFC 6762 §9, §10.1)', () => {
  it('another host announcing the name with other data sends it back to probing; answered, the device renames', async () => {
    const r = rig();
    await r.claimed();
    const probesBefore = r.probes().length;
    const rival = rivalOwner(r.mem);
    rival.send(encode({ type: 'response', id: 0, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: [{ name: HOST, type: 'A', class: 'IN', flush: true, ttl: 120, data: '192.168.1.77' }] }), GROUP, 5353);
    await r.mem.clock.advance(1);
    expect(r.state()!.state, '§9: back to probing at once').toBe('probing');
    await r.claimed();
    expect(r.probes().length, '§9: probed again').toBeGreaterThan(probesBefore);
    expect(r.state()!.host, 'the rival answered the probe: renamed').toBe('desk-3456-2.local');
  });

  it('an orderly restart sends every record with TTL 0 first', async () => {
    const shutdown = new ShutdownHooks();
    const r = rig({ shutdown });
    await r.claimed();
    const system = shutdown.wrap(r.mem.hal.system);
    const from = r.mem.net.lanSent.length;
    // The in-memory HAL's reboot throws, as a restart ends the run.
    expect(() => system.reboot('test')).toThrow(/reboot: test/);
    expect(r.mem.system.reboots).toEqual(['test']);
    const bye = r.sent().slice(from);
    expect(bye.length, '§10.1: one goodbye').toBe(1);
    expect(bye[0]!.p.answers.length, '§10.1: every record').toBe(9);
    for (const a of bye[0]!.p.answers) expect(a.ttl, `§10.1: ${a.name} ${a.type} with TTL 0`).toBe(0);
    expect(r.mem.net.lanJoined(), 'the socket is closed').toBe(false);
  });

  it('the station going away withdraws it without a goodbye (that network is gone); back, it probes again', async () => {
    const r = rig();
    await r.claimed();
    const from = r.mem.net.lanSent.length;
    r.mem.wifi.linkDown();
    await r.mem.clock.advance(1);
    expect(r.state(), 'state: mdns null').toBeNull();
    expect(r.mem.net.lanJoined()).toBe(false);
    expect(r.mem.net.lanSent.length).toBe(from);
    await r.mem.clock.advance(10_000);
    expect(r.state()?.host, 'rejoined: advertised again').toBe(HOST);
  });
});

describe('the wire codec (src/net/dns-message.ts) against dns-packet', () => {
  it('reads whatever dns-packet writes, compression pointers and all, and never throws on damaged bytes', async () => {
    const r = rig();
    await r.claimed();
    const announcement = r.mem.net.lanSent.at(-1)!.bytes;
    // dns-packet compresses every name it writes; ours must read them back as dns-packet does.
    const theirs = encode({ type: 'response', id: 0, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers: decode(announcement).answers.map((a) => ({ ...a })) });
    const ours = decodeMessage(theirs)!;
    const TYPES: Record<string, number> = { A: 1, PTR: 12, TXT: 16, SRV: 33 };
    expect(ours.answers.map((a) => `${a.name} ${a.type} ${a.ttl} ${a.flush}`), 'name, type, TTL, cache flush').toEqual(decode(theirs).answers.map((a) => `${a.name} ${TYPES[a.type]} ${a.ttl} ${a.flush}`));
    expect(decode(encodeMessage(ours)).answers, 'our encoding of what we read decodes as the original').toEqual(decode(theirs).answers);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat(announcement.length - 1), fc.integer({ min: 0, max: 255 }), (noise, at, byte) => {
        decodeMessage(noise);
        const damaged = announcement.slice();
        damaged[at] = byte;
        decodeMessage(damaged);
        decodeMessage(damaged.subarray(0, at));
      }),
      { numRuns: 500 },
    );
  });
});
