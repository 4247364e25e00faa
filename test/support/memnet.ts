// An in-memory network for unit tests: the firmware listens on virtual ports
// and tests connect to them; the firmware's outbound connections reach fake
// servers a test registers by host and port. Delivery is asynchronous (one
// promise job per chunk), like a real socket.

import type {
  ConnectOptions,
  Listener,
  Net,
  PendingSocket,
  ScanResult,
  Socket,
  StationStatus,
  UdpSocket,
  Wifi,
} from '../../src/hal/index.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class MemSocket implements PendingSocket {
  onData: ((chunk: Uint8Array) => void) | null = null;
  onDrain: (() => void) | null = null;
  onEnd: (() => void) | null = null;
  onClose: ((error: string | null) => void) | null = null;
  onConnect: (() => void) | null = null;
  peer: MemSocket | null = null;
  closed = false;
  readonly remote: string;
  /** Everything this end has received, for assertions. */
  readonly inbox: Uint8Array[] = [];

  constructor(remote: string) {
    this.remote = remote;
  }
  get buffered(): number {
    return 0;
  }
  write(bytes: Uint8Array): void {
    if (this.closed || !this.peer) return;
    const peer = this.peer;
    const copy = bytes.slice();
    // Queued in order with the close below, so bytes written before end() arrive.
    queueMicrotask(() => {
      if (peer.closed) return;
      peer.inbox.push(copy);
      peer.onData?.(copy);
    });
  }
  end(): void {
    this.destroy();
  }
  destroy(): void {
    this.close(null);
  }
  /** Close both ends; each side hears onClose once, after data already sent. */
  close(error: string | null): void {
    if (this.closed) return;
    this.closed = true;
    queueMicrotask(() => this.onClose?.(error));
    const peer = this.peer;
    if (peer) {
      queueMicrotask(() => {
        if (peer.closed) return;
        peer.closed = true;
        peer.onClose?.(null);
      });
    }
  }
  /** Shuts this side for writing: the peer hears onEnd after the bytes already sent. */
  halfClose(): void {
    const peer = this.peer;
    if (this.closed || !peer) return;
    queueMicrotask(() => {
      if (!peer.closed) peer.onEnd?.();
    });
  }
  /** What this end received so far, as text. */
  text(): string {
    return this.inbox.map((c) => decoder.decode(c)).join('');
  }
  send(text: string | Uint8Array): void {
    this.write(typeof text === 'string' ? encoder.encode(text) : text);
  }
}

function pair(aRemote: string, bRemote: string): [MemSocket, MemSocket] {
  const a = new MemSocket(aRemote);
  const b = new MemSocket(bRemote);
  a.peer = b;
  b.peer = a;
  return [a, b];
}

export type FakeServer = (socket: MemSocket, options: ConnectOptions) => void;

export class MemNet implements Net {
  private listeners = new Map<number, (socket: Socket) => void>();
  private servers = new Map<string, { handler: FakeServer; trusted: boolean }>();
  private nextPort = 40000;
  /** Every outbound connection attempt, for assertions on TLS settings. */
  readonly attempts: ConnectOptions[] = [];
  /** When false, outbound connections fail as if the network were down. */
  online = true;

  listen(port: number, onAccept: (socket: Socket) => void): Listener {
    const real = port || this.nextPort++;
    if (this.listeners.has(real)) throw new Error(`port ${real} in use`);
    this.listeners.set(real, onAccept);
    return { port: real, close: () => this.listeners.delete(real) };
  }

  /** A test client connecting to a firmware listener. */
  client(port: number): MemSocket {
    const accept = this.listeners.get(port);
    const [client, server] = pair('device', '127.0.0.1');
    if (!accept) {
      client.closed = true;
      return client;
    }
    accept(server);
    return client;
  }

  /** Registers a fake server for the firmware's outbound connections. */
  serve(host: string, port: number, handler: FakeServer, options: { trusted?: boolean } = {}): void {
    this.servers.set(`${host}:${port}`, { handler, trusted: options.trusted ?? true });
  }

