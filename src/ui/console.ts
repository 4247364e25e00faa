// The screen's console commands (test builds): RENDER?, MENU?, RAWFRAME?
// (Status group), the Display group (SCREEN, SCREEN?, SAVER, TFTHEALTH?,
// TFTHZ, TFTFILL?, TFTID?, TFTPWR?, TFTFLIP, TFTBREAK, PANELPROBE) and the
// Touch group (TAP, TAPUP, TOUCH?, TCAL, TOUCHISO?). What each one means on
// this firmware is in docs/decisions.md ("Device UI: screens and touch").
// No command prints the setup passphrase: frames leave redacted.

import { CommandError, type CommandCall } from '../console/console.ts';
import type { Context } from '../core/context.ts';
import { toHex } from '../util/encoding.ts';
import { describeItem } from './list.ts';
import { postureName, DEFAULT_SCREEN, MAX_HZ, MAX_SAVER_MIN } from './settings.ts';
import { themeFor } from './theme.ts';
import { formatCalibration, HOLD_MS, parseCalibration } from './touch.ts';
import type { Ui } from './ui.ts';

/** Tiles TFTBREAK makes fail. */
export const BREAK_TILES = 4;
// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const INTEGER = /^-?\d+$/;

function int(text: string | undefined, min: number, max: number, usage: string): number {
  if (text === undefined || !INTEGER.test(text)) throw new CommandError(`usage: ${usage}`);
  const n = Number(text);
  if (n < min || n > max) throw new CommandError(`out of range: ${min}-${max}`);
  return n;
}

/** sha256 of the frame as the panel holds it (RGB565, host order, display rows top to bottom); secrets redacted. */
export function frameDigest(ctx: Context, ui: Ui): { hex: string; redacted: boolean; bytes: number } {
  const list = ui.renderer.current();
  const redacted = !!list?.items.some((i) => (i.kind === 'text' || i.kind === 'qr') && i.secret);
  const h = ctx.hotspots.sha256.create();
  let bytes = 0;
  ui.renderer.eachBand(true, (px) => {
    h.update(new Uint8Array(px.buffer, px.byteOffset, px.byteLength));
    bytes += px.byteLength;
  });
  return { hex: toHex(h.digest()), redacted, bytes };
}

