// The console's Cloud group: CLOUD?, CLOUDPAIR, CLOUDOFF, CLOUDLOOP [path].

import { CommandError, type Command } from '../core/console.ts';
import type { Mode } from '../core/kernel.ts';
import { SecretScreen, type LiveSecrets } from '../auth/index.ts';
import { errorMessage } from '../util/json.ts';
import type { TunnelDispatcher } from './dispatch.ts';
import { excerptText, RELAY_HOST, RELAY_PORT, type CloudRelay } from './relay.ts';

const LOOP_TARGET_MAX = 512;

export function cloudCommands(relay: CloudRelay, dispatcher: TunnelDispatcher, secrets: LiveSecrets, mode: Mode): Command[] {
  const commands: Command[] = [];
  commands.push({
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
  commands.push({
    verb: 'CLOUDPAIR',
    help: 'pair with the cloud relay: prints the code to enter on the relay service',
    run: async (c) => {
      if (mode !== 1) throw new CommandError('the cloud relay runs in Orchestrator mode only');
      try {
        const code = await relay.pair();
        c.out(`code=${code.code} expiresIn=${Math.ceil(code.expiresInMs / 1000)}s`);
        c.out('enter the code on the relay service to link this device to your account');
      } catch (e) {
        throw new CommandError(errorMessage(e));
      }
    },
  });
  commands.push({
    verb: 'CLOUDOFF',
    help: 'leave the cloud relay: disconnect and forget the device credential',
    run: (c) => {
      c.out(relay.off() ? 'unpaired: the device credential is forgotten' : 'already off; nothing changed');
    },
  });
  commands.push({
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
      const leaked = new SecretScreen(secrets.live()).find(r.excerpt) !== null;
      c.out(`via=${r.via} status=${r.status} bytes=${r.bytes} type=${r.type || '-'} secrets=${leaked ? 'LEAKED' : 'none'}`);
      if (r.excerpt.length) c.out(`body: ${leaked ? '(withheld)' : excerptText(r.excerpt)}`);
      if (leaked) throw new CommandError('a secret came back through the tunnel path');
    },
  });
  return commands;
}