  connect(options: ConnectOptions): PendingSocket {
    this.attempts.push(options);
    const [device, far] = pair(`${options.host}:${options.port}`, 'device');
    const server = this.servers.get(`${options.host}:${options.port}`);
    queueMicrotask(() => {
      if (!this.online || !server) {
        device.closed = true;
        device.onClose?.(this.online ? 'ECONN: connection refused' : 'ECONN: network unreachable');
        return;
      }
      if (options.tls && options.tls.verify && !server.trusted) {
        device.closed = true;
        device.onClose?.('ETLS: certificate not trusted');
        return;
      }
      server.handler(far, options);
      device.onConnect?.();
    });
    return device;
  }

  private udps = new Map<number, UdpSocket>();
  private udpServers = new Map<string, UdpServer>();
  private nextUdpPort = 50000;
  /** Every datagram the firmware sent, for assertions. */
  readonly datagrams: Array<{ from: number; address: string; port: number; bytes: Uint8Array }> = [];

  udp(port: number): UdpSocket {
    const real = port || this.nextUdpPort++;
    if (this.udps.has(real)) throw new Error(`udp port ${real} in use`);
    const udps = this.udps;
    const sock: UdpSocket = {
      port: real,
      onMessage: null,
      send: (bytes, address, toPort) => {
        const copy = bytes.slice();
        this.datagrams.push({ from: real, address, port: toPort, bytes: copy });
        const server = this.udpServers.get(`${address}:${toPort}`);
        if (!this.online || !server) return; // lost, as UDP is
        queueMicrotask(() =>
          server(copy, (reply) =>
            queueMicrotask(() => {
              if (udps.get(real) === sock) sock.onMessage?.(reply.slice(), address, toPort);
            }),
          ),
        );
      },
      close: () => {
        if (udps.get(real) === sock) udps.delete(real);
      },
    };
    udps.set(real, sock);
    return sock;
  }

  /** A fake UDP server for the firmware's datagrams to host:port (it answers through reply). */
  serveUdp(host: string, port: number, handler: UdpServer): void {
    this.udpServers.set(`${host}:${port}`, handler);
  }

  /** Whether the firmware has a UDP socket on port. */
  udpBound(port: number): boolean {
    return this.udps.has(port);
  }

  /** The firmware's address on the home network (MemWifi's station address). */
  lanAddress = '192.168.1.50';
  private lan: LanMember[] = [];
  /** Every datagram the firmware sent on a multicast socket, for assertions. */
  readonly lanSent: Array<{ bytes: Uint8Array; address: string; port: number; atMs: number }> = [];
  /** The clock lanSent's atMs reads (memhal sets it). */
  now: () => number = () => 0;

  private lanSend(from: LanMember, bytes: Uint8Array, address: string, port: number): void {
    if (!this.online) return;
    const copy = bytes.slice();
    for (const m of this.lan) {
      if (m === from || m.port !== port || !(m.group === address || m.address === address)) continue;
      queueMicrotask(() => {
        if (this.lan.includes(m)) m.deliver(copy.slice(), from.address, from.port);
      });
    }
  }

  multicast(group: string, port: number): UdpSocket {
    if (this.lan.some((m) => m.address === this.lanAddress && m.port === port)) throw new Error(`multicast port ${port} in use`);
    const sock: UdpSocket = {
      port,
      onMessage: null,
      send: (bytes, address, toPort) => {
        this.lanSent.push({ bytes: bytes.slice(), address, port: toPort, atMs: this.now() });
        this.lanSend(member, bytes, address, toPort);
      },
      close: () => {
        this.lan = this.lan.filter((m) => m !== member);
      },
    };
    const member: LanMember = { group, address: this.lanAddress, port, deliver: (b, f, p) => sock.onMessage?.(b, f, p) };
    this.lan.push(member);
    return sock;
  }

  /** Whether the firmware has a socket on the multicast group. */
  lanJoined(group = '224.0.0.251', port = 5353): boolean {
    return this.lan.some((m) => m.address === this.lanAddress && m.group === group && m.port === port);
  }

