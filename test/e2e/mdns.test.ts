// mDNS on the simulator, judged by clients we did not write, on the same
// (loopback) network as the device: bonjour-service browses and resolves,
// multicast-dns records every packet on the wire and asks, and another
// host's responder (bonjour-service publishing) already owns the device's
// names. The board bridges the device's 224.0.0.251:5353 to the group on a
// free loopback port (--mdns-port; the device sends from 127.0.0.2:
// docs/sim-protocol.md, "mDNS"), so every client is configured with that
// port and the loopback interface. Exact timings are checked on the virtual
// clock in test/unit/wifi/mdns.test.ts; here, what a real client sees. A
// failure names the rule (RFC 6762/6763 section) or the field.

import { createSocket, type RemoteInfo } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bonjour, type Browser, type Service } from 'bonjour-service';
import * as dnsPacket from 'dns-packet';
import makeMdns from 'multicast-dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';

const LOOPBACK = '127.0.0.1';
const DEVICE_ON_LOOPBACK = '127.0.0.2';
const STATION_ADDRESS = '192.168.1.50';
const GROUP = '224.0.0.251';
/** dns-packet reads a question's QU bit (RFC 6762 §5.4) into its class, as class IN | 0x8000. */
const QU_IN = 'UNKNOWN_32769';

interface Rec {
  name: string;
  type: string;
  ttl: number;
  flush?: boolean;
  data: unknown;
}
interface Seen {
  from: string;
  type: 'query' | 'response';
  questions: Array<{ name: string; type: string; class: string }>;
  answers: Rec[];
  authorities: Rec[];
  additionals: Rec[];
}

let device: Device;
let port = 0;
let base = '';
let version = '';
const wireLog: Seen[] = [];
let wire: makeMdns.MulticastDNS;
let rival: Bonjour;
let browser: Bonjour;

/** A free UDP port on the loopback, for the bridge. */
async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, LOOPBACK, r));
  const p = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

/** mDNS clients on the bridge: the group on `port`, the loopback interface, every socket sharing the port (RFC 6762 §15). */
const clientOptions = (): Record<string, unknown> => ({ interface: LOOPBACK, bind: '0.0.0.0', port, ip: GROUP, loopback: true });

const fromDevice = (): Seen[] => wireLog.filter((s) => s.from === DEVICE_ON_LOOPBACK);
const isProbe = (s: Seen): boolean => s.type === 'query' && s.authorities.length > 0;

