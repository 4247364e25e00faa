// HAL: networking. TCP listeners and sockets, TLS client sockets, UDP (and
// multicast UDP, for mDNS: src/wifi/mdns-responder.ts), the Wi-Fi radio
// (station, setup access point, scan). Sockets are
// event-driven, as ECMA-419 sockets are: the owner sets the on* handlers.

/**
 * A connected TCP (or TLS) stream. Every host calls the on* handlers as
 * methods of the socket (`this` is the socket), so one handler function can
 * serve many sockets (the HTTP server's do: a closure per handler per
 * connection is a few hundred bytes of XS heap each).
 */
export interface Socket {
  /** Peer address for logs only: no decision may use it (spec, Authentication 3). */
  readonly remote: string;
  /** Bytes queued but not yet handed to the network. */
  readonly buffered: number;
  /** Called with each chunk received. The chunk is owned by the receiver. */
  onData: ((chunk: Uint8Array) => void) | null;
  /** Called once when buffered data has drained below the low-water mark. */
  onDrain: (() => void) | null;
  /** The peer finished sending (half-close); this side may still write, then end(). */
  onEnd: (() => void) | null;
  /** Called once when the stream ends, with a reason if it failed. */
  onClose: ((error: string | null) => void) | null;
  /** Queues bytes; never blocks. Writing to a closed socket is ignored. */
  write(bytes: Uint8Array): void;
  /** Half-close after queued bytes are sent, then close. */
  end(): void;
  /** Close now, dropping queued bytes. */
  destroy(): void;
}

export interface Listener {
  readonly port: number;
  close(): void;
}

export interface TlsOptions {
  /** Name sent in SNI and checked against the certificate. */
  serverName: string;
  /** Validate the chain against caBundle; false disables validation (tlsVerify=0). */
  verify: boolean;
  /** PEM certificates the firmware trusts (the embedded CA bundle). */
  caBundle: string;
}

export interface ConnectOptions {
  host: string;
  port: number;
  /** Present for TLS; absent for plain TCP. */
  tls?: TlsOptions;
  /** Give up connecting (and handshaking) after this long. */
  timeoutMs?: number;
}

/** A socket being connected: onConnect or onClose(error) follows. */
export interface PendingSocket extends Socket {
  onConnect: (() => void) | null;
}

export interface UdpSocket {
  readonly port: number;
  onMessage: ((bytes: Uint8Array, address: string, port: number) => void) | null;
  send(bytes: Uint8Array, address: string, port: number): void;
  close(): void;
}

export interface Net {
  /** Accept TCP connections on port (0 = any free port; the real one is on the Listener). */
  listen(port: number, onAccept: (socket: Socket) => void): Listener;
  connect(options: ConnectOptions): PendingSocket;
  udp(port: number): UdpSocket;
  /**
   * A UDP socket on port that has joined an IPv4 multicast group on the
   * station's network (mDNS: 224.0.0.251, 5353): it hears the group's
   * datagrams and unicast ones to port, and send() to the group multicasts.
   * Throws HalError ENOTSUP on a host without multicast.
   */
  multicast(group: string, port: number): UdpSocket;
}

export type StationState = 'off' | 'connecting' | 'connected' | 'failed' | 'disconnected';

export interface StationStatus {
  state: StationState;
  ssid: string | null;
  ip: string | null;
  rssi: number | null;
}

export interface ScanResult {
  ssid: string;
  rssi: number;
  secure: boolean;
  channel: number;
}

/** The Wi-Fi radio. The station and the setup access point may run at once. */
export interface Wifi {
  /** Turn the radio on or off entirely (Notifier mode keeps it off). */
  setEnabled(on: boolean): void;
  enabled(): boolean;
  stationConnect(ssid: string, passphrase: string): void;
  stationDisconnect(): void;
  station(): StationStatus;
  /** Called on every station state change. */
  onStation: ((status: StationStatus) => void) | null;
  /** Starts the setup access point (WPA2 when passphrase is not empty). */
  apStart(ssid: string, passphrase: string): void;
  apStop(): void;
  apActive(): boolean;
  scan(): Promise<ScanResult[]>;
  /** Station MAC address, 'aa:bb:cc:dd:ee:ff'. */
  mac(): string;
}

