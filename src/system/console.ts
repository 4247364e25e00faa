// The system's test-console commands that restart the device: MODE <0|1>
// (persisted in NVS sys/mode, a device timeline row, then a restart into the
// mode), REBOOT, FACTRESET [card] (the danger zone's factory reset) and HANG
// (the loop stops, the watchdog resets the device). Each answers first and
// restarts REPLY_GRACE_MS later, so a script always reads its OK.

import { CommandError } from '../core/console.ts';
import type { Context, Mode } from '../core/context.ts';
import { errorMessage } from '../util/json.ts';
import { scheduleFactoryReset } from './danger.ts';
import { hang } from './hang.ts';

/** Time for the reply to leave the UART before the restart. */
export const REPLY_GRACE_MS = 100;
export const MODE_NS = 'sys';
export const MODE_KEY = 'mode';

export function modeName(mode: Mode): string {
  return mode === 0 ? 'Notifier' : 'Orchestrator';
}

export function installSystemConsole(ctx: Context): void {
  const { hal } = ctx;
  const restartSoon = (reason: string): void => {
    hal.clock.setTimeout(() => hal.system.reboot(reason), REPLY_GRACE_MS);
  };

  ctx.console.register({
    verb: 'MODE',
    usage: '<0 or 1>',
    help: 'switch to Notifier (0: BLE only) or Orchestrator (1: Wi-Fi, HTTP, assistant); saved, then the device restarts into it',
    run: (c) => {
      const arg = c.argv[0];
      if (c.argv.length !== 1 || (arg !== '0' && arg !== '1')) throw new CommandError(`usage: MODE <0 or 1> (now ${ctx.mode}, ${modeName(ctx.mode)})`);
      const mode: Mode = arg === '0' ? 0 : 1;
      if (mode === ctx.mode) {
        c.out(`mode=${mode} (${modeName(mode)}) already; nothing changed`);
        return;
      }
      try {
        ctx.store(MODE_NS).set(MODE_KEY, mode);
      } catch (e) {
        throw new CommandError(`mode not saved (${errorMessage(e)}); nothing changed`);
      }
      ctx.timeline.row('mode', `${modeName(ctx.mode)} (${ctx.mode}) -> ${modeName(mode)} (${mode}), from the console`);
      c.out(`mode=${mode} (${modeName(mode)}) saved; restarting`);
      restartSoon(`mode ${mode}`);
    },
  });

  ctx.console.register({
    verb: 'REBOOT',
    maxArgs: 0,
    help: 'restart the device (reset reason software)',
    run: (c) => {
      c.out('restarting');
      restartSoon('console REBOOT');
    },
  });

  ctx.console.register({
    verb: 'FACTRESET',
    usage: '[card]',
    help: 'factory reset: erase every setting but panel model, orientation, touch calibration and update slug (card: the SD card too), then restart',
    run: (c) => {
      const card = c.argv.length === 1 && c.argv[0]!.toLowerCase() === 'card';
      if (c.argv.length > 1 || (c.argv.length === 1 && !card)) throw new CommandError('usage: FACTRESET [card]');
      c.out(`factory reset${card ? ' with the SD card' : ' (the SD card is kept)'}; restarting`);
      scheduleFactoryReset(ctx, { eraseCard: card });
    },
  });

  ctx.console.register({
    verb: 'HANG',
    maxArgs: 0,
    help: 'stop the main loop so the watchdog resets the device (reset reason watchdog)',
    run: (c) => {
      c.out('hanging: nothing feeds the watchdog now; it resets the device');
      hal.clock.setTimeout(() => hang(hal.clock, hal.system, (line) => ctx.log.error('system', line)), REPLY_GRACE_MS);
    },
  });
}
