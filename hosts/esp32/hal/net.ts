// Device HAL: sockets over ECMA-419 (the SDK's lwIP TCP, listener and UDP,
// and its example TLS client embedded:io/socket/tcp/tls over the SDK's own
// TLS in modules/crypt), the Wi-Fi radio (station, setup access point, scan)
// and mDNS. The lwIP socket takes an IP address, so a host name is resolved
// first (Net.resolve). TLS validates against the firmware's CA bundle as the
// SDK's certificate store: tools/build-device.mjs writes the roots of
// src/net/ca-roots.ts as the resources ca.ski and ca<n>.der
// (tools/ca-store.mjs), which manifest.json puts in place of the SDK's store;
// the PEM text of TlsOptions.caBundle is not read here. verify follows the
// caller (tlsVerify, or always for the relay); validating needs the wall
// clock set, as the store's and the chain's validity dates are checked.

import TCP, { type TCPOptions } from 'embedded:io/socket/tcp';
import TLSSocket from 'embedded:io/socket/tcp/tls';
import Listener from 'embedded:io/socket/listener';
import MDNS from 'mdns';
import Net from 'net';
import WiFi from 'wifi';
import type {
  ConnectOptions,
  Listener as HalListener,
  Mdns,
  Net as HalNet,
  PendingSocket,
  ScanResult,
  Socket,
  StationStatus,
  UdpSocket,
  Wifi,
  Clock,
} from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';
import { openUdp } from './udp.ts';

/** A dotted IPv4 address needs no look-up. */
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** mDNS service types arrive as '_http'; the SDK wants 'http'. */
const LEADING_UNDERSCORE = /^_/;
/** Below this many queued bytes onDrain fires (the HAL's low-water mark). */
const LOW_WATER = 2048;
/**
 * After end(), a peer that never takes what is queued does not hold the
 * socket (and its lwIP control block) for ever: it is closed after this, as
 * the simulator's board does and as a FIN_WAIT_2 timeout would.
 */
const END_LINGER_MS = 30_000;

/** What DeviceSocket needs of an ECMA-419 TCP or TLS socket. */
interface Stream {
  read(count?: number): ArrayBuffer | undefined;
  /** TLS returns the plaintext space left; TCP returns nothing. */
  write(bytes: Uint8Array): number | void;
  close(): void;
}

/** A HAL socket over an ECMA-419 TCP (or TLS) socket: events in, a write queue out. */
class DeviceSocket implements PendingSocket {
  onData: ((chunk: Uint8Array) => void) | null = null;
  onDrain: (() => void) | null = null;
  onEnd: (() => void) | null = null;
  onClose: ((error: string | null) => void) | null = null;
  onConnect: (() => void) | null = null;
  remote: string;
  private queue: Uint8Array[] = [];
  private queued = 0;
  private ending = false;
  private closed = false;
  private connected = false;
  private wantDrain = false;
  private timer: { cancel(): void } | null = null;
  io: Stream | null = null;

  constructor(
    remote: string,
    private readonly clock: Clock,
  ) {
    this.remote = remote;
  }

