// The wifi subsystem's face: provisioning (the known networks, joining, the
// setup network and its token handout), mDNS while the station is connected,
// the setup network's captive DNS, the routes (/savewifi, /api/wifi, the
// handoff) and the console's Wi-Fi group. The mode decides: Orchestrator runs
// the radio, Notifier keeps it off (spec, What the service does 1).

import type { SetupPassphrase } from '../auth/index.ts';
import type { Subsystem } from '../core/subsystem.ts';
import { HttpClient } from '../net/http/client.ts';
import { DeviceTlsPolicy } from '../net/tls.ts';
import { captiveDns } from './captive.ts';
import { wifiCommands } from './console.ts';
import { followMdns, type ShutdownNotice } from './mdns.ts';
import { Provisioning, provisioningRoutes, type WifiAuth } from './provisioning.ts';
import { wifiRoutes } from './routes.ts';

export interface WifiOptions extends WifiAuth {
  /** The setup network's passphrase (src/auth). */
  passphrase: SetupPassphrase;
  /** Orderly restarts and sleeps (src/core/shutdown.ts): mDNS says goodbye first. */
  shutdown?: ShutdownNotice;
  /** The fault layer (test builds): an outbound or Wi-Fi fault closes the kept-alive connections too. */
  faults?: { onChange(listener: (cap: string, on: boolean) => void): void };
}

/** What the network provides: the provisioning (station, setup network, addresses), and outbound HTTP(S) over it under the device's TLS policy. */
export interface WifiFace {
  network: Provisioning;
  client: HttpClient;
  tls: DeviceTlsPolicy;
}

export const wifi: Subsystem<WifiOptions, WifiFace> = {
  name: 'wifi',
  needs: ['passphrase', 'token', 'signin', 'shutdown', 'faults'],
  provides: { network: (f) => f.network, client: (f) => f.client, tls: (f) => f.tls },
  start(k, o) {
    const p = new Provisioning(k, o.passphrase, o);
    // Bootstrap interceptors, before routing and the gate: the setup network's token handout first.
    k.router.intercept((req) => p.handout(req));
    if (k.mode === 1) p.start();
    else p.keepOff();
    const mdns = followMdns(k, p, o.shutdown);
    p.localName = mdns.host;
    const captive = captiveDns(k, p);
    // Kept-alive connections do not outlive the link they were made on: a dropped station, or a network fault
    // (test builds), closes the idle ones, so the next request connects afresh (and fails if the network is down).
    const tls = new DeviceTlsPolicy(k.store('net'));
    const client = new HttpClient(k.hal.net, k.clock, tls, `desk-assistant/${k.hal.build.version}`);
    p.onStation((st) => {
      if (st.state !== 'connected') client.closeIdle();
    });
    o.faults?.onChange((cap, on) => {
      if (on && (cap === 'outbound' || cap === 'wifi-down')) client.closeIdle();
    });
    return {
      provides: { network: p, client, tls },
      routes: [...provisioningRoutes(p), ...wifiRoutes(k.log, p)],
      commands: wifiCommands(k.hal, p, o.passphrase),
      status: { sections: [() => ({ wifi: p.view() }), mdns.section, captive.section] },
    };
  },
};
