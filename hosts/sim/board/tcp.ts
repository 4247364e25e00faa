// TCP for the firmware: listeners on 127.0.0.1 (port 80 is the --http-port),
// client connections, plain or TLS (Node's tls with the firmware's CA bundle,
// verification switch and server name), host:port routes to local servers,
// and the events that carry accepts, data, drains and closes back. Everything
// of a boot is closed when its runtime goes.
//
// Received bytes reach the firmware within a receive window, as lwIP's TCP
// window bounds them on the device: at most RECEIVE_WINDOW bytes of a
// connection are out to the runtime until the firmware says it has read them
// (tcp.read); the rest wait here, the socket paused, so a sender faster than
// the firmware fills the network's buffers, not the runtime's event queue.

import type { Socket} from 'node:net';
import { createServer, type Server, connect as netConnect, isIP } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { fail } from './errors.ts';
import type { Json, Service, Session } from './service.ts';
import { int, str } from './service.ts';

export interface Route {
  host: string;
  port: number;
}

interface Conn {
  id: number;
  socket: Socket;
  session: Session;
  error: string | null;
  closed: boolean;
  drainPending: boolean;
  paused: boolean;
  /** Bytes sent to the runtime that the firmware has not said it read. */
  unread: number;
  /** Received bytes held back by the window, oldest first. */
  held: Buffer[];
  /** The peer half-closed: tcp.end goes once the held bytes are out. */
  ended?: boolean;
  endSent?: boolean;
  /** The socket closed: tcp.close goes once the held bytes are out (after an error or a reset, at once). */
  gone?: boolean;
  /** Waiting for the pipe to the runtime to drain. */
  congestedWait: boolean;
}

interface ListenerEntry {
  id: number;
  server: Server;
  requested: number;
  port: number;
  session: Session;
}

const END_LINGER_MS = 30_000;
/**
 * The receive window. The device's is 5744 bytes (CONFIG_LWIP_TCP_WND_DEFAULT
 * in the SDK's ESP32-S3 project, build/devices/esp32/xsProj-esp32s3/
 * sdkconfig.defaults); at that size the board paused and resumed the socket
 * every 5.7 KB and an 8 MB upload took 9.9 s instead of 1.1 s, so the
 * simulator holds 16 KB: the runtime's memory stays bounded as on the device,
 * and its figures count a little more in flight than the device would.
 */
export const RECEIVE_WINDOW = 16 * 1024;

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/;

function classify(e: NodeJS.ErrnoException, stage: 'connect' | 'tls' | 'open'): string {
  const code = e.code ?? '';
  if (code === 'ETIMEDOUT') return `ETIMEDOUT: ${e.message}`;
  if (stage === 'tls' || TLS_CODES.test(code) || /certificate|handshake|SSL|TLS/i.test(e.message)) return `ETLS: ${e.message}`;
  return `ECONN: ${e.message}`;
}

export function parseRoute(spec: string): { from: string; to: Route } {
  const m = /^([^=]+):(\d+)=([^=:]+):(\d+)$/.exec(spec.trim());
  if (!m) throw new Error(`bad route '${spec}': expected host:port=127.0.0.1:port`);
  return { from: `${m[1]!.toLowerCase()}:${Number(m[2])}`, to: { host: m[3]!, port: Number(m[4]) } };
}

export class Tcp implements Service {
  private listeners = new Map<number, ListenerEntry>();
  private conns = new Map<number, Conn>();
  private nextListener = 1;
  private nextConn = 1;
  readonly routes = new Map<string, Route>();
  /** The real port of the firmware's port-80 listener (for the printed URL). */
  httpPort: number | null = null;

  constructor(
    /** --http-port: 0 = any free port. */
    private readonly httpPortOption: number,
    /** The port used last time (kept across boots and runs when the option is 0). */
    private lastHttpPort: number | null,
    private readonly rememberHttpPort: (port: number) => void,
    /** The firmware's port-80 listener is up on this real port. */
    private readonly onHttpListen: (port: number) => void = () => {},
  ) {}

  addRoute(host: string, port: number, to: Route): void {
    this.routes.set(`${host.toLowerCase()}:${port}`, to);
  }

  status(): Json {
    return {
      listeners: [...this.listeners.values()].map((l) => ({ id: l.id, requested: l.requested, port: l.port })),
      connections: this.conns.size,
      routes: Object.fromEntries([...this.routes].map(([k, v]) => [k, `${v.host}:${v.port}`])),
    };
  }

