// An in-memory network for unit tests: the firmware listens on virtual ports
// and tests connect to them; the firmware's outbound connections reach fake
// servers a test registers by host and port. Delivery is asynchronous (one
// promise job per chunk), like a real socket.

import type {
  ConnectOptions,
  Listener,
  Mdns,
  MdnsService,
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

  udp(port: number): UdpSocket {
    return {
      port,
      onMessage: null,
      send() {},
      close() {},
    };
  }
}

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

export class MemMdns implements Mdns {
  hostname: string | null = null;
  services: MdnsService[] = [];
  advertise(hostname: string, services: MdnsService[]): void {
    this.hostname = hostname;
    this.services = services.map((s) => ({ ...s, txt: { ...s.txt } }));
  }
  stop(): void {
    this.hostname = null;
    this.services = [];
  }
}