  get buffered(): number {
    return this.queued;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  attach(io: Stream, connected: boolean): void {
    this.io = io;
    this.connected = connected;
  }

  armTimeout(ms: number | undefined): void {
    if (!ms) return;
    this.timer = this.clock.setTimeout(() => {
      if (!this.connected) this.fail('ETIMEDOUT');
    }, ms);
  }

  readable(count: number): void {
    if (!this.io || this.closed) return;
    while (count > 0) {
      const buf = this.io.read(count);
      if (!buf || !buf.byteLength) break;
      count -= buf.byteLength;
      this.onData?.(new Uint8Array(buf));
    }
  }

  writable(space: number): void {
    if (!this.connected) {
      this.connected = true;
      this.timer?.cancel();
      this.onConnect?.();
    }
    this.flush(space);
  }

  private flush(space: number): void {
    const io = this.io;
    if (!io || this.closed) return;
    while (space > 0 && this.queue.length) {
      const head = this.queue[0]!;
      const n = Math.min(space, head.length);
      const left = io.write(n === head.length ? head : head.subarray(0, n));
      // A TLS record costs more than its plaintext: trust the space it reports.
      space = typeof left === 'number' ? left : space - n;
      this.queued -= n;
      if (n === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(n);
    }
    if (!this.queue.length && this.ending) {
      this.finish(null);
      return;
    }
    if (this.wantDrain && this.queued < LOW_WATER) {
      this.wantDrain = false;
      this.onDrain?.();
    }
  }

  write(bytes: Uint8Array): void {
    if (this.closed || this.ending || !bytes.length) return;
    this.queue.push(bytes.slice());
    this.queued += bytes.length;
    this.wantDrain = true;
  }

  end(): void {
    if (this.closed) return;
    this.ending = true;
    if (!this.queue.length) return this.finish(null);
    this.timer?.cancel();
    this.timer = this.clock.setTimeout(() => this.finish(null), END_LINGER_MS);
  }

  destroy(): void {
    this.finish(null);
  }

  fail(error: string): void {
    // ECMA-419 reports a peer's orderly close as an error too: with nothing
    // pending it is the end of the stream (the HAL's onEnd, then onClose).
    // The TLS socket reports the peer's close_notify the same way, as ETLS.
    if (this.connected && !this.queue.length && (error === 'ECONN' || error === 'ETLS')) this.onEnd?.();
    this.finish(error);
  }

  private finish(error: string | null): void {
    if (this.closed) return;
    this.closed = true;
    this.timer?.cancel();
    try {
      this.io?.close();
    } catch {
      // already closed by the stack
    }
    this.io = null;
    this.queue = [];
    this.queued = 0;
    this.onClose?.(error);
  }
}

/**
 * The TCP class the TLS socket runs over, with its callbacks guarded: the
 * TLS session does its handshake inside them and throws on a refused
 * certificate or a bad record. Thrown out of a native callback that would
 * abort the machine; here it becomes the socket's error (ETLS).
 */
function GuardedTCP(options: TCPOptions): TCP {
  const fail = options.onError;
  const guard = (f: ((this: TCP, n: number) => void) | undefined) =>
    f &&
    function (this: TCP, n: number): void {
      try {
        f.call(this, n);
      } catch {
        fail?.call(this);
      }
    };
  return new TCP({ ...options, onReadable: guard(options.onReadable), onWritable: guard(options.onWritable) });
}

export function createNet(clock: Clock): HalNet {
  return {
    listen(port: number, onAccept: (socket: Socket) => void): HalListener {
      const listener = new Listener({
        port,
        onReadable(count) {
          for (let i = 0; i < count; i++) {
            const s = new DeviceSocket('', clock);
            const io = new TCP({
              from: this.read(),
              onReadable: (n) => s.readable(n),
              onWritable: (n) => s.writable(n),
              onError: () => s.fail('ECONN'),
            });
            s.attach(io, true);
            s.remote = `${io.remoteAddress ?? '?'}:${io.remotePort ?? 0}`;
            onAccept(s);
          }
        },
      });
      return { port, close: () => listener.close() };
    },
    connect(options: ConnectOptions): PendingSocket {
      const s = new DeviceSocket(`${options.host}:${options.port}`, clock);
      const tls = options.tls;
      const open = (address: string): void => {
        if (s.isClosed) return; // destroyed, or timed out, while resolving
        const handlers = {
          address,
          port: options.port,
          onReadable: (n: number) => s.readable(n),
          onWritable: (n: number) => s.writable(n),
          onError: () => s.fail(tls ? 'ETLS' : 'ECONN'),
        };
        s.attach(tls ? new TLSSocket({ ...handlers, host: tls.serverName, TCP: { io: GuardedTCP as unknown as typeof TCP }, secure: { verify: tls.verify } }) : new TCP(handlers), false);
      };
      s.armTimeout(options.timeoutMs);
      try {
        if (IPV4.test(options.host)) open(options.host);
        else
          Net.resolve(options.host, (_name, address) => {
            if (!address) s.fail(`ECONN: ${options.host} does not resolve`);
            else {
              try {
                open(address);
              } catch (e) {
                s.fail(`ECONN: ${e instanceof Error ? e.message : String(e)}`);
              }
            }
          });
      } catch (e) {
        s.destroy();
        throw new HalError('ECONN', e instanceof Error ? e.message : String(e));
      }
      return s;
    },
    udp: (port: number): UdpSocket => openUdp(port),
  };
}

export function createWifi(): Wifi {
  let enabled = true;
  let ap = false;
  let station: StationStatus = { state: 'off', ssid: null, ip: null, rssi: null };
  let monitor: WiFi | null = null;
  const set = (next: Partial<StationStatus>): void => {
    station = { ...station, ...next };
    wifi.onStation?.({ ...station });
  };
  const mode = (): void => {
    WiFi.mode = !enabled ? WiFi.Mode.none : ap ? WiFi.Mode.station | WiFi.Mode.accessPoint : WiFi.Mode.station;
  };
  const wifi: Wifi = {
    onStation: null,
    setEnabled(on) {
      enabled = on;
      if (!on) {
        monitor?.close();
        monitor = null;
        ap = false;
        set({ state: 'off', ip: null, rssi: null });
      }
      mode();
    },
    enabled: () => enabled,
    stationConnect(ssid, passphrase) {
      if (!enabled) throw new HalError('EBUSY', 'the radio is off');
      monitor?.close();
      set({ state: 'connecting', ssid, ip: null, rssi: null });
      monitor = new WiFi({ ssid, password: passphrase }, (message) => {
        if (message === WiFi.gotIP) set({ state: 'connected', ip: String(Net.get('IP', 'station') ?? ''), rssi: Number(Net.get('RSSI') ?? 0) });
        else if (message === WiFi.disconnected) set({ state: station.state === 'connecting' ? 'failed' : 'disconnected', ip: null, rssi: null });
      });
    },
    stationDisconnect() {
      monitor?.close();
      monitor = null;
      WiFi.disconnect();
      set({ state: 'off', ip: null, rssi: null });
    },
    station: () => ({ ...station }),
    apStart(ssid, passphrase) {
      ap = true;
      mode();
      WiFi.accessPoint({ ssid, password: passphrase || undefined, station: true });
    },
    apStop() {
      ap = false;
      mode();
    },
    apActive: () => ap,
    scan() {
      return new Promise((resolve) => {
        const found: ScanResult[] = [];
        WiFi.scan({}, (item) => {
          if (!item) resolve(found);
          else found.push({ ssid: item.ssid, rssi: item.rssi, secure: item.authentication !== 'none', channel: item.channel });
        });
      });
    },
    mac: () => String(Net.get('MAC') ?? '00:00:00:00:00:00').toLowerCase(),
  };
  return wifi;
}

export function createMdns(): Mdns {
  let mdns: MDNS | null = null;
  return {
    advertise(hostname, services) {
      mdns?.close();
      mdns = new MDNS({ hostName: hostname });
      for (const s of services) mdns.add({ name: s.type.replace(LEADING_UNDERSCORE, ''), protocol: s.protocol, port: s.port, txt: s.txt });
    },
    stop() {
      mdns?.close();
      mdns = null;
    },
  };
}