  stop(): void {
    for (const l of this.listeners.values()) l.server.close();
    this.listeners.clear();
    for (const c of this.conns.values()) c.socket.destroy();
    this.conns.clear();
    this.httpPort = null;
  }

  shutdown(): void {
    this.stop();
  }

  private attach(socket: Socket, session: Session, id: number, stage: () => 'connect' | 'tls' | 'open' = () => 'open'): Conn {
    const conn: Conn = { id, socket, session, error: null, closed: false, drainPending: false, paused: false, unread: 0, held: [], congestedWait: false };
    this.conns.set(id, conn);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (conn.closed) return;
      conn.held.push(chunk);
      this.flow(conn);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      conn.error ??= classify(e, stage());
    });
    socket.on('end', () => {
      if (conn.closed) return;
      conn.ended = true;
      this.flow(conn);
    });
    socket.on('close', () => {
      if (conn.closed) return;
      conn.gone = true;
      this.flow(conn);
    });
    return conn;
  }

  /**
   * Sends held bytes while the window has room and the pipe is not
   * congested; pauses the socket while anything is held, resumes it when
   * nothing is. The peer's end follows its last byte.
   */
  private flow(conn: Conn): void {
    if (conn.closed) return;
    const { session, socket } = conn;
    while (conn.held.length && conn.unread < RECEIVE_WINDOW && !session.congested) {
      const head = conn.held[0]!;
      const n = Math.min(head.length, RECEIVE_WINDOW - conn.unread);
      const piece = n === head.length ? head : head.subarray(0, n);
      if (n === head.length) conn.held.shift();
      else conn.held[0] = head.subarray(n);
      conn.unread += n;
      session.emit('tcp.data', { id: conn.id }, piece);
    }
    if (conn.held.length && session.congested && !conn.congestedWait) {
      conn.congestedWait = true;
      session.onDrain(() => {
        conn.congestedWait = false;
        this.flow(conn);
      });
    }
    const hold = conn.held.length > 0;
    if (hold && !conn.paused) {
      conn.paused = true;
      socket.pause();
    } else if (!hold && conn.paused) {
      conn.paused = false;
      if (!socket.destroyed) socket.resume();
    }
    if (conn.ended && !hold && !conn.endSent) {
      conn.endSent = true;
      session.emit('tcp.end', { id: conn.id });
    }
    if (conn.gone && (!hold || conn.error !== null || !conn.ended)) {
      // A reset or an error loses what was held, as the device's stack would.
      conn.closed = true;
      conn.held = [];
      this.conns.delete(conn.id);
      session.emit('tcp.close', { id: conn.id, error: conn.error });
    }
  }

  private listen(args: Json, session: Session): Promise<{ json: Json }> {
    const requested = int(args, 'port', 0, 65535);
    const real = requested === 80 ? (this.httpPortOption || this.lastHttpPort || 0) : requested;
    const id = this.nextListener++;
    // Half-open: a client may send its request and shut its side; it still gets the answer.
    const server = createServer({ allowHalfOpen: true });
    const tryListen = (port: number): Promise<number> =>
      new Promise((resolve, reject) => {
        const onError = (e: NodeJS.ErrnoException): void => reject(e);
        server.once('error', onError);
        server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
          server.off('error', onError);
          const addr = server.address();
          resolve(typeof addr === 'object' && addr ? addr.port : port);
        });
      });
    const remembered = requested === 80 && !this.httpPortOption && this.lastHttpPort;
    return tryListen(real)
      .catch((e: NodeJS.ErrnoException) => {
        // a remembered port that is taken now: any free port will do
        if (remembered && e.code === 'EADDRINUSE') return tryListen(0);
        throw e;
      })
      .then(
        (port) => {
          if (!session.alive) {
            server.close();
            fail('EIO', 'the runtime went away');
          }
          const entry: ListenerEntry = { id, server, requested, port, session };
          this.listeners.set(id, entry);
          if (requested === 80) {
            this.httpPort = port;
            if (port !== this.lastHttpPort) {
              this.lastHttpPort = port;
              this.rememberHttpPort(port);
            }
            this.onHttpListen(port);
          }
          server.on('connection', (socket: Socket) => {
            if (!session.alive || !this.listeners.has(id)) {
              socket.destroy();
              return;
            }
            const cid = this.nextConn++;
            this.attach(socket, session, cid);
            session.emit('tcp.accept', { listener: id, id: cid, remote: `${socket.remoteAddress}:${socket.remotePort}` });
          });
          server.on('error', () => {});
          return { json: { id, port: requested === 0 ? port : requested } };
        },
        (e: NodeJS.ErrnoException) => {
          server.close();
          if (e.code === 'EADDRINUSE') fail('EBUSY', `port ${real} on 127.0.0.1 is in use${requested === 80 ? ' (the --http-port)' : ''}`);
          if (e.code === 'EACCES') fail('EBUSY', `port ${real} needs privileges on this PC`);
          fail('EIO', `listen on ${real}: ${e.message}`);
        },
      );
  }

  private connect(args: Json, session: Session): { json: Json } {
    const host = str(args, 'host');
    const port = int(args, 'port', 1, 65535);
    const timeoutMs = args['timeoutMs'] === undefined ? 30_000 : int(args, 'timeoutMs', 1);
    const tls = args['tls'] as { serverName?: unknown; verify?: unknown; caBundle?: unknown } | undefined;
    if (!host) fail('EINVAL', 'host is empty');
    const route = this.routes.get(`${host.toLowerCase()}:${port}`);
    const target = route ?? { host, port };
    const id = this.nextConn++;
    let stage: 'connect' | 'tls' | 'open' = 'connect';
    let socket: Socket;
    if (tls) {
      const serverName = typeof tls.serverName === 'string' && tls.serverName ? tls.serverName : host;
      const ca = typeof tls.caBundle === 'string' && tls.caBundle.trim() ? [tls.caBundle] : [];
      const t: TLSSocket = tlsConnect({
        host: target.host,
        port: target.port,
        // only the firmware's bundle is trusted (an empty list trusts nothing)
        ca,
        rejectUnauthorized: tls.verify !== false,
        ...(isIP(serverName) ? {} : { servername: serverName }),
        // the name the firmware asked for, also when a route sends it elsewhere
        checkServerIdentity: (_name, cert) => checkServerIdentity(serverName, cert),
      });
      t.once('connect', () => (stage = 'tls'));
      t.once('secureConnect', () => connected());
      socket = t;
    } else {
      socket = netConnect({ host: target.host, port: target.port, allowHalfOpen: true });
      socket.once('connect', () => connected());
    }
    const conn = this.attach(socket, session, id, () => stage);
    const timer = setTimeout(() => {
      if (stage === 'open' || conn.closed) return;
      conn.error = `ETIMEDOUT: ${tls ? 'TLS connection' : 'connection'} to ${host}:${port} not established after ${timeoutMs} ms`;
      socket.destroy();
    }, timeoutMs);
    const connected = (): void => {
      stage = 'open';
      clearTimeout(timer);
      session.emit('tcp.connected', { id });
    };
    socket.once('close', () => clearTimeout(timer));
    return { json: { id } };
  }

  private conn(args: Json): Conn | undefined {
    return this.conns.get(int(args, 'id'));
  }

  readonly ops = {
    'tcp.listen': (args: Json, _bin: Buffer, session: Session) => this.listen(args, session),
    'tcp.unlisten': (args: Json) => {
      const id = int(args, 'id');
      const l = this.listeners.get(id);
      if (!l) return;
      this.listeners.delete(id);
      l.server.close();
      if (l.requested === 80) this.httpPort = null;
    },
    'tcp.connect': (args: Json, _bin: Buffer, session: Session) => this.connect(args, session),
    'tcp.write': (args: Json, bin: Buffer) => {
      const c = this.conn(args);
      if (!c || c.closed || c.socket.destroyed || !bin.length) return;
      c.drainPending = true;
      c.socket.write(Buffer.from(bin), () => {
        if (c.closed || !c.drainPending || c.socket.writableLength > 0) return;
        c.drainPending = false;
        c.session.emit('tcp.drain', { id: c.id, buffered: 0 });
      });
    },
    'tcp.end': (args: Json) => {
      const c = this.conn(args);
      if (!c || c.closed) return;
      c.socket.end();
      // a peer that never closes its side does not keep the socket forever (as FIN_WAIT_2 ends)
      setTimeout(() => c.socket.destroy(), END_LINGER_MS).unref();
    },
    'tcp.read': (args: Json) => {
      const c = this.conn(args);
      if (!c || c.closed) return;
      c.unread = Math.max(0, c.unread - int(args, 'bytes', 0));
      this.flow(c);
    },
    'tcp.destroy': (args: Json) => {
      const c = this.conn(args);
      if (c && !c.closed) c.socket.destroy();
    },
  };
}
