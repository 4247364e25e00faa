// Device HAL: UDP over the SDK's ECMA-419 socket (embedded:io/socket/udp,
// modules/io/socket/lwip/udp.c). Its write() takes an IP address only
// (ipaddr_aton, else "invalid IP address"), so a datagram to a host name
// (the SNTP client's pool.ntp.org) is sent once Net.resolve has answered;
// one to a name that does not resolve, or that the stack refuses, is
// dropped, as the network drops datagrams: the sender's timeout covers it.
// A multicast socket (mDNS) joins its group with the socket's add()
// (udp.js: xs_udp_add, igmp_joingroup on every interface that has an
// address) and leaves it with remove() before close; its unicast TTL is 255
// (RFC 6762 §11; the constructor's timeToLive, udp.c).

import UDP from 'embedded:io/socket/udp';
import Net from 'net';
import type { UdpSocket } from '../../../src/hal/index.ts';

/** A dotted IPv4 address needs no look-up. */
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** RFC 6762 §11: mDNS datagrams go out with IP TTL 255. */
const MULTICAST_TTL = 255;

/** The socket's close(), add() and remove() (lwip/udp.js: xs_udp_close, xs_udp_add, xs_udp_remove), which its typing leaves out. */
type Membership = UDP & { close(): void; add(group: string): void; remove(group: string): void };

/** A UDP socket on port; with group, one that has joined that multicast group. */
export function openUdp(port: number, group?: string): UdpSocket {
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
      if (group) {
        try {
          (io as Membership).remove(group);
        } catch {
          // the interface went away with its membership
        }
      }
      (io as Membership).close();
    },
  };
  const io = new UDP({
    port,
    ...(group ? { timeToLive: MULTICAST_TTL } : {}),
    onReadable(packets) {
      for (let i = 0; i < packets; i++) {
        const p = this.read();
        if (p) u.onMessage?.(new Uint8Array(p), p.address, p.port);
      }
    },
  });
  if (group) (io as Membership).add(group);
  return u;
}
