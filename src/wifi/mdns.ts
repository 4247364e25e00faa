// mDNS in Orchestrator mode: while the station is connected the device runs
// its responder (src/wifi/mdns-responder.ts) for desk-XXXX.local (the last
// two bytes of its MAC) and two DNS-SD services on port 80: _http._tcp, so
// any browser of web servers finds the page, and _desk-assistant._tcp, the
// device's own type, so an app finds desk assistants only. Both carry the
// same TXT (RFC 6763 §6): txtvers=1, model=<board type>, fw=<version>,
// path=/; never the token, a sign-in code or the setup passphrase (the
// advertisement is public on the LAN). A conflict renames (desk-XXXX-2,
// "desk-XXXX (2)"); the sign-in links follow the claimed host name.
// Anything but a connected station withdraws it (no goodbye: that network is
// gone); an orderly restart or deep sleep sends the goodbye first (RFC 6762
// §10.1). Notifier mode never advertises (no Wi-Fi).

import type { Kernel } from '../core/kernel.ts';
import type { StateSection } from '../core/status.ts';
import type { StationStatus } from '../hal/index.ts';
import { ipv4Bytes } from '../net/dns.ts';
import type { MdnsService } from './mdns-records.ts';
import { MDNS_GROUP, MDNS_PORT, MdnsResponder } from './mdns-responder.ts';
import { mdnsName, type Provisioning } from './provisioning.ts';

export const HTTP_SERVICE_PORT = 80;
/** The device's own DNS-SD service type (RFC 6763 §7: at most 15 characters, letters, digits and hyphens). */
export const DEVICE_SERVICE_TYPE = '_desk-assistant';

/** What mDNS needs to hear of an orderly shutdown (src/core/shutdown.ts). */
export interface ShutdownNotice {
  onShutdown(hook: () => void): void;
}

/** The TXT pairs, in order (txtvers first: RFC 6763 §6.7). */
export function serviceTxt(ctx: Kernel): Array<[string, string]> {
  return [
    ['txtvers', '1'],
    ['model', ctx.hal.board.type],
    ['fw', ctx.hal.build.version],
    ['path', '/'],
  ];
}

/** The services the device advertises. */
export function advertisedServices(ctx: Kernel): MdnsService[] {
  const txt = serviceTxt(ctx);
  return [
    { type: '_http', protocol: 'tcp', port: HTTP_SERVICE_PORT, txt },
    { type: DEVICE_SERVICE_TYPE, protocol: 'tcp', port: HTTP_SERVICE_PORT, txt },
  ];
}

function randomUnit(ctx: Kernel): number {
  const b = new Uint8Array(2);
  ctx.hal.system.random(b);
  return ((b[0]! << 8) | b[1]!) / 0x10000;
}

/** Follows the station (Orchestrator mode); host() is the claimed name, section the snapshot's mdns field. */
export function followMdns(ctx: Kernel, provisioning: Provisioning, shutdown?: ShutdownNotice): { host(): string | null; section: StateSection } {
  let responder: MdnsResponder | null = null;
  let on: string | null = null;
  let unsupported = false;
  const log = { info: (m: string) => ctx.log.info('mdns', m), warn: (m: string) => ctx.log.warn('mdns', m) };
  const withdraw = (goodbye: boolean, why: string): void => {
    if (!responder) return;
    responder.stop(goodbye);
    ctx.log.info('mdns', `${responder.view().host} withdrawn (${why})`);
    responder = null;
    on = null;
  };
  const start = (ip: string): void => {
    const address = ipv4Bytes(ip);
    if (!address || unsupported) return;
    const base = mdnsName(ctx.hal.wifi.mac());
    try {
      responder = new MdnsResponder(
        { open: () => ctx.hal.net.multicast(MDNS_GROUP, MDNS_PORT), clock: ctx.hal.clock, random: () => randomUnit(ctx), log },
        { host: base, instance: base },
        advertisedServices(ctx),
        address,
      );
      on = ip;
      ctx.log.info('mdns', `probing for ${base}.local on ${ip} (_http._tcp and ${DEVICE_SERVICE_TYPE}._tcp, port ${HTTP_SERVICE_PORT})`);
    } catch (e) {
      unsupported = true;
      ctx.log.warn('mdns', `no responder: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const follow = (s: StationStatus): void => {
    if (s.state === 'connected' && s.ip) {
      if (on === s.ip) return;
      withdraw(false, 'new address');
      start(s.ip);
    } else withdraw(false, `station ${s.state}`);
  };
  if (ctx.mode === 1) {
    provisioning.onStation(follow);
    shutdown?.onShutdown(() => withdraw(true, 'shutting down'));
  }
  const host = (): string | null => (responder ? responder.view().host : null);
  const section: StateSection = () => ({ mdns: responder ? responder.view() : null });
  return { host, section };
}
