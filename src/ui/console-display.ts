// The screen's commands in the console's Display group: the panel model
// (SCREEN, SCREEN?, TFTID?), its power and saver (TFTPWR?, SAVER), the
// redraw rate (TFTHZ), the mount (TFTFLIP), and the panel tests (TFTHEALTH?,
// TFTFILL?, TFTBREAK, PANELPROBE). What each means on this firmware is in
// docs/decisions.md ("Device UI: screens and touch").

import { CommandError } from '../core/console.ts';
import { int, type UiCommand } from './console-kit.ts';
import { DEFAULT_SCREEN, MAX_HZ, MAX_SAVER_MIN, postureName } from './settings.ts';
import { themeFor } from './theme.ts';

/** Tiles TFTBREAK makes fail. */
const BREAK_TILES = 4;

const screen: UiCommand = ({ dev, ui }) => {
  const controller = dev.hal.board.display.controller;
  return {
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
  };
};

const screenQuery: UiCommand = ({ dev, ui }) => ({
  verb: 'SCREEN?',
  help: 'the panel model, resolution, orientation, theme, brightness and the screen showing',
  maxArgs: 0,
  run: (call) => {
    const { hal } = dev;
    const l = ui.layoutNow();
    const named = dev.actions.config('theme');
    const theme = themeFor(named);
    call.out(`screen=${ui.settings.screen()} controller=${hal.board.display.controller} size=${hal.display.width}x${hal.display.height} canvas=${l.width}x${l.height} round=${l.round ? 1 : 0}`);
    call.out(`posture=${postureName(ui.renderer.rotation)} theme=${theme.theme.name}${theme.known ? '' : ` (unknown theme ${String(named)}: default shown)`} brightness=${ui.brightness()} (${ui.brightnessSource()}) showing=${ui.screen()}`);
  },
});

const saver: UiCommand = ({ ui }) => ({
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

const health: UiCommand = ({ dev, ui }) => ({
  verb: 'TFTHEALTH?',
  help: 'display health: tiles, pixels, largest tile, errors and back-off, pending pixels, last frame time',
  maxArgs: 0,
  run: (call) => {
    const s = ui.renderer.stats();
    // A tile error in the last 10 s with pixels still pending: the panel is not catching up.
    const recent = s.lastErrorAt !== null && dev.hal.clock.monoMs() - s.lastErrorAt < 10_000;
    const ok = !recent || s.pendingPx === 0;
    call.out(
      `ok=${ok ? 1 : 0} frames=${s.frames} tiles=${s.tiles} pixels=${s.pixels} largestTile=${s.largestTile}px limit=${ui.renderer.tilePx}px errors=${s.errors} lastError=${s.lastError ?? '-'} pending=${s.pendingPx}px lastFrame=${Math.round(s.lastFrameMs)}ms brightness=${ui.brightness()}`,
    );
    if (!ok) throw new CommandError(`display unhealthy: ${s.lastError ?? 'tiles failing'}`);
  },
});

const hz: UiCommand = ({ ui }) => ({
  verb: 'TFTHZ',
  usage: '[hz]',
  help: `the redraw rate: screen ticks per second (1-${MAX_HZ}); each tick draws a bounded amount`,
  run: (call) => {
    if (call.argv.length > 1) throw new CommandError('usage: TFTHZ [hz]');
    if (call.argv.length === 1) ui.setHz(int(call.argv[0], 1, MAX_HZ, 'TFTHZ [hz]'));
    call.out(`hz=${ui.settings.hz()} ticks=${ui.ticksRun()}`);
  },
});

const fill: UiCommand = ({ dev, ui }) => ({
  verb: 'TFTFILL?',
  help: 'fill-rate test: the whole panel red, green, blue through the HAL in tiles, timed; then the screen again',
  maxArgs: 0,
  run: (call) => {
    const px = dev.hal.display.width * dev.hal.display.height;
    for (const [name, color] of [['red', 0xf800], ['green', 0x07e0], ['blue', 0x001f]] as const) {
      const r = ui.renderer.fillTest(color);
      const rate = r.ms > 0 ? `${((px / r.ms) * 1000 / 1e6).toFixed(2)} Mpx/s` : 'under 1 ms';
      call.out(`${name}: ${px} px in ${r.tiles} tiles, ${r.ms.toFixed(1)} ms (${rate})`);
    }
    ui.flush();
    call.out(`redrawn: ${ui.screen()}`);
  },
});

const id: UiCommand = ({ dev, ui }) => ({
  verb: 'TFTID?',
  help: 'the display identity: controller, panel model, resolution, mounting, touch controller',
  maxArgs: 0,
  run: (call) => {
    const { board } = dev.hal;
    const d = board.display;
    call.out(`controller=${d.controller} model=${ui.settings.screen()} size=${d.width}x${d.height} rotation=${d.rotation} round=${ui.layoutNow().round ? 1 : 0} touch=${board.touch?.controller ?? 'none'} board=${board.type}`);
  },
});

const power: UiCommand = ({ ui }) => ({
  verb: 'TFTPWR?',
  help: 'panel power: backlight level and its source, saver state and delay',
  maxArgs: 0,
  run: (call) => {
    const level = ui.brightness();
    const s = ui.saverMinutes();
    const state = level === 0 ? 'dark' : ui.screen() === 'saver' ? 'saver' : 'on';
    call.out(`power=${state} backlight=${level} source=${ui.brightnessSource()} setting=${ui.settings.brightness()} saver=${s.min}min (${s.source}) idle=${Math.round(ui.idleMs() / 1000)}s`);
  },
});

const flip: UiCommand = ({ ui }) => ({
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

const breakTiles: UiCommand = ({ ui }) => ({
  verb: 'TFTBREAK',
  help: `make the next ${BREAK_TILES} tiles fail as a panel that stops answering would (recovery test)`,
  maxArgs: 0,
  run: (call) => {
    ui.renderer.injectFaults(BREAK_TILES);
    ui.renderer.invalidateAll();
    call.out(`the next ${BREAK_TILES} tiles fail; TFTHEALTH? reports them; the screen redraws after the back-off`);
  },
});

const probe: UiCommand = ({ ui }) => ({
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

export const DISPLAY_COMMANDS: UiCommand[] = [screen, screenQuery, saver, health, hz, fill, id, power, flip, breakTiles, probe];