export function installUiConsole(ctx: Context, ui: Ui): void {
  const { hal } = ctx;
  const c = ctx.console;
  const noArgs = (call: CommandCall, verb: string): void => {
    if (call.argv.length) throw new CommandError(`usage: ${verb} (no arguments)`);
  };

  // --- Status group ----------------------------------------------------------

  c.register({
    verb: 'RENDER?',
    help: 'draw the screen now and describe it: screen, items, frame sha256; the simulator also saves the panel as display.png',
    run: (call) => {
      noArgs(call, 'RENDER?');
      if (!ui.flush()) throw new CommandError(`display: a tile failed (${ui.renderer.stats().lastError ?? 'unknown'})`);
      const list = ui.renderer.current()!;
      const d = frameDigest(ctx, ui);
      call.out(`screen=${list.screen} size=${hal.display.width}x${hal.display.height} canvas=${list.width}x${list.height} posture=${postureName(ui.renderer.rotation)} theme=${ui.theme().name} items=${list.items.length}`);
      for (const item of list.items) call.out(describeItem(item));
      call.out(`frame=${d.hex}${d.redacted ? ' redacted=1' : ''}`);
      const snap = hal.display.snapshot?.();
      if (snap) call.out(`png=${snap.path} panel=${snap.sha256} match=${d.redacted ? 'n/a (redacted)' : snap.sha256 === d.hex ? 'yes' : 'no'}`);
      else call.out('png=none (this host cannot read the panel back; GET /api/ui/frame returns the frame as PNG)');
    },
  });

  c.register({
    verb: 'MENU?',
    help: 'the settings menu: open or not, page, each row with its value and where to TAP it (display coordinates)',
    run: (call) => {
      noArgs(call, 'MENU?');
      ui.flush();
      const m = ui.menuState();
      call.out(`screen=${ui.screen()} open=${m.open ? 1 : 0} page=${m.page + 1}/${m.pages} pressed=${m.pressed ?? '-'}`);
      for (const r of m.rows) {
        const d = r.display;
        call.out(`${r.id} "${r.label}"${r.value !== null ? ` value="${r.value}"` : ''} at=${d.x},${d.y},${d.w}x${d.h} tap=${d.x + (d.w >> 1)},${d.y + (d.h >> 1)}`);
      }
    },
  });

  c.register({
    verb: 'RAWFRAME?',
    help: 'the raw frame: format, size, sha256 of the RGB565 pixels, tile and frame counters',
    run: (call) => {
      noArgs(call, 'RAWFRAME?');
      ui.flush();
      const d = frameDigest(ctx, ui);
      const s = ui.renderer.stats();
      call.out(`format=rgb565 order=display-rows bytes=${d.bytes} sha256=${d.hex}${d.redacted ? ' redacted=1' : ''}`);
      call.out(`tile<=${ui.renderer.tilePx}px largestTile=${s.largestTile}px tiles=${s.tiles} pixels=${s.pixels} frames=${s.frames} lastFrame=${s.lastFramePx}px/${Math.round(s.lastFrameMs)}ms pending=${s.pendingPx}px build=${ui.lastBuild().toFixed(1)}ms`);
    },
  });

  // --- Display group -----------------------------------------------------------

  const controller = hal.board.display.controller;
  c.register({
    verb: 'SCREEN',
    usage: '<tft>',
    help: `the panel model (kept by factory reset): tft, the board's own ${controller}; eink is a legacy value that binds no display`,
    run: (call) => {
      if (call.argv.length !== 1) throw new CommandError('usage: SCREEN <tft>');
      const v = call.argv[0]!.toLowerCase();
      if (v === 'eink') throw new CommandError('eink: a frozen legacy value that binds no supported display; nothing changed');
      if (v !== DEFAULT_SCREEN && v !== controller) throw new CommandError(`unknown panel model ${call.argv[0]} (this board: tft = ${controller}); nothing changed`);
      ui.settings.setScreen(DEFAULT_SCREEN);
      ui.renderer.invalidateAll();
      call.out(`screen=${DEFAULT_SCREEN} controller=${controller}`);
    },
  });

  c.register({
    verb: 'SCREEN?',
    help: 'the panel model, resolution, orientation, theme, brightness and the screen showing',
    run: (call) => {
      noArgs(call, 'SCREEN?');
      const l = ui.layoutNow();
      const theme = themeFor(ctx.actions.config('theme'));
      const named = ctx.actions.config('theme');
      call.out(`screen=${ui.settings.screen()} controller=${controller} size=${hal.display.width}x${hal.display.height} canvas=${l.width}x${l.height} round=${l.round ? 1 : 0}`);
      call.out(`posture=${postureName(ui.renderer.rotation)} theme=${theme.theme.name}${theme.known ? '' : ` (unknown theme ${String(named)}: default shown)`} brightness=${ui.brightness()} (${ui.brightnessSource()}) showing=${ui.screen()}`);
    },
  });

  c.register({
    verb: 'SAVER',
    usage: '[min]',
    help: `the screen saver's idle delay in minutes (0-${MAX_SAVER_MIN}, 0 = never; sleepOvr overrides it); SAVER now starts it`,
    run: (call) => {
      if (call.argv.length > 1) throw new CommandError('usage: SAVER [min]');
      if (call.argv[0]?.toLowerCase() === 'now') {
        ui.startSaver();
        ui.flush();
        call.out(`screen=${ui.screen()}`);
        return;
      }
      if (call.argv.length === 1) ui.settings.setSaverMin(int(call.argv[0], 0, MAX_SAVER_MIN, 'SAVER [min]'));
      const s = ui.saverMinutes();
      call.out(`saver=${s.min ? `${s.min} min` : 'never'} (${s.source}) setting=${ui.settings.saverMin()} idle=${Math.round(ui.idleMs() / 1000)}s showing=${ui.screen()}`);
      if (call.argv.length === 1 && s.source === 'sleepOvr') call.out('note: sleepOvr is set and wins until cleared');
    },
  });

  c.register({
    verb: 'TFTHEALTH?',
    help: 'display health: tiles, pixels, largest tile, errors and back-off, pending pixels, last frame time',
    run: (call) => {
      noArgs(call, 'TFTHEALTH?');
      const s = ui.renderer.stats();
      const recent = s.lastErrorAt !== null && hal.clock.monoMs() - s.lastErrorAt < 10_000;
      const ok = !recent || s.pendingPx === 0;
      call.out(
        `ok=${ok ? 1 : 0} frames=${s.frames} tiles=${s.tiles} pixels=${s.pixels} largestTile=${s.largestTile}px limit=${ui.renderer.tilePx}px errors=${s.errors} lastError=${s.lastError ?? '-'} pending=${s.pendingPx}px lastFrame=${Math.round(s.lastFrameMs)}ms brightness=${ui.brightness()}`,
      );
      if (!ok) throw new CommandError(`display unhealthy: ${s.lastError ?? 'tiles failing'}`);
    },
  });

  c.register({
    verb: 'TFTHZ',
    usage: '[hz]',
    help: `the redraw rate: screen ticks per second (1-${MAX_HZ}); each tick draws a bounded amount`,
    run: (call) => {
      if (call.argv.length > 1) throw new CommandError('usage: TFTHZ [hz]');
      if (call.argv.length === 1) ui.setHz(int(call.argv[0], 1, MAX_HZ, 'TFTHZ [hz]'));
      call.out(`hz=${ui.settings.hz()} ticks=${ui.ticksRun()}`);
    },
  });

  c.register({
    verb: 'TFTFILL?',
    help: 'fill-rate test: the whole panel red, green, blue through the HAL in tiles, timed; then the screen again',
    run: (call) => {
      noArgs(call, 'TFTFILL?');
      const px = hal.display.width * hal.display.height;
      for (const [name, color] of [['red', 0xf800], ['green', 0x07e0], ['blue', 0x001f]] as const) {
        const r = ui.renderer.fillTest(color);
        const rate = r.ms > 0 ? `${((px / r.ms) * 1000 / 1e6).toFixed(2)} Mpx/s` : 'under 1 ms';
        call.out(`${name}: ${px} px in ${r.tiles} tiles, ${r.ms.toFixed(1)} ms (${rate})`);
      }
      ui.flush();
      call.out(`redrawn: ${ui.screen()}`);
    },
  });

  c.register({
    verb: 'TFTID?',
    help: 'the display identity: controller, panel model, resolution, mounting, touch controller',
    run: (call) => {
      noArgs(call, 'TFTID?');
      const d = hal.board.display;
      call.out(`controller=${d.controller} model=${ui.settings.screen()} size=${d.width}x${d.height} rotation=${d.rotation} round=${ui.layoutNow().round ? 1 : 0} touch=${hal.board.touch?.controller ?? 'none'} board=${hal.board.type}`);
    },
  });

  c.register({
    verb: 'TFTPWR?',
    help: 'panel power: backlight level and its source, saver state and delay',
    run: (call) => {
      noArgs(call, 'TFTPWR?');
      const level = ui.brightness();
      const s = ui.saverMinutes();
      const state = level === 0 ? 'dark' : ui.screen() === 'saver' ? 'saver' : 'on';
      call.out(`power=${state} backlight=${level} source=${ui.brightnessSource()} setting=${ui.settings.brightness()} saver=${s.min}min (${s.source}) idle=${Math.round(ui.idleMs() / 1000)}s`);
    },
  });

  c.register({
    verb: 'TFTFLIP',
    usage: '<0 or 1>',
    help: 'mount the screen upside down (1) or upright (0); kept by factory reset; touch follows',
    run: (call) => {
      if (call.argv.length !== 1 || (call.argv[0] !== '0' && call.argv[0] !== '1')) throw new CommandError('usage: TFTFLIP <0 or 1>');
      ui.setPosture(call.argv[0] === '1' ? 180 : 0);
      ui.flush();
      call.out(`posture=${postureName(ui.renderer.rotation)}`);
    },
  });

  c.register({
    verb: 'TFTBREAK',
    help: `make the next ${BREAK_TILES} tiles fail as a panel that stops answering would (recovery test)`,
    run: (call) => {
      noArgs(call, 'TFTBREAK');
      ui.renderer.injectFaults(BREAK_TILES);
      ui.renderer.invalidateAll();
      call.out(`the next ${BREAK_TILES} tiles fail; TFTHEALTH? reports them; the screen redraws after the back-off`);
    },
  });

  c.register({
    verb: 'PANELPROBE',
    usage: '<0 or 1>',
    help: 'show (1) or leave (0) the panel test card: edges, corners, colour order, centre, last touch',
    run: (call) => {
      if (call.argv.length !== 1 || (call.argv[0] !== '0' && call.argv[0] !== '1')) throw new CommandError('usage: PANELPROBE <0 or 1>');
      ui.setProbe(call.argv[0] === '1');
      ui.flush();
      call.out(`probe=${ui.probing() ? 'on' : 'off'} showing=${ui.screen()}`);
    },
  });

  // --- Touch group ---------------------------------------------------------------

  const where = (): string => {
    ui.flush();
    return `screen=${ui.screen()}`;
  };

  c.register({
    verb: 'TAP',
    usage: '<x> <y> [HOLD]',
    help: `touch at display coordinates x y and release (a tap); with HOLD it stays down (a hold fires after ${HOLD_MS} ms) until TAPUP`,
    run: (call) => {
      const hold = call.argv.length === 3 && call.argv[2]!.toUpperCase() === 'HOLD';
      if (call.argv.length !== 2 && !hold) throw new CommandError('usage: TAP <x> <y> [HOLD]');
      const x = int(call.argv[0], 0, hal.display.width - 1, 'TAP <x> <y> [HOLD]');
      const y = int(call.argv[1], 0, hal.display.height - 1, 'TAP <x> <y> [HOLD]');
      if (ui.touch.isDown()) throw new CommandError('a touch is already down (TAPUP releases it)');
      ui.flush();
      ui.handleTouch({ kind: 'down', x, y, rawX: x, rawY: y }, 'inject');
      if (hold) {
        call.out(`down at ${x},${y} (held: a hold fires after ${HOLD_MS} ms; TAPUP releases) ${where()}`);
        return;
      }
      ui.handleTouch({ kind: 'up', x, y, rawX: x, rawY: y }, 'inject');
      call.out(`tap at ${x},${y} ${where()}`);
    },
  });

  c.register({
    verb: 'TAPUP',
    help: 'release the touch TAP ... HOLD left down',
    run: (call) => {
      noArgs(call, 'TAPUP');
      const last = ui.touch.diagnostics().last;
      if (!ui.touch.isDown() || !last) throw new CommandError('no touch is down');
      ui.handleTouch({ kind: 'up', x: last.x, y: last.y, rawX: last.rawX, rawY: last.rawY }, 'inject');
      call.out(`up at ${last.x},${last.y} ${where()}`);
    },
  });

  c.register({
    verb: 'TOUCH?',
    help: 'the touch panel: controller, calibration, whether a touch is down, the last point, tap and hold counts',
    run: (call) => {
      noArgs(call, 'TOUCH?');
      const d = ui.touch.diagnostics();
      const cal = ui.touch.calibration;
      const last = d.last ? `${d.last.kind} ${d.last.x},${d.last.y} raw=${d.last.rawX},${d.last.rawY} source=${d.last.source} at=${d.last.atMs}ms` : 'none';
      call.out(`present=${hal.touch.present ? 1 : 0} controller=${hal.board.touch?.controller ?? 'none'} cal=${cal ? formatCalibration(cal) : 'default'} down=${d.down ? 1 : 0}`);
      call.out(`last=${last} taps=${d.taps} holds=${d.holds} events=${d.events}`);
    },
  });

  c.register({
    verb: 'TCAL',
    usage: '[minX,maxX,minY,maxY[,flags]]',
    help: 'touch calibration (kept by factory reset): raw readings at the left, right, top and bottom edges; flags 1 swaps the raw axes; TCAL default clears it',
    run: (call) => {
      if (call.argv.length > 1) throw new CommandError('usage: TCAL [minX,maxX,minY,maxY[,flags]]');
      if (call.argv.length === 1) {
        if (call.argv[0]!.toLowerCase() === 'default') ui.setCalibration(null);
        else {
          const cal = parseCalibration(call.argv[0]!);
          if (typeof cal === 'string') throw new CommandError(`${cal}; nothing changed`);
          ui.setCalibration(cal);
        }
      }
      const cal = ui.touch.calibration;
      call.out(cal ? `tcal=${formatCalibration(cal)} (stored)` : "tcal=default (the touch driver's own mapping)");
    },
  });

  c.register({
    verb: 'TOUCHISO?',
    help: 'touch isolation diagnostics: events by source, orphans, ghosts, short presses, stuck contacts, touches the screen swallowed, the last raw and calibrated point',
    run: (call) => {
      noArgs(call, 'TOUCHISO?');
      const d = ui.touch.diagnostics();
      call.out(`events=${d.events} panel=${d.panel} injected=${d.injected} orphans=${d.orphans} ghosts=${d.ghosts} shorts=${d.shorts} stuck=${d.stuck} stuckNow=${d.stuckNow ? 1 : 0} longestDown=${d.longestDownMs}ms`);
      call.out(`isolated: wake=${d.isolated.wake} busy=${d.isolated.busy} stuck=${d.isolated.stuck}`);
      call.out(d.last ? `last=${d.last.kind} raw=${d.last.rawX},${d.last.rawY} cal=${d.last.x},${d.last.y} source=${d.last.source}` : 'last=none');
      const verdict = d.stuckNow ? 'stuck' : d.ghosts + d.orphans > 0 ? 'noisy' : 'ok';
      call.out(`verdict=${verdict}`);
    },
  });
}
