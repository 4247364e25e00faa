// Simulator HAL: sockets, UDP (and multicast UDP, for mDNS), Wi-Fi. The
// board owns the real (loopback) sockets and the simulated home network's
// multicast side (hosts/sim/board/lan.ts); bytes cross the pipe as one-way
// sends and events.

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
} from '../../../src/hal/index.ts';
import { call, on, send } from './bridge.ts';

class SimSocket implements PendingSocket {
  onData: ((chunk: Uint8Array) => void) | null = null;
  onDrain: (() => void) | null = null;
  onEnd: (() => void) | null = null;
  onClose: ((error: string | null) => void) | null = null;
  onConnect: (() => void) | null = null;
  buffered = 0;
  closed = false;
  constructor(
    readonly id: number,
    readonly remote: string,
  ) {}
  write(bytes: Uint8Array): void {
    if (this.closed || !bytes.length) return;
    this.buffered += bytes.length;
    send('tcp.write', { id: this.id }, bytes);
  }
  end(): void {
    if (this.closed) return;
    send('tcp.end', { id: this.id });
  }
  destroy(): void {
    if (this.closed) return;
    send('tcp.destroy', { id: this.id });
  }
}

export function createNet(): Net {
  const sockets = new Map<number, SimSocket>();
  const acceptors = new Map<number, (socket: Socket) => void>();

  on('tcp.accept', (e) => {
    const accept = acceptors.get(e['listener'] as number);
    const s = new SimSocket(e['id'] as number, String(e['remote']));
    sockets.set(s.id, s);
    if (accept) accept(s);
    else s.destroy();
  });
  on('tcp.connected', (e) => sockets.get(e['id'] as number)?.onConnect?.());
  on('tcp.data', (e, bin) => {
    const id = e['id'] as number;
    const s = sockets.get(id);
    if (s && bin) s.onData?.(bin);
    // Read: the board's receive window opens again (hosts/sim/board/tcp.ts).
    if (bin) send('tcp.read', { id, bytes: bin.length });
  });
  on('tcp.end', (e) => sockets.get(e['id'] as number)?.onEnd?.());
  on('tcp.drain', (e) => {
    const s = sockets.get(e['id'] as number);
    if (!s) return;
    s.buffered = (e['buffered'] as number | undefined) ?? 0;
    s.onDrain?.();
  });
  on('tcp.close', (e) => {
    const s = sockets.get(e['id'] as number);
    if (!s) return;
    sockets.delete(s.id);
    s.closed = true;
    s.onClose?.((e['error'] as string | null | undefined) ?? null);
  });

  const udps = new Map<number, UdpSocket>();
  on('udp.message', (e, bin) => {
    udps.get(e['id'] as number)?.onMessage?.(bin ?? new Uint8Array(0), String(e['address']), e['port'] as number);
  });

  const bindUdp = (args: { port: number; multicast?: string }): UdpSocket => {
    const { reply } = call('udp.bind', args);
    const id = reply['id'] as number;
    const u: UdpSocket = {
      port: reply['port'] as number,
      onMessage: null,
      send(bytes, address, toPort) {
        send('udp.send', { id, address, port: toPort }, bytes);
      },
      close() {
        udps.delete(id);
        send('udp.close', { id });
      },
    };
    udps.set(id, u);
    return u;
  };

  return {
    listen(port: number, onAccept: (socket: Socket) => void): Listener {
      const { reply } = call('tcp.listen', { port });
      const id = reply['id'] as number;
      acceptors.set(id, onAccept);
      return {
        port: reply['port'] as number,
        close() {
          acceptors.delete(id);
          send('tcp.unlisten', { id });
        },
      };
    },
    connect(options: ConnectOptions): PendingSocket {
      const { reply } = call('tcp.connect', { ...options });
      const s = new SimSocket(reply['id'] as number, `${options.host}:${options.port}`);
      sockets.set(s.id, s);
      return s;
    },
    udp(port: number): UdpSocket {
      return bindUdp({ port });
    },
    multicast(group: string, port: number): UdpSocket {
      return bindUdp({ port, multicast: group });
    },
  };
}

export function createWifi(): Wifi {
  let scanWaiters: Array<(r: ScanResult[]) => void> = [];
  // The station's status as the board last told it: every change arrives as a
  // wifi.station event, so station() needs no round trip to the board (the
  // state snapshot asks on every request). A call that changes the radio
  // forgets it, and the next station() asks again.
  let station: StationStatus | null = null;
  const changing = <T>(result: T): T => {
    station = null;
    return result;
  };
  const wifi: Wifi = {
    onStation: null,
    setEnabled: (on) => changing(void call('wifi.enable', { on })),
    enabled: () => call('wifi.state').reply['enabled'] as boolean,
    stationConnect: (ssid, passphrase) => changing(void call('wifi.connect', { ssid, passphrase })),
    stationDisconnect: () => changing(void call('wifi.disconnect')),
    station: () => (station ??= call('wifi.state').reply['station'] as StationStatus),
    apStart: (ssid, passphrase) => void call('wifi.apStart', { ssid, passphrase }),
    apStop: () => void call('wifi.apStop'),
    apActive: () => call('wifi.state').reply['ap'] as boolean,
    scan() {
      send('wifi.scan');
      return new Promise((resolve) => scanWaiters.push(resolve));
    },
    mac: () => call('wifi.state').reply['mac'] as string,
  };
  on('wifi.station', (e) => {
    station = e['status'] as StationStatus;
    wifi.onStation?.(station);
  });
  on('wifi.scan', (e) => {
    const waiting = scanWaiters;
    scanWaiters = [];
    for (const w of waiting) w(e['results'] as ScanResult[]);
  });
  return wifi;
}
