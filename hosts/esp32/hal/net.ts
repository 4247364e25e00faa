// Device HAL: sockets over ECMA-419 (the SDK's lwIP TCP, listener and UDP,
// and its example TLS client embedded:io/socket/tcp/tls over the SDK's own
// TLS in modules/crypt); the Wi-Fi radio and mDNS are in ./wifi.ts. The same
// code runs in the SDK's desktop runtime over its lin sockets (hosts/lin),
// with NetOptions for where sockets go there. The lwIP socket takes an IP address, so a host name is resolved
// first (Net.resolve). TLS validates against the firmware's CA bundle as the
// SDK's certificate store: tools/build-device.mjs writes the roots of
// src/net/ca-roots.ts as the resources ca.ski and ca<n>.der
// (tools/ca-store.mjs), which manifest.json puts in place of the SDK's store;
// the PEM text of TlsOptions.caBundle is not read here. verify follows the
// caller (tlsVerify, or always for the relay); validating needs the wall
// clock set, as the store's and the chain's validity dates are checked.

import TCP, { type Options as TCPOptions } from 'embedded:io/socket/tcp';
import TLSSocket from 'embedded:io/socket/tcp/tls';
import Listener from 'embedded:io/socket/listener';
import Net from 'net';
import type { Clock, ConnectOptions, Listener as HalListener, Net as HalNet, PendingSocket, Socket, UdpSocket } from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';
import { openUdp } from './udp.ts';

/** A dotted IPv4 address needs no look-up. */
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** Below this many queued bytes onDrain fires (the HAL's low-water mark). */
const LOW_WATER = 2048;
/**
 * After end(), a peer that never takes what is queued does not hold the
 * socket (and its lwIP control block) for ever: it is closed after this, as
 * the simulator's board does and as a FIN_WAIT_2 timeout would.
 */
const END_LINGER_MS = 30_000;

/**
 * What DeviceSocket needs of an ECMA-419 TCP or TLS socket. read: an
 * ArrayBuffer in the buffer format (TCP's typing also allows a number, for
 * the number format). write: the lwIP and lin TCP sockets answer the space
 * left (modules/io/socket/lwip/tcp.c, lin/tcp.c: xs_tcp_write), the TLS socket
 * the plaintext space left (modules/crypt/ssl/session_419.js: write), though
 * the SDK's TCP typing says void.
 */
interface Stream {
  read(count: number): ArrayBufferLike | number | undefined;
  /** An ArrayBuffer: the TLS socket's typing takes nothing else. */
  write(bytes: ArrayBuffer): number | void;
  close(): void;
}

/** close() of the SDK's listener and UDP socket (lwip/listener.js, lin/listener.js: xs_listener_close_; udp.js: xs_udp_close), which their typings leave out. */
interface Closable {
  close(): void;
}

/** The first n bytes of a queued chunk (its own buffer, from offset 0) as an ArrayBuffer, copied only when part of it goes. */
function chunk(bytes: Uint8Array, n: number): ArrayBuffer {
  return n === bytes.length && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice(0, n).buffer as ArrayBuffer);
}

/**
 * The TLS socket's options: the SDK's typing (embedded:io/socket/tcp/tls
 * Options) and the TCP class it runs over, which
 * examples/io/tcp/tlssocket/tlssocket.js constructs (options.TCP.io) and the
 * typing leaves out.
 */
type TlsSocketOptions = ConstructorParameters<typeof TLSSocket>[0] & { TCP: { io: typeof TCP } };

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
  /** What the stack last said may be written without blocking (onWritable's count, then write()'s answer). */
  private space = 0;
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
      if (typeof buf !== 'object' || !buf.byteLength) break;
      count -= buf.byteLength;
      this.onData?.(new Uint8Array(buf));
    }
  }

  /**
   * ECMA-419's onWritable reports the space once it changes, not again while
   * it lasts: the socket keeps the count and writes at once while there is
   * some (onWritable alone flushing left a reply written after an idle moment
   * waiting for ever, in the SDK's lin runtime).
   */
  writable(space: number): void {
    if (!this.connected) {
      this.connected = true;
      this.timer?.cancel();
      this.onConnect?.();
    }
    this.space = space;
    this.flush(true);
  }

  /** Writes what the space allows; onDrain only from the stack's callback (write() calling it would recurse). */
  private flush(notify: boolean): void {
    const io = this.io;
    if (!io || this.closed) return;
    while (this.space > 0 && this.queue.length) {
      const head = this.queue[0]!;
      const n = Math.min(this.space, head.length);
      // TCP answers the space left; a TLS record costs more than its plaintext, and the TLS socket answers what is left of that.
      const left = io.write(chunk(head, n));
      this.space = typeof left === 'number' ? left : this.space - n;
      this.queued -= n;
      if (n === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(n);
    }
    if (!this.queue.length && this.ending) {
      this.finish(null);
      return;
    }
    if (notify && this.wantDrain && this.queued < LOW_WATER) {
      this.wantDrain = false;
      this.onDrain?.();
    }
  }

  write(bytes: Uint8Array): void {
    if (this.closed || this.ending || !bytes.length) return;
    this.queue.push(bytes.slice());
    this.queued += bytes.length;
    this.wantDrain = true;
    if (this.connected) this.flush(false);
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
  const guard = (f: ((this: TCP, bytes: number) => void) | undefined) =>
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

/** What a host changes about where sockets go (the SDK's desktop runtime: hosts/lin/hal/net.ts). */
export interface NetOptions {
  /** The port a listener binds when the firmware asks for this one. */
  listenPort?(port: number): number;
  /** Where a connection to host:port goes instead of resolving the host, or null to resolve it. */
  route?(host: string, port: number): { address: string; port: number } | null;
  /** false: the host's UDP socket cannot join a multicast group (the SDK's lin one: modules/io/socket/lin/udp.c lists it as to do). */
  multicast?: boolean;
}

export function createNet(clock: Clock, net: NetOptions = {}): HalNet {
  return {
    listen(asked: number, onAccept: (socket: Socket) => void): HalListener {
      const port = net.listenPort?.(asked) ?? asked;
      const listener = new Listener({
        port,
        onReadable(count) {
          for (let i = 0; i < count; i++) {
            const from = this.read();
            if (!from) break;
            const s = new DeviceSocket('', clock);
            const io = new TCP({
              from,
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
      return { port, close: () => (listener as Listener & Closable).close() };
    },
    connect(options: ConnectOptions): PendingSocket {
      const s = new DeviceSocket(`${options.host}:${options.port}`, clock);
      const tls = options.tls;
      const open = (address: string, port = options.port): void => {
        if (s.isClosed) return; // destroyed, or timed out, while resolving
        const handlers = {
          address,
          port,
          onReadable: (n: number) => s.readable(n),
          onWritable: (n: number) => s.writable(n),
          onError: () => s.fail(tls ? 'ETLS' : 'ECONN'),
        };
        if (!tls) {
          s.attach(new TCP(handlers), false);
          return;
        }
        const secure: TlsSocketOptions = { ...handlers, host: tls.serverName, TCP: { io: GuardedTCP as unknown as typeof TCP }, secure: { verify: tls.verify } };
        s.attach(new TLSSocket(secure), false);
      };
      s.armTimeout(options.timeoutMs);
      const routed = net.route?.(options.host, options.port) ?? null;
      try {
        if (routed) open(routed.address, routed.port);
        else if (IPV4.test(options.host)) open(options.host);
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
    multicast(group: string, port: number): UdpSocket {
      if (net.multicast === false) throw new HalError('ENOTSUP', 'no multicast UDP on this host');
      return openUdp(port, group);
    },
  };
}
