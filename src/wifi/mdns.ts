// mDNS in Orchestrator mode: while the station is connected the device
// answers desk-XXXX.local (the last two bytes of its MAC) and advertises its
// HTTP service, _http._tcp on port 80, with TXT records naming the board
// type and the firmware version only: never the token, a sign-in code or the
// setup passphrase (the advertisement is public on the LAN). Anything but a
// connected station withdraws it. Notifier mode never advertises (no Wi-Fi).

import type { Kernel } from '../core/kernel.ts';
import type { StateSection } from '../core/status.ts';
import type { MdnsService, StationStatus } from '../hal/index.ts';
import { mdnsName, type Provisioning } from './provisioning.ts';

export const HTTP_SERVICE_PORT = 80;

/** The one service the device advertises. */
export function httpService(ctx: Kernel): MdnsService {
  return { type: '_http', protocol: 'tcp', port: HTTP_SERVICE_PORT, txt: { model: ctx.hal.board.type, fw: ctx.hal.build.version, path: '/' } };
}

/** Follows the station (Orchestrator mode); section is the snapshot's mdns field. */
export function followMdns(ctx: Kernel, provisioning: Provisioning): { advertising(): string | null; section: StateSection } {
  let advertised: string | null = null;
  const follow = (s: StationStatus): void => {
    if (s.state === 'connected') {
      const host = mdnsName(ctx.hal.wifi.mac());
      ctx.hal.mdns.advertise(host, [httpService(ctx)]);
      if (advertised !== host) ctx.log.info('mdns', `advertising ${host}.local, _http._tcp port ${HTTP_SERVICE_PORT}`);
      advertised = host;
    } else if (advertised !== null) {
      ctx.hal.mdns.stop();
      ctx.log.info('mdns', `${advertised}.local withdrawn (station ${s.state})`);
      advertised = null;
    }
  };
  if (ctx.mode === 1) provisioning.onStation(follow);
  const section: StateSection = () => ({ mdns: advertised === null ? null : { host: `${advertised}.local`, services: ['_http._tcp'] } });
  return { advertising: () => advertised, section };
}