  /** A host on the home network: on the group (mDNS's 224.0.0.251:5353 by default), at address:port. */
  lanPeer(address: string, port = 5353, group = '224.0.0.251'): LanPeer {
    const peer: LanPeer = {
      address,
      port,
      onMessage: null,
      heard: [],
      send: (bytes, to, toPort) => this.lanSend(member, bytes, to, toPort),
      close: () => {
        this.lan = this.lan.filter((m) => m !== member);
      },
    };
    const member: LanMember = {
      group: port === 5353 ? group : '',
      address,
      port,
      deliver: (bytes, from, fromPort) => {
        peer.heard.push({ bytes, from, port: fromPort });
        peer.onMessage?.(bytes, from, fromPort);
      },
    };
    this.lan.push(member);
    return peer;
  }

  /**
   * A datagram to the firmware's socket on `port` from a client at `from`
   * (a phone on the setup network): resolves with what the firmware sent
   * back to it once the jobs settle (nothing: [], as a dropped query).
   */
  async udpExchange(port: number, bytes: Uint8Array, from = { address: '192.168.4.2', port: 53535 }): Promise<Uint8Array[]> {
    const replies: Uint8Array[] = [];
    const key = `${from.address}:${from.port}`;
    this.udpServers.set(key, (reply) => void replies.push(reply));
    const sock = this.udps.get(port);
    if (sock) queueMicrotask(() => sock.onMessage?.(bytes.slice(), from.address, from.port));
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    this.udpServers.delete(key);
    return replies;
  }
}

/** A host on the in-memory home network's multicast side (MemNet.lanPeer): a test's mDNS querier or a rival responder. */
export interface LanPeer {
  readonly address: string;
  readonly port: number;
  onMessage: ((bytes: Uint8Array, from: string, port: number) => void) | null;
  /** Everything it heard, in order. */
  readonly heard: Array<{ bytes: Uint8Array; from: string; port: number }>;
  send(bytes: Uint8Array, address: string, port: number): void;
  close(): void;
}

interface LanMember {
  group: string;
  address: string;
  port: number;
  deliver(bytes: Uint8Array, from: string, port: number): void;
}

/** A fake UDP server: called with each datagram; reply() sends one back to the sender. */
export type UdpServer = (bytes: Uint8Array, reply: (bytes: Uint8Array) => void) => void;

export class MemWifi implements Wifi {
  private on = true;
  private status: StationStatus = { state: 'off', ssid: null, ip: null, rssi: null };
  private ap: { ssid: string; passphrase: string } | null = null;
  onStation: ((status: StationStatus) => void) | null = null;
  /** Networks that exist, with their passphrases. */
  readonly networks = new Map<string, string>();
  scanResults: ScanResult[] = [];

  setEnabled(on: boolean): void {
    this.on = on;
    if (!on) {
      this.ap = null;
      this.setStatus({ state: 'off', ssid: null, ip: null, rssi: null });
    }
  }
  enabled(): boolean {
    return this.on;
  }
  private setStatus(s: StationStatus): void {
    this.status = s;
    queueMicrotask(() => this.onStation?.({ ...s }));
  }
  stationConnect(ssid: string, passphrase: string): void {
    if (!this.on) return;
    this.setStatus({ state: 'connecting', ssid, ip: null, rssi: null });
    const ok = this.networks.get(ssid) === passphrase;
    queueMicrotask(() =>
      this.setStatus(ok ? { state: 'connected', ssid, ip: '192.168.1.50', rssi: -55 } : { state: 'failed', ssid, ip: null, rssi: null }),
    );
  }
  stationDisconnect(): void {
    this.setStatus({ state: 'disconnected', ssid: null, ip: null, rssi: null });
  }
  /** Test control: the access point vanished. */
  linkDown(): void {
    if (this.status.state === 'connected') this.setStatus({ state: 'disconnected', ssid: this.status.ssid, ip: null, rssi: null });
  }
  station(): StationStatus {
    return { ...this.status };
  }
  apStart(ssid: string, passphrase: string): void {
    if (this.on) this.ap = { ssid, passphrase };
  }
  apStop(): void {
    this.ap = null;
  }
  apActive(): boolean {
    return this.ap !== null;
  }
  apConfig(): { ssid: string; passphrase: string } | null {
    return this.ap;
  }
  async scan(): Promise<ScanResult[]> {
    return this.scanResults.map((r) => ({ ...r }));
  }
  mac(): string {
    return '24:0a:c4:12:34:56';
  }
}
