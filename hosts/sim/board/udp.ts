// UDP for the firmware (SNTP, the setup network's DNS, discovery): sockets
// bound on 127.0.0.1 for a fixed port, or any address for an ephemeral
// client port; the same host:port routes as TCP; datagrams cross the pipe
// as udp.send and udp.message.
//
// - A port below 1024 (the firmware's DNS responder on 53) is served on a
//   free loopback port, as port 80 is for HTTP: the firmware sees the port
//   it asked for, status and the control op ap.dns tell the real one.
// - Port 53 is the setup network's DNS: it hears datagrams only while the
//   access point is up (a phone can only reach it on that network).
// - A datagram to port 123 that no route claims goes to the board's time
//   server (hosts/sim/board/timeserver.ts): the simulated internet's time.
// - Answers from a routed address come back as from the address the
//   firmware sent to (pool.ntp.org:123, not 127.0.0.1:<port>).
// - A socket bound with `multicast` (mDNS's 224.0.0.251:5353) joins the
//   home network's multicast side instead (./lan.ts): no real socket unless
//   the board bridges it to the loopback (--mdns-port).

import { createSocket, type Socket } from 'node:dgram';
import { fail } from './errors.ts';
import type { Lan } from './lan.ts';
import type { Json, Service, Session } from './service.ts';
import { int, str } from './service.ts';
import type { Route } from './tcp.ts';

export const DNS_PORT = 53;
/** 224.0.0.0/4. */
const MULTICAST = /^(22[4-9]|23\d)(\.\d{1,3}){3}$/;
export const NTP_PORT = 123;

interface Entry {
  socket: Socket;
  session: Session;
  /** The port the firmware asked for (0: any). */
  requested: number;
  /** Real sender "host:port" -> the address the firmware sent to, for routed datagrams. */
  seenAs: Map<string, { address: string; port: number }>;
}

export interface UdpWorld {
  /** The board's time server's real port, once it is bound. */
  timeServerPort(): number | null;
  /** The setup network (the access point) is up. */
  apUp(): boolean;
}

export class Udp implements Service {
  private sockets = new Map<number, Entry>();
  private nextId = 1;

  constructor(
    private readonly routes: Map<string, Route>,
    private readonly world: UdpWorld,
    private readonly lan: Lan,
  ) {}

  private readonly lanIds = new Set<number>();

  stop(): void {
    for (const e of this.sockets.values()) e.socket.close();
    this.sockets.clear();
    for (const id of this.lanIds) this.lan.leave(id);
    this.lanIds.clear();
  }

  shutdown(): void {
    this.stop();
  }

  status(): Json {
    return { sockets: [...this.sockets.entries()].map(([id, e]) => ({ id, requested: e.requested, port: e.socket.address().port })) };
  }

  /** The real loopback port of the firmware's socket on `requested`, or null. */
  portFor(requested: number): number | null {
    for (const e of this.sockets.values()) if (e.requested === requested) return e.socket.address().port;
    return null;
  }

  readonly ops = {
    'udp.bind': (args: Json, _bin: Buffer, session: Session) => {
      const port = int(args, 'port', 0, 65535);
      if (args['multicast'] !== undefined) {
        const group = str(args, 'multicast');
        if (!MULTICAST.test(group)) fail('EINVAL', `${group} is not an IPv4 multicast group`);
        const id = this.nextId++;
        this.lanIds.add(id);
        this.lan.join(id, group, port, (bytes, address, from) => session.emit('udp.message', { id, address, port: from }, bytes));
        return { json: { id, port } };
      }
      const privileged = port > 0 && port < 1024;
      const id = this.nextId++;
      const socket = createSocket('udp4');
      return new Promise<{ json: Json }>((resolve, reject) => {
        socket.once('error', (e: NodeJS.ErrnoException) => {
          socket.close();
          try {
            fail(e.code === 'EADDRINUSE' ? 'EBUSY' : 'EIO', `udp bind ${port}: ${e.message}`);
          } catch (err) {
            reject(err);
          }
        });
        socket.bind({ port: privileged ? 0 : port, address: port === 0 ? '0.0.0.0' : '127.0.0.1', exclusive: true }, () => {
          socket.removeAllListeners('error');
          socket.on('error', () => {});
          if (!session.alive) {
            socket.close();
            return;
          }
          const entry: Entry = { socket, session, requested: port, seenAs: new Map() };
          this.sockets.set(id, entry);
          socket.on('message', (msg, rinfo) => {
            // The setup network's DNS is out of reach while there is no setup network.
            if (port === DNS_PORT && !this.world.apUp()) return;
            const as = entry.seenAs.get(`${rinfo.address}:${rinfo.port}`);
            session.emit('udp.message', { id, address: as?.address ?? rinfo.address, port: as?.port ?? rinfo.port }, msg);
          });
          resolve({ json: { id, port: privileged ? port : socket.address().port } });
        });
      });
    },
    'udp.send': (args: Json, bin: Buffer) => {
      const lanId = int(args, 'id');
      if (this.lanIds.has(lanId)) return this.lan.send(lanId, Buffer.from(bin), str(args, 'address'), int(args, 'port', 1, 65535));
      const e = this.sockets.get(lanId);
      if (!e) return;
      const address = str(args, 'address');
      const port = int(args, 'port', 1, 65535);
      let route: Route | undefined = this.routes.get(`${address.toLowerCase()}:${port}`);
      const time = this.world.timeServerPort();
      if (!route && port === NTP_PORT && time !== null) route = { host: '127.0.0.1', port: time };
      if (route) {
        const host = route.host === 'localhost' ? '127.0.0.1' : route.host;
        e.seenAs.set(`${host}:${route.port}`, { address, port });
        e.socket.send(Buffer.from(bin), route.port, host, () => {});
        return;
      }
      e.socket.send(Buffer.from(bin), port, address, () => {});
    },
    'udp.close': (args: Json) => {
      const id = int(args, 'id');
      if (this.lanIds.delete(id)) return this.lan.leave(id);
      const e = this.sockets.get(id);
      if (!e) return;
      this.sockets.delete(id);
      e.socket.close();
    },
  };
}
