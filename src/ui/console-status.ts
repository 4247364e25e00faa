// The screen's commands in the console's Status group: RENDER? (the frame
// described and hashed, with the fonts and the characters drawn as boxes for
// want of a glyph; the simulator also saves the panel as display.png),
// MENU? (the menu's rows and where to TAP them) and RAWFRAME? (the raw
// frame's checksum and the renderer's counters).

import { CommandError } from '../core/console.ts';
import type { UiCommand } from './console-kit.ts';
import { frameDigest } from './frame-digest.ts';
import { describeItem } from './list.ts';
import { postureName } from './settings.ts';

const render: UiCommand = ({ dev, sha256, ui }) => ({
  verb: 'RENDER?',
  help: 'draw the screen now and describe it: screen, items, frame sha256; the simulator also saves the panel as display.png',
  maxArgs: 0,
  run: (call) => {
    const { hal } = dev;
    if (!ui.flush()) throw new CommandError(`display: a tile failed (${ui.renderer.stats().lastError ?? 'unknown'})`);
    const list = ui.renderer.current()!;
    const d = frameDigest(sha256, ui);
    // characters the fonts have no glyph for, drawn as boxes: in this frame, and laid out since boot
    let missing = 0;
    for (const item of list.items) if (item.kind === 'text') missing += item.run.missing;
    const fonts = ui.fonts;
    call.out(
      `screen=${list.screen} size=${hal.display.width}x${hal.display.height} canvas=${list.width}x${list.height} posture=${postureName(ui.renderer.rotation)} theme=${ui.theme().name} items=${list.items.length} fonts=${fonts.real ? 'noto' : 'bitmap'} cjk=${fonts.cjk ? `${fonts.cjk.px}px` : 'none'} missing=${missing} missingSinceBoot=${fonts.stats.missing}`,
    );
    for (const item of list.items) call.out(describeItem(item));
    call.out(`frame=${d.hex}${d.redacted ? ' redacted=1' : ''}`);
    const snap = hal.display.snapshot?.();
    if (snap) call.out(`png=${snap.path} panel=${snap.sha256} match=${d.redacted ? 'n/a (redacted)' : snap.sha256 === d.hex ? 'yes' : 'no'}`);
    else call.out('png=none (this host cannot read the panel back; GET /api/ui/frame returns the frame as PNG)');
  },
});

const menu: UiCommand = ({ ui }) => ({
  verb: 'MENU?',
  help: 'the settings menu: open or not, page, each row with its value and where to TAP it (display coordinates)',
  maxArgs: 0,
  run: (call) => {
    ui.flush();
    const m = ui.menuState();
    call.out(`screen=${ui.screen()} open=${m.open ? 1 : 0} page=${m.page + 1}/${m.pages} pressed=${m.pressed ?? '-'}`);
    for (const r of m.rows) {
      const d = r.display;
      call.out(`${r.id} "${r.label}"${r.value !== null ? ` value="${r.value}"` : ''} at=${d.x},${d.y},${d.w}x${d.h} tap=${d.x + (d.w >> 1)},${d.y + (d.h >> 1)}`);
    }
  },
});

const rawFrame: UiCommand = ({ sha256, ui }) => ({
  verb: 'RAWFRAME?',
  help: 'the raw frame: format, size, sha256 of the RGB565 pixels, tile and frame counters',
  maxArgs: 0,
  run: (call) => {
    ui.flush();
    const d = frameDigest(sha256, ui);
    const s = ui.renderer.stats();
    call.out(`format=rgb565 order=display-rows bytes=${d.bytes} sha256=${d.hex}${d.redacted ? ' redacted=1' : ''}`);
    call.out(`tile<=${ui.renderer.tilePx}px largestTile=${s.largestTile}px tiles=${s.tiles} pixels=${s.pixels} frames=${s.frames} lastFrame=${s.lastFramePx}px/${Math.round(s.lastFrameMs)}ms pending=${s.pendingPx}px build=${ui.lastBuild().toFixed(1)}ms`);
  },
});

export const STATUS_COMMANDS: UiCommand[] = [render, menu, rawFrame];
