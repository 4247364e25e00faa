// The setup network's captive portal, so a phone that joins Device-setup
// shows the sign-in page by itself:
// - DNS: while the setup network is up, a responder on UDP port 53 answers
//   every A query with the device's setup address (src/net/dns.ts; the
//   access point's DHCP server offers that address as the DNS server:
//   hosts/esp32/sdkconfig, CONFIG_LWIP_DHCPS_ADD_DNS). It closes when the
//   setup network drops.
// - HTTP: the phone then asks the device for its connectivity check (the
//   paths in CAPTIVE_PROBES) and, not getting the expected answer, opens
//   what it is redirected to. While no network is saved that is the token
//   handout (src/wifi/provisioning.ts: GET / and every unknown GET path
//   redirect to /?t=<token>, spec Authentication 4). Once one is saved the
//   handout is gone; a probe then gets the page itself (a redirect to /,
//   no token), which asks for a sign-in code, rather than an error.

import type { Kernel } from '../core/kernel.ts';
import type { StateSection } from '../core/status.ts';
import type { UdpSocket } from '../hal/index.ts';
import { captiveDnsAnswer, DNS_PORT, ipv4Bytes } from '../net/dns.ts';
import type { HttpRequest, HttpResponse } from '../net/http/types.ts';
import { SETUP_ADDRESS, type Provisioning } from './provisioning.ts';

/**
 * The connectivity checks phones and computers make (the path part; the
 * hosts resolve to the device here): Android (generate_204, gen_204),
 * Apple (hotspot-detect.html, library/test/success.html), Windows
 * (connecttest.txt, redirect, ncsi.txt), Firefox (success.txt, canonical.html),
 * Kindle (kindle-wifi/wifistub.html).
 */
export const CAPTIVE_PROBES: readonly string[] = [
  '/generate_204',
  '/gen_204',
  '/hotspot-detect.html',
  '/library/test/success.html',
  '/connecttest.txt',
  '/redirect',
  '/ncsi.txt',
  '/success.txt',
  '/canonical.html',
  '/kindle-wifi/wifistub.html',
];

export interface CaptiveView {
  /** The DNS responder is answering (the setup network is up). */
  dns: boolean;
  /** Datagrams since boot, and what became of them. */
  queries: number;
  answered: number;
  dropped: number;
}

/** The setup network's DNS responder and the probe redirect (a bootstrap interceptor); section is the snapshot's captive field. */
export function captiveDns(ctx: Kernel, provisioning: Provisioning): { view(): CaptiveView; section: StateSection } {
  const address = ipv4Bytes(SETUP_ADDRESS)!;
  let socket: UdpSocket | null = null;
  const counts = { queries: 0, answered: 0, dropped: 0 };

  const open = (): void => {
    if (socket) return;
    try {
      socket = ctx.hal.net.udp(DNS_PORT);
    } catch (e) {
      ctx.log.warn('wifi', `captive DNS not started: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const s = socket;
    s.onMessage = (bytes, from, port) => {
      counts.queries++;
      const r = captiveDnsAnswer(bytes, address);
      if (!r.reply) {
        counts.dropped++;
        return;
      }
      if (r.outcome === 'answered') counts.answered++;
      try {
        s.send(r.reply, from, port);
      } catch {
        // the phone left the network: nothing to tell it
      }
    };
    ctx.log.info('wifi', 'captive DNS on');
  };

  const close = (): void => {
    if (!socket) return;
    const s = socket;
    socket = null;
    s.onMessage = null;
    try {
      s.close();
    } catch {
      // already closed by the host
    }
    ctx.log.info('wifi', 'captive DNS off');
  };

  provisioning.onSetup((state) => (state === 'up' ? open() : close()));
  if (provisioning.view().setup.state === 'up') open();

  // A probe on a device with a saved network (its setup network back after the link went down): the page, not an error.
  ctx.router.intercept((req: HttpRequest): HttpResponse | null => {
    if (req.method !== 'GET' || !provisioning.provisioned() || CAPTIVE_PROBES.indexOf(req.path) < 0) return null;
    return { status: 302, headers: { Location: '/', 'Cache-Control': 'no-store' } };
  });

  const view = (): CaptiveView => ({ dns: socket !== null, ...counts });
  return { view, section: () => ({ captive: view() }) };
}
