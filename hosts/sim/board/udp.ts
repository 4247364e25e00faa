// UDP for the firmware (SNTP, discovery): sockets bound on 127.0.0.1 for a
// fixed port, or any address for an ephemeral client port; the same host:port
// routes as TCP; datagrams cross the pipe as udp.send and udp.message.

import { createSocket, type Socket } from 'node:dgram';
import { fail } from './errors.ts';
import type { Json, Service, Session } from './service.ts';
import { int, str } from './service.ts';
import type { Route } from './tcp.ts';

interface Entry {
  socket: Socket;
  session: Session;
}

export class Udp implements Service {
  private sockets = new Map<number, Entry>();
  private nextId = 1;

  constructor(private readonly routes: Map<string, Route>) {}

  stop(): void {
    for (const e of this.sockets.values()) e.socket.close();
    this.sockets.clear();
  }

  shutdown(): void {
    this.stop();
  }

  readonly ops = {
    'udp.bind': (args: Json, _bin: Buffer, session: Session) => {
      const port = int(args, 'port', 0, 65535);
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
        socket.bind({ port, address: port === 0 ? '0.0.0.0' : '127.0.0.1', exclusive: true }, () => {
          socket.removeAllListeners('error');
          socket.on('error', () => {});
          if (!session.alive) {
            socket.close();
            return;
          }
          this.sockets.set(id, { socket, session });
          socket.on('message', (msg, rinfo) => session.emit('udp.message', { id, address: rinfo.address, port: rinfo.port }, msg));
          resolve({ json: { id, port: socket.address().port } });
        });
      });
    },
    'udp.send': (args: Json, bin: Buffer) => {
      const e = this.sockets.get(int(args, 'id'));
      if (!e) return;
      const address = str(args, 'address');
      const port = int(args, 'port', 1, 65535);
      const route = this.routes.get(`${address.toLowerCase()}:${port}`);
      e.socket.send(Buffer.from(bin), route?.port ?? port, route?.host ?? address, () => {});
    },
    'udp.close': (args: Json) => {
      const id = int(args, 'id');
      const e = this.sockets.get(id);
      if (!e) return;
      this.sockets.delete(id);
      e.socket.close();
    },
  };
}
