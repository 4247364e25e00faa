// Connectors (spec: POST /api/connectors, /oauth/go, Authentication 9,
// Access credentials: connector launch key): the records (record.ts) kept
// in NVS `conn`, one slot per connector; the OAuth sign-in flows
// (flows.ts); the token exchange and refresh against the connector's token
// endpoint (under the device's TLS policy); the owner's routes; the ungated
// /oauth/go and /oauth/callback; the owner's approval of each connector as a
// tool server entry (approve/deny here, /mcp in the chat: commands.ts); the
// approved, ready servers a provider round or job may carry (serversFor);
// and a line for the prompt's [PROVIDERS & CONNECTORS] block.
//
//   GET  /api/connectors                       list (never a secret) and pending sign-ins
//   POST /api/connectors                       upsert (idempotent; the default action),
//        action=delete|signin|signout|approve|deny&id
//                                              signin answers the verify link /oauth/go?k=<key>;
//                                              deny removes the approval, the record stays
//   GET  /oauth/go?k=<key>                     ungated: a page whose button POSTs the same address
//   POST /oauth/go?k=<key>                     ungated: 303 to the authorize URL for the exact key,
//                                              303 to / for anything else
//   GET  /oauth/callback?state&code            ungated: the state must equal the flow's

import type { ChatCommandRegistry } from '../contracts/index.ts';
import { whole, type Later, type Subsystem } from '../core/subsystem.ts';
import type { HttpClient } from '../net/http/client.ts';
import { sha256, type Sha256Api } from '../../modules/sha256/sha256.ts';
import { connectorChatCommands } from './commands.ts';
import { CONN_NS, Connectors } from './connectors.ts';
import { connectorRoutes } from './routes.ts';

export { Connectors } from './connectors.ts';

/** What connectors need from others. */
export interface ConnectorsOptions {
  /** Outbound HTTP(S) for the token exchange. */
  client: Pick<HttpClient, 'request'>;
  /** SHA-256 (the native hotspot or its fallback), for PKCE. */
  sha256: Sha256Api;
  /** The device token: a rotation ends every sign-in in progress (src/auth). */
  token: { onRotate(listener: () => void): void };
  /** The live-secret registry the cloud tunnel screens answers for: the launch keys (src/auth). */
  secrets: { register(kind: 'launch-key', live: () => Iterable<string>): void };
  /** The network (src/wifi's provisioning): the device's LAN addresses, for the verify links. */
  network: { addresses(): Array<{ label: string; base: string }> };
  /** The chat commands' registry (src/chat/, mounted later: /mcp is registered when it mounts). */
  commands: Later<ChatCommandRegistry>;
}

export const connectors: Subsystem<ConnectorsOptions, Connectors> = {
  name: 'connectors',
  needs: ['client', 'sha256', 'token', 'secrets', 'network'],
  later: ['commands'],
  provides: { connectors: whole },
  start(k, o) {
    const c = new Connectors({ store: k.store(CONN_NS), client: o.client, clock: k.hal.clock, random: (b) => k.hal.system.random(b), sha256: (b) => sha256(o.sha256, b), log: k.log, secret: (v) => k.log.redactor.add(v) });
    const addresses = (): Array<{ label: string; base: string }> => o.network.addresses();
    c.addresses = addresses;
    o.token.onRotate(() => c.flows.clear());
    o.secrets.register('launch-key', () => c.flows.liveKeys());
    o.commands.when((registry) => {
      for (const command of connectorChatCommands(c)) registry.register(command);
    });
    return { provides: c, routes: connectorRoutes(c, addresses, k.hal.clock) };
  },
};
