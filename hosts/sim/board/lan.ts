// The simulated home network's multicast side, where mDNS lives. The
// firmware's multicast socket (udp.bind with `multicast`, the responder's
// 224.0.0.251:5353) is a member of it while the station is connected; a
// device off the network neither sends nor hears. On it:
//
// - the board listens as a host on the home network would: what the device
//   announced and has not said goodbye to is the status's `mdns` (cleared
//   at each boot and when the station leaves), decoded with dns-packet;
// - the control op mdns.resolve asks as a host on it would: one-shot
//   queries (RFC 6762 §6.7, from 192.168.1.10, a port other than 5353) for
//   the host's address and the services it points at;
// - with --mdns-port P the segment is bridged to the real loopback, so a
//   client we did not write (bonjour-service, multicast-dns, avahi) is on
//   the same network: the group 224.0.0.251 on port P stands for 5353 (the
//   real 5353 may belong to the machine's own responder). The device sends
//   from its own loopback address (--mdns-address, default 127.0.0.2) port
//   P, multicast on the loopback interface only, and hears the group and
//   unicast to that address. Port P is shown to the firmware as 5353 in
//   both directions, so an mDNS querier on P is "port 5353" to the
//   responder and a one-shot resolver on any other port is a legacy one.
//   Its own datagrams looping back are dropped.

import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import type { Json } from './service.ts';

export const MDNS_GROUP = '224.0.0.251';
export const MDNS_PORT = 5353;
/** The board's own querier on the home network (mdns.resolve). */
export const RESOLVER_ADDRESS = '192.168.1.10';
const RESOLVER_PORT = 49_152;
const LOOPBACK = '127.0.0.1';
const RESOLVE_WAIT_MS = 1500;

export interface LanOptions {
  /** The real loopback port standing for 5353, or null: no bridge. */
  port: number | null;
  /** The device's own address on the loopback bridge. */
  address: string;
}

export interface LanWorld {
  /** The station is connected: the device is on the home network. */
  online(): boolean;
  log(line: string): void;
}

interface Member {
  group: string;
  port: number;
  deliver(bytes: Buffer, address: string, port: number): void;
}

interface Heard {
  name: string;
  type: string;
  data: unknown;
}

/** A decoded record, as far as the board reads one. */
interface Answer {
  name: string;
  type: string;
  ttl?: number;
  data: unknown;
}

/** A datagram as DNS, or null when it is not one (a host on the network ignores those). */
function packetOf(bytes: Buffer): dnsPacket.Packet | null {
  try {
    return dnsPacket.decode(bytes);
  } catch {
    return null;
  }
}

export class Lan {
  private readonly members = new Map<number, Member>();
  private bridge: { group: Socket; own: Socket } | null = null;
  private heard: Heard[] = [];
  private waiting: Array<(packet: dnsPacket.Packet) => void> = [];
  private nextQueryId = 1;

  constructor(
    private readonly opts: LanOptions,
    private readonly world: LanWorld,
  ) {
    if (opts.port !== null) this.openBridge(opts.port);
  }

  private openBridge(port: number): void {
    const group = createSocket({ type: 'udp4', reuseAddr: true });
    const own = createSocket({ type: 'udp4', reuseAddr: true });
    const fail = (e: Error): void => this.world.log(`board: mDNS bridge on port ${port}: ${e.message}`);
    group.on('error', fail);
    own.on('error', fail);
    group.bind(port, MDNS_GROUP, () => {
      group.addMembership(MDNS_GROUP, LOOPBACK);
      group.on('message', (m, r) => this.fromBridge(m, r));
    });
    own.bind(port, this.opts.address, () => {
      own.setMulticastInterface(LOOPBACK);
      own.setMulticastTTL(255);
      own.setMulticastLoopback(true);
      own.on('message', (m, r) => this.fromBridge(m, r));
    });
    this.bridge = { group, own };
  }

  private fromBridge(bytes: Buffer, r: RemoteInfo): void {
    if (r.address === this.opts.address || !this.world.online()) return;
    const port = r.port === this.opts.port ? MDNS_PORT : r.port;
    for (const m of this.members.values()) m.deliver(bytes, r.address, port);
  }

  /** A boot starts: what was heard belongs to the last one. */
  reset(): void {
    this.heard = [];
  }

  /** The station left the home network. */
  offline(): void {
    this.heard = [];
  }

  join(id: number, group: string, port: number, deliver: Member['deliver']): void {
    this.members.set(id, { group, port, deliver });
  }

  leave(id: number): void {
    this.members.delete(id);
  }

  has(id: number): boolean {
    return this.members.has(id);
  }

