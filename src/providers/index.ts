// The providers subsystem's face: the orchestrator settings (keys, priority,
// the custom endpoint, budgets; GET/POST /api/orch), the provider wire (one
// round to any provider in its dialect) and the token usage ledger, with the
// wire's test-console commands (WIRE, WIREKEY, WIRE?, USAGE?). Other folders
// import the providers only from here; the shared wire types are in
// src/contracts/provider-wire.ts.

import type { Kernel } from '../core/kernel.ts';
import type { Later, Subsystem } from '../core/subsystem.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { ToolServerSource, TurnCodec } from '../contracts/index.ts';
import { wireCommands } from './console.ts';
import { providerRoutes } from './routes.ts';
import { ORCH_NS, ProviderSettings, type TlsSetting } from './settings.ts';
import { UsageLedger, USAGE_NS } from './usage.ts';
import { ProviderWire, WIRE_NS } from './wire.ts';

/** What the providers need from others. */
export interface ProvidersOptions {
  /** Outbound HTTP(S) under the device's TLS policy. */
  client: Pick<HttpClient, 'request'>;
  /** The device's TLS verification setting, shown and set by /api/orch. */
  tls: TlsSetting;
  /** The owner's approved tool servers (src/connectors/). */
  connectors: ToolServerSource;
  /** The turn's schema, field documentation and parser, for the WIRE console command (src/turn/, mounted later). */
  turnCodec: Later<TurnCodec>;
}

/** What the providers give later subsystems. */
export interface ProvidersFace {
  settings: ProviderSettings;
  wire: ProviderWire;
  usage: UsageLedger;
}

export const providers: Subsystem<ProvidersOptions, ProvidersFace> = {
  name: 'providers',
  needs: ['client', 'tls', 'connectors'],
  later: ['turnCodec'],
  provides: { providers: (f) => f.settings, wire: (f) => f.wire, usage: (f) => f.usage },
  start(k: Kernel, o: ProvidersOptions) {
    const settings = new ProviderSettings(k.store(ORCH_NS), k.log.redactor, o.tls);
    const usage = new UsageLedger(k.store(USAGE_NS), k.store(ORCH_NS), () => k.hal.clock.wallMs());
    const wire = new ProviderWire(o.client, settings, k.log, k.hal.clock, k.store(WIRE_NS), o.connectors, usage);
    return {
      provides: { settings, wire, usage },
      routes: providerRoutes(settings),
      commands: wireCommands({ settings, wire, usage, tools: k.tools, turn: o.turnCodec }),
      status: {
        sections: [
          () => ({ tlsVerify: o.tls.verify() }),
          // device.status and /api/state: usage.budget per provider (spec, device.status).
          () => ({ usage: { budget: usage.view() } }),
          // The custom endpoint's base URL and model for each role (chat, transcription, speech, embeddings).
          () => ({ customEndpoint: settings.rolesView() }),
        ],
      },
    };
  },
};

// What other subsystems use of the providers' parts.
export { ProviderSettings } from './settings.ts';
export { ProviderWire, leaksKey, type VerifyResult } from './wire.ts';
export { addUsage, usageOf } from './usage.ts';
export { CATALOG, ZAI_PATH, resolveModel } from './catalog.ts';
export { DEMO_ENDPOINT, DEMO_LABEL, DEMO_MODEL } from './demo.ts';
export { ANTHROPIC_VERSION, MAX_TOKENS } from './anthropic.ts';
export { contentText, usableKey } from './common.ts';
export { errorText } from './errors.ts';
export { hash9 } from './tool-ids.ts';
export { routerRoot } from './router.ts';
export { responsesMcpTools } from './tool-servers.ts';
