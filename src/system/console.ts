// The system's console commands. The basic ones: PING (in release builds
// too), STATUS (the status line), HEAP? and HEAPRESET. Those that restart the
// device: MODE <0|1> (persisted in NVS sys/mode, a device timeline row, then
// a restart into the mode), REBOOT, FACTRESET [card] (the danger zone's
// factory reset) and HANG (the loop stops, the watchdog resets the device).
// Each answers first and restarts REPLY_GRACE_MS later, so a script always
// reads its OK. And the self-test's SELFTEST and TEST (selftest-console.ts).

import { CommandError, type Command } from '../core/console.ts';
import type { Kernel, Mode } from '../core/kernel.ts';
import { errorMessage } from '../util/json.ts';
import { scheduleFactoryReset } from './danger.ts';
import { hang } from './hang.ts';
import type { SystemOptions } from './options.ts';
import type { SelftestParts } from './selftest.ts';
import { selftestCommands } from './selftest-console.ts';

/** Time for the reply to leave the UART before the restart. */
export const REPLY_GRACE_MS = 100;
export const MODE_NS = 'sys';
export const MODE_KEY = 'mode';

export function modeName(mode: Mode): string {
  return mode === 0 ? 'Notifier' : 'Orchestrator';
}

function basicCommands(k: Kernel): Command[] {
  const { hal } = k;
  return [
    { verb: 'PING', help: 'answer PONG', testOnly: false, maxArgs: 0, run: (c) => c.out('PONG') },
    { verb: 'STATUS', help: 'print the status line', maxArgs: 0, run: (c) => c.out(k.status.line()) },
    {
      verb: 'HEAP?',
      maxArgs: 0,
      help: 'collect garbage, then print heap figures in bytes (xs = live XS heap)',
      run: (c) => {
        hal.system.gc();
        const h = hal.system.heap();
        c.out(`xs=${h.xsNow} xsStatic=${h.xsStatic} xsRam=${h.xsNow - h.xsStatic} xsPeak=${h.xsPeak} xsReserved=${h.xsReserved} free=${h.freeInternal} largest=${h.largestBlock} minFree=${h.minFreeInternal} psram=${h.freePsram}${h.xsKeys === undefined ? '' : ` keys=${h.xsKeys}`}${h.xsStackPeak === undefined ? '' : ` stackPeak=${h.xsStackPeak}`}`);
      },
    },
    {
      verb: 'HEAPRESET',
      maxArgs: 0,
      help: 'reset the XS heap high-water (xsPeak), so a later HEAP? shows the peak of what ran in between',
      run: (c) => {
        hal.system.resetHeapPeak();
        c.out(`xsPeak=${hal.system.heap().xsPeak}`);
      },
    },
  ];
}

function restartCommands(k: Kernel, timeline: SystemOptions['timeline']): Command[] {
  const { hal } = k;
  const restartSoon = (reason: string): void => {
    hal.clock.setTimeout(() => hal.system.reboot(reason), REPLY_GRACE_MS);
  };
  return [
    {
      verb: 'MODE',
      usage: '<0 or 1>',
      help: 'switch to Notifier (0: BLE only) or Orchestrator (1: Wi-Fi, HTTP, assistant); saved, then the device restarts into it',
      run: (c) => {
        const arg = c.argv[0];
        if (c.argv.length !== 1 || (arg !== '0' && arg !== '1')) throw new CommandError(`usage: MODE <0 or 1> (now ${k.mode}, ${modeName(k.mode)})`);
        const mode: Mode = arg === '0' ? 0 : 1;
        if (mode === k.mode) {
          c.out(`mode=${mode} (${modeName(mode)}) already; nothing changed`);
          return;
        }
        try {
          k.store(MODE_NS).set(MODE_KEY, mode);
        } catch (e) {
          throw new CommandError(`mode not saved (${errorMessage(e)}); nothing changed`);
        }
        timeline.row('mode', `${modeName(k.mode)} (${k.mode}) -> ${modeName(mode)} (${mode}), from the console`);
        c.out(`mode=${mode} (${modeName(mode)}) saved; restarting`);
        restartSoon(`mode ${mode}`);
      },
    },
    {
      verb: 'REBOOT',
      maxArgs: 0,
      help: 'restart the device (reset reason software)',
      run: (c) => {
        c.out('restarting');
        restartSoon('console REBOOT');
      },
    },
    {
      verb: 'FACTRESET',
      usage: '[card]',
      help: 'factory reset: erase every setting but panel model, orientation, touch calibration and update slug (card: the SD card too), then restart',
      run: (c) => {
        const card = c.argv.length === 1 && c.argv[0]!.toLowerCase() === 'card';
        if (c.argv.length > 1 || (c.argv.length === 1 && !card)) throw new CommandError('usage: FACTRESET [card]');
        c.out(`factory reset${card ? ' with the SD card' : ' (the SD card is kept)'}; restarting`);
        scheduleFactoryReset(k, { eraseCard: card });
      },
    },
    {
      verb: 'HANG',
      maxArgs: 0,
      help: 'stop the main loop so the watchdog resets the device (reset reason watchdog)',
      run: (c) => {
        c.out('hanging: nothing feeds the watchdog now; it resets the device');
        hal.clock.setTimeout(() => hang(hal.clock, hal.system, (line) => k.log.error('system', line)), REPLY_GRACE_MS);
      },
    },
  ];
}

export function systemCommands(k: Kernel, timeline: SystemOptions['timeline'], selftest: SelftestParts): Command[] {
  return [...basicCommands(k), ...restartCommands(k, timeline), ...selftestCommands(selftest)];
}