  /** A datagram the firmware sent from its member socket. */
  send(id: number, bytes: Buffer, address: string, port: number): void {
    const m = this.members.get(id);
    if (!m || !this.world.online()) return;
    if (address === m.group && port === m.port) this.hear(bytes);
    if (address === RESOLVER_ADDRESS) return this.answerResolver(bytes);
    if (!this.bridge || this.opts.port === null) return;
    const to = address === m.group ? MDNS_GROUP : address;
    this.bridge.own.send(bytes, port === MDNS_PORT ? this.opts.port : port, to);
  }

  /** What a host on the network makes of the device's multicast responses. */
  private hear(bytes: Buffer): void {
    const p = packetOf(bytes);
    if (!p || p.type !== 'response') return;
    for (const a of [...(p.answers ?? []), ...(p.additionals ?? [])] as unknown as Answer[]) {
      if (a.type !== 'A' && a.type !== 'PTR' && a.type !== 'SRV' && a.type !== 'TXT') continue;
      const data = JSON.stringify(a.data);
      this.heard = this.heard.filter((h) => !(h.type === a.type && h.name.toLowerCase() === a.name.toLowerCase() && (a.type !== 'PTR' || JSON.stringify(h.data) === data)));
      if ((a.ttl ?? 0) > 0) this.heard.push({ name: a.name, type: a.type, data: a.data });
    }
  }

  /** What the home network has heard the device announce (status `mdns`), or null. */
  announced(): Json | null {
    const a = this.heard.find((h) => h.type === 'A');
    if (!a) return null;
    return { hostname: a.name.replace(/\.local$/i, ''), address: a.data as string, services: servicesOf(this.heard, a.name) };
  }

  status(): Json {
    return { bridge: this.opts.port === null ? null : { group: MDNS_GROUP, port: this.opts.port, address: this.opts.address }, members: this.members.size };
  }

  private answerResolver(bytes: Buffer): void {
    const p = packetOf(bytes);
    if (!p) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w(p);
  }

  /** One one-shot query from the board's resolver; the answer's records, or [] after a while. */
  private ask(questions: dnsPacket.Question[]): Promise<Answer[]> {
    const id = this.nextQueryId++ & 0xffff;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((w) => w !== got);
        resolve([]);
      }, RESOLVE_WAIT_MS);
      const got = (p: dnsPacket.Packet): void => {
        if (p.id !== id) return void this.waiting.push(got);
        clearTimeout(timer);
        resolve([...(p.answers ?? []), ...(p.additionals ?? [])] as unknown as Answer[]);
      };
      this.waiting.push(got);
      const query = dnsPacket.encode({ type: 'query', id, flags: 0, questions });
      if (!this.world.online()) return;
      for (const m of this.members.values()) m.deliver(query, RESOLVER_ADDRESS, RESOLVER_PORT);
    });
  }

  /** mdns.resolve: the host's address and the services whose SRV names it, as a host on the home network finds them. */
  async resolve(hostname: string): Promise<Json | null> {
    const host = `${hostname.replace(/\.local\.?$/i, '')}.local`;
    const a = (await this.ask([{ name: host, type: 'A' }])).find((r) => r.type === 'A' && r.name.toLowerCase() === host.toLowerCase());
    if (!a) return null;
    const types = (await this.ask([{ name: '_services._dns-sd._udp.local', type: 'PTR' }])).filter((r) => r.type === 'PTR').map((r) => r.data as string);
    const records: Heard[] = [];
    for (const t of types) for (const r of await this.ask([{ name: t, type: 'PTR' }])) records.push({ name: r.name, type: r.type, data: r.data });
    return { hostname: host, address: a.data as string, services: servicesOf(records, host) };
  }

  shutdown(): void {
    this.bridge?.group.close();
    this.bridge?.own.close();
    this.bridge = null;
  }
}

/** The services among records whose SRV points at host: type, protocol, instance, port and TXT. */
function servicesOf(records: readonly Heard[], host: string): Json[] {
  const out: Json[] = [];
  for (const ptr of records) {
    if (ptr.type !== 'PTR' || ptr.name.toLowerCase().startsWith('_services._dns-sd.')) continue;
    const instance = String(ptr.data);
    const srv = records.find((r) => r.type === 'SRV' && r.name.toLowerCase() === instance.toLowerCase());
    const target = (srv?.data as { target?: string; port?: number } | undefined) ?? {};
    if (!srv || target.target?.toLowerCase() !== host.toLowerCase()) continue;
    const txt = records.find((r) => r.type === 'TXT' && r.name.toLowerCase() === instance.toLowerCase());
    const [type, protocol] = ptr.name.split('.');
    out.push({ type, protocol: protocol?.replace(/^_/, ''), instance: instance.slice(0, -ptr.name.length - 1), port: target.port, txt: txtPairs(txt?.data) });
  }
  return out;
}

function txtPairs(data: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of Array.isArray(data) ? data : []) {
    const text = Buffer.isBuffer(s) ? s.toString('utf8') : String(s);
    const eq = text.indexOf('=');
    if (eq > 0) out[text.slice(0, eq)] = text.slice(eq + 1);
  }
  return out;
}
