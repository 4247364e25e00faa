// Device HAL: UDP over the SDK's ECMA-419 socket (embedded:io/socket/udp,
// modules/io/socket/lwip/udp.c). Its write() takes an IP address only
// (ipaddr_aton, else "invalid IP address"), so a datagram to a host name
// (the SNTP client's pool.ntp.org) is sent once Net.resolve has answered;
// one to a name that does not resolve, or that the stack refuses, is
// dropped, as the network drops datagrams: the sender's timeout covers it.

import UDP from 'embedded:io/socket/udp';
import Net from 'net';
import type { UdpSocket } from '../../../src/hal/index.ts';

/** A dotted IPv4 address needs no look-up. */
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function openUdp(port: number): UdpSocket {
  let closed = false;
  const write = (bytes: Uint8Array, address: string, toPort: number): void => {
    if (closed) return;
    try {
      io.write(bytes, address, toPort);
    } catch {
      // no route, no buffer: the datagram is lost, as on any network
    }
  };
  const u: UdpSocket = {
    port,
    onMessage: null,
    send(bytes, address, toPort) {
      if (IPV4.test(address)) return write(bytes, address, toPort);
      const copy = bytes.slice();
      try {
        Net.resolve(address, (_name, ip) => {
          if (ip) write(copy, ip, toPort);
        });
      } catch {
        // lwIP's look-up queue is full: dropped
      }
    },
    close() {
      if (closed) return;
      closed = true;
      (io as UDP & { close(): void }).close();
    },
  };
  const io = new UDP({
    port,
    onReadable(packets) {
      for (let i = 0; i < packets; i++) {
        const p = this.read();
        if (p) u.onMessage?.(new Uint8Array(p), p.address, p.port);
      }
    },
  });
  return u;
}
