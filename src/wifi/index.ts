// The wifi subsystem's face: provisioning (the known networks, joining, the
// setup network and its token handout), mDNS while the station is connected,
// the setup network's captive DNS, the routes (/savewifi, /api/wifi, the
// handoff) and the console's Wi-Fi group. The mode decides: Orchestrator runs
// the radio, Notifier keeps it off (spec, What the service does 1).

import type { SetupPassphrase } from '../auth/index.ts';
import type { Subsystem } from '../core/subsystem.ts';
import { captiveDns } from './captive.ts';
import { wifiCommands } from './console.ts';
import { followMdns, type ShutdownNotice } from './mdns.ts';
import { Provisioning, provisioningRoutes, type WifiAuth } from './provisioning.ts';
import { wifiRoutes } from './routes.ts';

export { Provisioning, type JoinOutcome, type WifiAuth } from './provisioning.ts';
export type { ShutdownNotice } from './mdns.ts';

export interface WifiOptions extends WifiAuth {
  /** The setup network's passphrase (src/auth). */
  passphrase: SetupPassphrase;
  /** Orderly restarts and sleeps (src/core/shutdown.ts): mDNS says goodbye first. */
  shutdown?: ShutdownNotice;
}

export const wifi: Subsystem<WifiOptions, Provisioning> = {
  name: 'wifi',
  start(k, o) {
    const p = new Provisioning(k, o.passphrase, o);
    // Bootstrap interceptors, before routing and the gate: the setup network's token handout first.
    k.router.intercept((req) => p.handout(req));
    if (k.mode === 1) p.start();
    else p.keepOff();
    const mdns = followMdns(k, p, o.shutdown);
    p.localName = mdns.host;
    const captive = captiveDns(k, p);
    return {
      provides: p,
      routes: [...provisioningRoutes(p), ...wifiRoutes(k.log, p)],
      commands: wifiCommands(k.hal, p, o.passphrase),
      status: { sections: [() => ({ wifi: p.view() }), mdns.section, captive.section] },
    };
  },
};
