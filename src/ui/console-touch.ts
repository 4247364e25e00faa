// The screen's commands in the console's Touch group: TAP and TAPUP inject
// touches through the same path as the panel's (so they walk the menu as a
// finger would), TOUCH? and TOUCHISO? report the panel and its isolation
// diagnostics, TCAL sets the calibration (kept by a factory reset).

import { CommandError } from '../core/console.ts';
import { int, type UiCommand } from './console-kit.ts';
import { formatCalibration, HOLD_MS, parseCalibration } from './touch.ts';
import type { Ui } from './ui.ts';

/** Draws what the touch led to and names the screen showing now. */
function where(ui: Ui): string {
  ui.flush();
  return `screen=${ui.screen()}`;
}

const tap: UiCommand = ({ dev, ui }) => ({
  verb: 'TAP',
  usage: '<x> <y> [HOLD]',
  help: `touch at display coordinates x y and release (a tap); with HOLD it stays down (a hold fires after ${HOLD_MS} ms) until TAPUP`,
  run: (call) => {
    const { display } = dev.hal;
    const hold = call.argv.length === 3 && call.argv[2]!.toUpperCase() === 'HOLD';
    if (call.argv.length !== 2 && !hold) throw new CommandError('usage: TAP <x> <y> [HOLD]');
    const x = int(call.argv[0], 0, display.width - 1, 'TAP <x> <y> [HOLD]');
    const y = int(call.argv[1], 0, display.height - 1, 'TAP <x> <y> [HOLD]');
    if (ui.touch.isDown()) throw new CommandError('a touch is already down (TAPUP releases it)');
    ui.flush();
    ui.handleTouch({ kind: 'down', x, y, rawX: x, rawY: y }, 'inject');
    if (hold) {
      call.out(`down at ${x},${y} (held: a hold fires after ${HOLD_MS} ms; TAPUP releases) ${where(ui)}`);
      return;
    }
    ui.handleTouch({ kind: 'up', x, y, rawX: x, rawY: y }, 'inject');
    call.out(`tap at ${x},${y} ${where(ui)}`);
  },
});

const tapUp: UiCommand = ({ ui }) => ({
  verb: 'TAPUP',
  help: 'release the touch TAP ... HOLD left down',
  maxArgs: 0,
  run: (call) => {
    const last = ui.touch.diagnostics().last;
    if (!ui.touch.isDown() || !last) throw new CommandError('no touch is down');
    ui.handleTouch({ kind: 'up', x: last.x, y: last.y, rawX: last.rawX, rawY: last.rawY }, 'inject');
    call.out(`up at ${last.x},${last.y} ${where(ui)}`);
  },
});

const touch: UiCommand = ({ dev, ui }) => ({
  verb: 'TOUCH?',
  help: 'the touch panel: controller, calibration, whether a touch is down, the last point, tap and hold counts',
  maxArgs: 0,
  run: (call) => {
    const d = ui.touch.diagnostics();
    const cal = ui.touch.calibration;
    const last = d.last ? `${d.last.kind} ${d.last.x},${d.last.y} raw=${d.last.rawX},${d.last.rawY} source=${d.last.source} at=${d.last.atMs}ms` : 'none';
    call.out(`present=${dev.hal.touch.present ? 1 : 0} controller=${dev.hal.board.touch?.controller ?? 'none'} cal=${cal ? formatCalibration(cal) : 'default'} down=${d.down ? 1 : 0}`);
    call.out(`last=${last} taps=${d.taps} holds=${d.holds} events=${d.events}`);
  },
});

const calibrate: UiCommand = ({ ui }) => ({
  verb: 'TCAL',
  usage: '[minX,maxX,minY,maxY[,flags]]',
  help: 'touch calibration (kept by factory reset): raw readings at the left, right, top and bottom edges; flags 1 swaps the raw axes; TCAL default clears it',
  run: (call) => {
    if (call.argv.length > 1) throw new CommandError('usage: TCAL [minX,maxX,minY,maxY[,flags]]');
    const arg = call.argv[0];
    if (arg !== undefined && arg.toLowerCase() === 'default') ui.setCalibration(null);
    else if (arg !== undefined) {
      const cal = parseCalibration(arg);
      if (typeof cal === 'string') throw new CommandError(`${cal}; nothing changed`);
      ui.setCalibration(cal);
    }
    const cal = ui.touch.calibration;
    call.out(cal ? `tcal=${formatCalibration(cal)} (stored)` : "tcal=default (the touch driver's own mapping)");
  },
});

const isolation: UiCommand = ({ ui }) => ({
  verb: 'TOUCHISO?',
  help: 'touch isolation diagnostics: events by source, orphans, ghosts, short presses, stuck contacts, touches the screen swallowed, the last raw and calibrated point',
  maxArgs: 0,
  run: (call) => {
    const d = ui.touch.diagnostics();
    call.out(`events=${d.events} panel=${d.panel} injected=${d.injected} orphans=${d.orphans} ghosts=${d.ghosts} shorts=${d.shorts} stuck=${d.stuck} stuckNow=${d.stuckNow ? 1 : 0} longestDown=${d.longestDownMs}ms`);
    call.out(`isolated: wake=${d.isolated.wake} busy=${d.isolated.busy} stuck=${d.isolated.stuck}`);
    call.out(d.last ? `last=${d.last.kind} raw=${d.last.rawX},${d.last.rawY} cal=${d.last.x},${d.last.y} source=${d.last.source}` : 'last=none');
    const verdict = d.stuckNow ? 'stuck' : d.ghosts + d.orphans > 0 ? 'noisy' : 'ok';
    call.out(`verdict=${verdict}`);
  },
});

export const TOUCH_COMMANDS: UiCommand[] = [tap, tapUp, touch, calibrate, isolation];
