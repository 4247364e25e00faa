// The console's Update group (test builds): OTA?, OTACHECK, OTAAPPLY [dry]
// [force], OTAURL <url>, OTASIM arm <ver>, OTASIM crash, and OTASIM hold
// <armed|flipped|off> (stops the next real install at that stage, so tests
// can cut the power there).

import { CommandError, type Command } from '../core/console.ts';
import type { Kernel } from '../core/kernel.ts';
import { resolveDeviceType, TYPE_NS } from './device-type.ts';
import type { Updates } from './updates.ts';

export function otaCommands(ctx: Kernel, ota: Updates): Command[] {
  const commands: Command[] = [];
  commands.push({
    verb: 'OTA?',
    maxArgs: 0,
    help: 'print the update state fields, one key=value per line',
    run: (c) => {
      const s = ota.state();
      for (const [k, v] of Object.entries(s)) c.out(`${k}=${v === null ? '-' : typeof v === 'boolean' ? (v ? 1 : 0) : String(v)}`);
      const t = resolveDeviceType(ctx.store(TYPE_NS), ctx.hal.board);
      c.out(`otaType=${t.kind === 'typed' ? t.type : `${t.kind}:${t.stored}`}`);
      c.out(`otaBase=${ota.base()}`);
    },
  });
  commands.push({
    verb: 'OTACHECK',
    maxArgs: 0,
    help: 'check for an update now and print the verdict',
    run: async (c) => {
      const t = ota.check();
      if (!t.ok) throw new CommandError(t.reason);
      const o = await t.done;
      c.out(`otaResult=${o.result}`);
      if (o.error) c.out(`otaErr=${o.error}`);
      if (o.latest) c.out(`otaLatest=${o.latest}`);
    },
  });
  commands.push({
    verb: 'OTAAPPLY',
    usage: '[dry] [force]',
    help: 'install the latest release (dry: verify only; force: skip the battery gate, allow the same or an older version)',
    run: async (c) => {
      const words = c.argv.map((a) => a.toLowerCase());
      if (words.some((w) => w !== 'dry' && w !== 'force')) throw new CommandError('usage: OTAAPPLY [dry] [force]');
      const t = ota.apply({ source: 'console', dry: words.includes('dry'), force: words.includes('force') });
      if (!t.ok) {
        if (t.offer) c.out(`offer: ${t.offer} (OTAAPPLY force)`);
        throw new CommandError(t.reason);
      }
      const o = await t.done;
      if (o.kind === 'restarting') c.out(`restarting into ${o.version}`);
      else if (o.kind === 'verified') c.out(`verified ${o.version}`);
      else if (o.kind === 'up-to-date') c.out(`up-to-date${o.version ? ` (latest ${o.version})` : ''}`);
      else throw new CommandError(`${o.lastOta || 'failed'}${o.error ? ` (${o.error})` : ''}`);
    },
  });
  commands.push({
    verb: 'OTAURL',
    usage: '<url>',
    help: "set the update base (the device reads <url>/latest/manifest.json); 'default' restores it",
    run: (c) => {
      if (c.argv.length !== 1 || !ota.setBase(c.argv[0]!)) throw new CommandError('usage: OTAURL <http(s) url without query> or OTAURL default');
      c.out(`otaBase=${ota.base()}`);
    },
  });
  commands.push({
    verb: 'OTASIM',
    usage: 'arm <ver> | crash | hold <armed|flipped|off>',
    help: 'simulate update faults: arm the guard without a flip, crash now, or hold the next install at a stage',
    run: (c) => {
      const [sub, arg] = [c.argv[0]?.toLowerCase(), c.argv[1]];
      if (sub === 'arm' && arg && ota.simulateArm(arg)) return c.out(`armed ${arg}`);
      if (sub === 'crash' && !arg) {
        c.out('crashing');
        // On the next loop turn, so this reply is out first: a panic reset.
        ctx.hal.clock.setTimeout(() => {
          throw new Error('OTASIM crash');
        }, 0);
        return;
      }
      if (sub === 'hold' && (arg === 'armed' || arg === 'flipped')) return ota.setHold(arg, true), c.out(`hold ${arg}`);
      if (sub === 'hold' && arg === 'off') {
        ota.setHold('armed', false);
        ota.setHold('flipped', false);
        return c.out('hold off');
      }
      throw new CommandError('usage: OTASIM arm <vX.Y.Z> | crash | hold <armed|flipped|off>');
    },
  });
  return commands;
}
