// The cloud relay subsystem's face: the tunnel path (dispatch.ts), the relay
// client (relay.ts), the owner's routes (routes.ts), the state snapshot's
// `cloud` field and the console's Cloud group (console.ts). A paired device
// goes online shortly after boot, in Orchestrator mode only.

import type { Subsystem } from '../core/subsystem.ts';
import type { LiveSecrets } from '../auth/index.ts';
import { cloudCommands } from './console.ts';
import { TunnelDispatcher } from './dispatch.ts';
import { CLOUD_NS, CloudRelay, RELAY_HOST, RELAY_PORT } from './relay.ts';
import { cloudRoutes } from './routes.ts';

/** A paired device goes online this long after boot (the station has joined by then, or the backoff takes over). */
const START_DELAY_MS = 2_000;

export interface CloudFace {
  relay: CloudRelay;
  dispatcher: TunnelDispatcher;
}

export interface CloudOptions {
  /** The device access token the tunnel adds to the owner's requests (src/auth). */
  token: { reveal(): string };
  /** Every live secret, which no tunnelled answer may carry (src/auth's Secrets). */
  secrets: LiveSecrets;
  /** The CA bundle the relay's certificate is checked against (src/net/tls.ts). */
  tls: { caBundle(): string };
}

export const cloud: Subsystem<CloudOptions, CloudFace> = {
  name: 'cloud',
  needs: ['token', 'secrets', 'tls'],
  provides: { relay: (f) => f.relay },
  start(k, o) {
    const dispatcher = new TunnelDispatcher({
      router: k.router,
      token: () => o.token.reveal(),
      secrets: () => o.secrets.live(),
    });
    const relay = new CloudRelay({
      net: k.hal.net,
      clock: k.hal.clock,
      store: k.store(CLOUD_NS),
      random: (bytes) => k.hal.system.random(bytes),
      caBundle: () => o.tls.caBundle(),
      log: k.log,
      secret: (v) => k.log.redactor.add(v),
      dispatcher,
      identity: { fw: k.hal.build.version, board: k.hal.board.type },
    });

    const view = (): Record<string, unknown> => ({
      state: relay.state(),
      paired: relay.paired(),
      device: relay.deviceId(),
      relay: `${RELAY_HOST}:${RELAY_PORT}`,
      verify: 'always',
      pairing: relay.pendingCode(),
      retryInMs: relay.retryInMs(),
      lastError: relay.lastError,
      inFlight: relay.inFlight(),
      remembered: relay.remembered(),
      ...dispatcher.stats,
    });

    if (k.mode === 1) k.hal.clock.setTimeout(() => relay.start(), START_DELAY_MS);
    return {
      provides: { relay, dispatcher },
      status: { sections: [() => ({ cloud: { state: relay.state(), paired: relay.paired() } })] },
      routes: cloudRoutes(relay, view, k.mode),
      commands: cloudCommands(relay, dispatcher, o.secrets, k.mode),
      stop: () => relay.stop(),
    };
  },
};
