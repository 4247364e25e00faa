// The cloud relay subsystem: the tunnel path (dispatch.ts), the relay client
// (relay.ts), the owner's routes (GET /api/cloud, POST /api/cloud
// action=pair|off, for the web page and release builds, whose console has no
// Cloud group), the state snapshot's `cloud` field and the console's Cloud
// group: CLOUD?, CLOUDPAIR, CLOUDOFF, CLOUDLOOP [path].

import { CommandError } from '../core/console.ts';
import type { Context } from '../core/context.ts';
import { formRoute } from '../core/form-route.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { errorMessage } from '../util/json.ts';
import { SecretScreen } from '../auth/secret-screen.ts';
import { TunnelDispatcher } from './dispatch.ts';
import { CLOUD_NS, CloudRelay, excerptText, RELAY_HOST, RELAY_PORT } from './relay.ts';

/** A paired device goes online this long after boot (the station has joined by then, or the backoff takes over). */
const START_DELAY_MS = 2_000;
const LOOP_TARGET_MAX = 512;

export interface Cloud {
  relay: CloudRelay;
  dispatcher: TunnelDispatcher;
}

export function installCloud(ctx: Context): Cloud {
  const dispatcher = new TunnelDispatcher({
    router: ctx.router,
    token: () => ctx.token.reveal(),
    secrets: () => ctx.secrets.live(),
  });
  const relay = new CloudRelay({
    net: ctx.hal.net,
    clock: ctx.hal.clock,
    store: ctx.store(CLOUD_NS),
    random: ctx.random,
    caBundle: () => ctx.tls.caBundle(),
    log: ctx.log,
    secret: (v) => ctx.log.redactor.add(v),
    dispatcher,
    identity: { fw: ctx.hal.build.version, board: ctx.hal.board.type },
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
  ctx.status.section(() => ({ cloud: { state: relay.state(), paired: relay.paired() } }));

  ctx.router.add({ method: 'GET', path: '/api/cloud', handler: () => jsonResponse(view()) });
  ctx.router.add(formRoute({
    path: '/api/cloud',
    bodyLimit: 1024,
    onUnreadable: 'empty',
    apply: async (fields) => {
      const action = fields.get('action') ?? '';
      if (action === 'pair') {
        if (ctx.mode !== 1) return errorResponse(409, 'notifier-mode', 'The cloud relay runs in Orchestrator mode only.');
        try {
          const code = await relay.pair();
          return jsonResponse({ ...view(), pairing: code });
        } catch (e) {
          return errorResponse(409, 'not-paired', `Pairing did not start: ${errorMessage(e)}.`);
        }
      }
      if (action === 'off') {
        relay.off();
        return jsonResponse(view());
      }
      return errorResponse(400, 'bad-request', 'action is pair or off. Nothing was changed.');
    },
  }));

  ctx.console.register({
    verb: 'CLOUD?',
    help: 'cloud relay: state, pairing, device id, relay, requests served and refused',
    run: (c) => {
      const s = dispatcher.stats;
      const code = relay.pendingCode();
      c.out(`state=${relay.state()} paired=${relay.paired() ? 'yes' : 'no'} device=${relay.deviceId() ?? '-'} relay=${RELAY_HOST}:${RELAY_PORT} verify=always`);
      if (code) c.out(`pairing code=${code.code} expiresIn=${Math.ceil(code.expiresInMs / 1000)}s`);
      const retry = relay.retryInMs();
      c.out(`served=${s.served} denied=${s.denied} withheld=${s.withheld} inFlight=${relay.inFlight()} remembered=${relay.remembered()} reconnects=${relay.reconnects}${retry !== null ? ` retryIn=${Math.ceil(retry / 1000)}s` : ''} lastError=${relay.lastError ?? '-'}`);
    },
  });
  ctx.console.register({
    verb: 'CLOUDPAIR',
    help: 'pair with the cloud relay: prints the code to enter on the relay service',
    run: async (c) => {
      if (ctx.mode !== 1) throw new CommandError('the cloud relay runs in Orchestrator mode only');
      try {
        const code = await relay.pair();
        c.out(`code=${code.code} expiresIn=${Math.ceil(code.expiresInMs / 1000)}s`);
        c.out('enter the code on the relay service to link this device to your account');
      } catch (e) {
        throw new CommandError(errorMessage(e));
      }
    },
  });
  ctx.console.register({
    verb: 'CLOUDOFF',
    help: 'leave the cloud relay: disconnect and forget the device credential',
    run: (c) => {
      c.out(relay.off() ? 'unpaired: the device credential is forgotten' : 'already off; nothing changed');
    },
  });
  ctx.console.register({
    verb: 'CLOUDLOOP',
    usage: '[path]',
    help: 'self-test: GET path (default /api/state) through the tunnel path (via the relay when online)',
    run: async (c) => {
      const target = c.argv[0] ?? '/api/state';
      if (!target.startsWith('/') || target.length > LOOP_TARGET_MAX) throw new CommandError('usage: CLOUDLOOP [path starting with /]');
      let r;
      try {
        r = await relay.loop(target);
      } catch (e) {
        throw new CommandError(errorMessage(e));
      }
      const leaked = new SecretScreen(ctx.secrets.live()).find(r.excerpt) !== null;
      c.out(`via=${r.via} status=${r.status} bytes=${r.bytes} type=${r.type || '-'} secrets=${leaked ? 'LEAKED' : 'none'}`);
      if (r.excerpt.length) c.out(`body: ${leaked ? '(withheld)' : excerptText(r.excerpt)}`);
      if (leaked) throw new CommandError('a secret came back through the tunnel path');
    },
  });

  if (ctx.mode === 1) ctx.hal.clock.setTimeout(() => relay.start(), START_DELAY_MS);
  return { relay, dispatcher };
}