async function until<T>(what: string, get: () => T | undefined | null | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The services a browser has found, as they come and go. */
function watch(b: Browser): { up: Service[]; down: Service[]; updated: Service[] } {
  const seen = { up: [] as Service[], down: [] as Service[], updated: [] as Service[] };
  b.on('up', (s) => seen.up.push(s));
  b.on('down', (s) => seen.down.push(s));
  b.on('srv-update', (s) => seen.updated.push(s));
  return seen;
}

let http: ReturnType<typeof watch>;
let own: ReturnType<typeof watch>;

beforeAll(async () => {
  port = await freePort();
  wire = makeMdns(clientOptions() as makeMdns.Options);
  wire.on('packet', (p, r: RemoteInfo) => {
    const d = p as unknown as Omit<Seen, 'from'>;
    wireLog.push({ from: r.address, type: d.type, questions: d.questions ?? [], answers: d.answers ?? [], authorities: d.authorities ?? [], additionals: d.additionals ?? [] });
  });
  // A fresh device: nothing saved, so no station and no mDNS until the network is joined below.
  device = await startDevice({ args: ['--mdns-port', String(port), '--mdns-address', DEVICE_ON_LOOPBACK] });
  const mac = (JSON.parse(readFileSync(join(device.dir, 'device.json'), 'utf8')) as { mac: string }).mac;
  base = `desk-${mac.replace(/:/g, '').slice(-4).toLowerCase()}`;
  version = ((await device.board.request('status')) as { build: { version: string } }).build.version;
  // Another host already owns the device's host name and its HTTP service's instance name: bonjour-service's
  // own responder publishes "<base>" _http._tcp on host <base>.local (it probes first: RFC 6762 §8.1).
  rival = new Bonjour(clientOptions() as never);
  const published = rival.publish({ name: base, type: 'http', port: 8080, host: `${base}.local`, disableIPv6: true, txt: { owner: 'another host' } });
  await until('the other host to publish', () => published.published, 10_000);
  browser = new Bonjour(clientOptions() as never);
  http = watch(browser.find({ type: 'http' }));
  own = watch(browser.find({ type: 'desk-assistant' }));
  expect(await device.command('WIFI SimNet|simnet-pass', 30_000)).toMatch(/joined "SimNet" as 192\.168\.1\.50/);
});

afterAll(async () => {
  browser?.destroy();
  rival?.unpublishAll();
  rival?.destroy();
  wire?.destroy();
  await cleanup();
});

describe('mDNS judged by bonjour-service and multicast-dns on the loopback', () => {
  it('probes, meets the other host, renames (desk-XXXX-2, "desk-XXXX (2)"), probes again, then announces (RFC 6762 §8.1, §8.3, §9)', async () => {
    await until('the device to announce', () => fromDevice().some((s) => s.type === 'response' && s.answers.length > 0));
    const sent = fromDevice();
    const firstAnnouncement = sent.findIndex((s) => s.type === 'response');
    const probes = sent.slice(0, firstAnnouncement);
    expect(probes.every(isProbe), '§8.1: nothing but probes before the names are claimed').toBe(true);
    const first = probes[0]!;
    expect(first.questions.map((q) => [q.name, q.type, q.class]), '§8.1: QU questions of type ANY for each unique name').toEqual([
      [`${base}.local`, 'ANY', QU_IN],
      [`${base}._http._tcp.local`, 'ANY', QU_IN],
      [`${base}._desk-assistant._tcp.local`, 'ANY', QU_IN],
    ]);
    expect(first.authorities.map((r) => `${r.name} ${r.type}`).sort(), '§8.2: the proposed records in the Authority Section').toEqual(
      [`${base}.local A`, `${base}._http._tcp.local SRV`, `${base}._http._tcp.local TXT`, `${base}._desk-assistant._tcp.local SRV`, `${base}._desk-assistant._tcp.local TXT`].sort(),
    );
    // The other host's answer: its A record for <base>.local and its SRV for <base>._http._tcp.local.
    const answered = wireLog.find((s) => s.from !== DEVICE_ON_LOOPBACK && s.type === 'response' && s.answers.some((a) => a.name === `${base}.local` && a.type === 'A'));
    expect(answered, 'the other host answers the probe for its name').toBeDefined();
    const claimed = probes.slice(-3);
    for (const p of claimed) {
      expect(p.questions.map((q) => q.name), '§9: the conflicting names replaced, then probed three times (§8.1)').toEqual([`${base}-2.local`, `${base} (2)._http._tcp.local`, `${base} (2)._desk-assistant._tcp.local`]);
    }
    const announcements = await until('a second announcement', () => {
      const r = fromDevice().filter((s) => s.type === 'response' && s.answers.length === 9);
      return r.length >= 2 && r;
    });
    for (const a of announcements.slice(0, 2)) {
      expect(a.questions, '§6: no questions in a response').toEqual([]);
      const rows = a.answers.map((r) => `${r.name} ${r.type} ttl=${r.ttl} flush=${r.flush}`).sort();
      expect(rows, '§8.3 every record; §10 TTLs 120 s / 75 min; §10.2 cache flush on unique records').toEqual(
        [
          `${base}-2.local A ttl=120 flush=true`,
          `_http._tcp.local PTR ttl=4500 flush=false`,
          `${base} (2)._http._tcp.local SRV ttl=120 flush=true`,
          `${base} (2)._http._tcp.local TXT ttl=4500 flush=true`,
          `_desk-assistant._tcp.local PTR ttl=4500 flush=false`,
          `${base} (2)._desk-assistant._tcp.local SRV ttl=120 flush=true`,
          `${base} (2)._desk-assistant._tcp.local TXT ttl=4500 flush=true`,
          `_services._dns-sd._udp.local PTR ttl=4500 flush=false`,
          `_services._dns-sd._udp.local PTR ttl=4500 flush=false`,
        ].sort(),
      );
    }
    const state = (await (await device.fetch('/api/state', { token: await webToken() })).json()) as { mdns: unknown };
    expect(state.mdns, 'GET /api/state mdns').toEqual({ host: `${base}-2.local`, instance: `${base} (2)`, services: ['_http._tcp', '_desk-assistant._tcp'], state: expect.stringMatching(/^(announcing|ready)$/), renamed: 2 });
  });

  it('browsing _http._tcp finds the device beside the other host, resolved to its address, its TXT as documented (RFC 6763 §4, §6)', async () => {
    const mine = await until('the device in the _http._tcp browse', () => http.up.find((s) => s.name === `${base} (2)`));
    expect(mine.fqdn, 'service instance name').toBe(`${base} (2)._http._tcp.local`);
    expect(mine.host, 'SRV target').toBe(`${base}-2.local`);
    expect(mine.port, 'SRV port').toBe(80);
    expect(mine.addresses, 'the A record of the target: the station address').toEqual([STATION_ADDRESS]);
    expect(mine.txt, 'TXT (docs/decisions.md, "mDNS")').toEqual({ txtvers: '1', model: 'panel-35', fw: version, path: '/' });
    expect(mine.referer?.address, 'sent from the device on the loopback bridge').toBe(DEVICE_ON_LOOPBACK);
    const theirs = await until('the other host in the browse', () => http.up.find((s) => s.name === base));
    expect([theirs.port, theirs.host], 'the other host keeps its name').toEqual([8080, `${base}.local`]);
  });

  it('browsing its own type _desk-assistant._tcp finds it, and nothing else (RFC 6763 §4.1, §7)', async () => {
    const mine = await until('the device in the _desk-assistant._tcp browse', () => own.up.find((s) => s.name === `${base} (2)`));
    expect([mine.type, mine.protocol, mine.port, mine.host], 'type, protocol, port, host').toEqual(['desk-assistant', 'tcp', 80, `${base}-2.local`]);
    expect(mine.txt, 'TXT').toEqual({ txtvers: '1', model: 'panel-35', fw: version, path: '/' });
    expect(own.up.map((s) => s.name), 'only the device has that type').toEqual([`${base} (2)`]);
  });

  it('its host name resolves to its address; a type it lacks gets NSEC; the service types are enumerated (RFC 6762 §6, §6.1; RFC 6763 §9)', async () => {
    // Asked again after 1.5 s without an answer, as a querier does (§5.2): a record multicast less than a
    // second before is not multicast again (§6), and the last announcement may be that recent.
    const answer = async (name: string, type: 'A' | 'AAAA' | 'PTR'): Promise<Seen> => {
      const from = wireLog.length;
      const ask = setInterval(() => wire.query({ questions: [{ name, type }] }), 1500);
      wire.query({ questions: [{ name, type }] });
      try {
        return await until(`an answer for ${name} ${type}`, () => wireLog.slice(from).find((s) => s.from === DEVICE_ON_LOOPBACK && s.type === 'response' && s.answers.length > 0 && s.answers.every((a) => a.name.toLowerCase() === name.toLowerCase())), 8000);
      } finally {
        clearInterval(ask);
      }
    };
    const a = await answer(`${base.toUpperCase()}-2.local`, 'A');
    expect(a.answers.map((r) => [r.type, r.data]), '§6 A (§16: the name matched without regard to case)').toEqual([['A', STATION_ADDRESS]]);
    const aaaa = await answer(`${base}-2.local`, 'AAAA');
    expect(aaaa.answers.map((r) => [r.type, r.data]), '§6.1: NSEC asserting that only A exists').toEqual([['NSEC', { nextDomain: `${base}-2.local`, rrtypes: ['A'] }]]);
    const types = await answer('_services._dns-sd._udp.local', 'PTR');
    expect(types.answers.map((r) => r.data).sort(), 'RFC 6763 §9').toEqual(['_desk-assistant._tcp.local', '_http._tcp.local']);
  });

  it('a one-shot resolver on another port gets a legacy unicast answer (RFC 6762 §6.7)', async () => {
    const s = createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, LOOPBACK, r));
    const reply = new Promise<Buffer>((resolve) => s.once('message', (m) => resolve(m)));
    s.send(dnsPacket.encode({ type: 'query', id: 0x5151, flags: 0, questions: [{ name: `${base}-2.local`, type: 'A' }] }), port, GROUP);
    const p = dnsPacket.decode(await Promise.race([reply, new Promise<never>((_, no) => setTimeout(() => no(new Error('no legacy answer')), 5000))])) as unknown as Seen & { id: number };
    s.close();
    expect(p.id, '§6.7: the query ID repeated').toBe(0x5151);
    expect(p.questions.map((q) => q.name), '§6.7: the question repeated').toEqual([`${base}-2.local`]);
    expect(p.answers.map((r) => [r.type, r.data, r.ttl <= 10, r.flush]), '§6.7: TTL at most 10 s; §10.2 no cache flush').toEqual([['A', STATION_ADDRESS, true, false]]);
  });

  it('another host claiming its name after the claim: it probes again, is answered and renames (RFC 6762 §9)', async () => {
    const taker = makeMdns(clientOptions() as makeMdns.Options);
    const name = `${base}-2.local`;
    const claim = (): void => taker.respond({ answers: [{ name, type: 'A', class: 'IN', flush: true, ttl: 120, data: '127.0.0.9' }] });
    taker.on('query', (q) => {
      if (q.questions.some((x) => x.name.toLowerCase() === name)) claim();
    });
    try {
      const from = wireLog.length;
      claim();
      const reprobe = await until('the device to probe again', () => wireLog.slice(from).find((s) => s.from === DEVICE_ON_LOOPBACK && isProbe(s)), 5000);
      expect(reprobe.questions[0]!.name, '§9: the conflicting name goes back to probing first').toBe(name);
      const moved = await until('the device on its new name', () => http.updated.find((s) => s.host === `${base}-3.local`), 15_000);
      expect(moved.name, 'the instance did not conflict').toBe(`${base} (2)`);
      expect(moved.addresses).toEqual([STATION_ADDRESS]);
    } finally {
      taker.destroy();
    }
  });

  it('an orderly restart says goodbye (TTL 0): the browsers see the services go; back up, they come again (RFC 6762 §10.1)', async () => {
    const from = wireLog.length;
    const gone = http.down.length;
    expect(await device.command('REBOOT')).toMatch(/OK/);
    const bye = await until('the goodbye', () => wireLog.slice(from).find((s) => s.from === DEVICE_ON_LOOPBACK && s.type === 'response' && s.answers.length > 0 && s.answers.every((a) => a.ttl === 0)), 10_000);
    expect(bye.answers.length, '§10.1: every record').toBe(9);
    await until('the browser to drop the device', () => http.down.length > gone && http.down.some((s) => s.name === `${base} (2)`), 5000);
    await until('the own-type browser to drop it', () => own.down.some((s) => s.name === `${base} (2)`), 5000);
    // The known network is joined at boot: probing starts over from desk-XXXX (names are not kept across restarts).
    const ups = http.up.length;
    await until('the device back in the browse', () => http.up.slice(ups).find((s) => s.host.startsWith(`${base}-`)), 30_000);
  });

  it("the board's own view of the home network: status and mdns.resolve", async () => {
    const status = (await device.board.request('status')) as { mdns: { hostname: string; address: string; services: Array<{ type: string; port: number }> } | null };
    expect(status.mdns?.address, 'status mdns: what the home network heard').toBe(STATION_ADDRESS);
    const found = (await device.board.request('mdns.resolve', { hostname: status.mdns!.hostname })) as { address: string; services: Array<{ type: string; port: number; txt: Record<string, string> }> };
    expect(found.address).toBe(STATION_ADDRESS);
    expect(found.services.map((s) => s.type).sort()).toEqual(['_desk-assistant', '_http']);
  });
});

async function webToken(): Promise<string> {
  return (await device.command('WEBTOK?')).split('\n')[0]!;
}
