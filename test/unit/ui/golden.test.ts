// Golden images: every screen on each of the four boards (and the status
// screen in other orientations and themes), drawn from fixed views through
// the real renderer into a display fake, compared with the PNGs committed
// under test/fixtures/ui/ with a small tolerance.
//
// Regenerate them, after a deliberate change of the screens, with
//   UPDATE_UI_GOLDENS=1 npx vitest run test/unit/ui/golden.test.ts
// and look at every changed PNG before committing it. Without the variable a
// missing or different golden fails the test (the actual frame is written to
// the temporary folder the failure names), never silently.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardInfo } from '../../../boards/index.ts';
import { DEVICE_TYPES, type DeviceType } from '../../../src/hal/index.ts';
import { Fonts } from '../../../src/ui/fonts.ts';
import { layoutFor } from '../../../src/ui/layout.ts';
import { buildAssets } from '../../support/memhal.ts';
import { encodeQr, wifiJoinString } from '../../../src/ui/qr.ts';
import type { Rotation } from '../../../src/ui/raster.ts';
import { Renderer } from '../../../src/ui/renderer.ts';
import { menuScreen, noticeScreen, probeScreen, qrScreen, saverScreen, statusScreen, updateScreen, type Frame, type StatusView } from '../../../src/ui/screens.ts';
import { rgb565, THEMES } from '../../../src/ui/theme.ts';
import type { Layout } from '../../../src/ui/layout.ts';
import { VirtualClock } from '../../support/clock.ts';
import { CheckedDisplay, compareFrame, framePng, readQr } from '../../support/ui.ts';

const ROOT = join(import.meta.dirname, '../../fixtures/ui');
const UPDATE = process.env['UPDATE_UI_GOLDENS'] === '1';
/** Pixels (share of the frame) that may differ, by more than 24 per channel, from the golden. */
const TOLERANCE = 0.0002;

const SIGNIN_URL = 'http://192.168.1.50/?c=K7M3PQ9X';
const PASS = 'k7m3pq9xzr';

const status = (board: DeviceType): StatusView => ({
  name: 'Desk assistant',
  time: '09:41',
  date: 'Sun 22 Nov',
  zone: 'UTC+1',
  net: '192.168.1.50',
  battery: boardInfo(board).battery ? '80%' : null,
  state: 'Ready',
  tone: 'ok',
  reply: 'Your meeting with Anna is at 14:30 tomorrow. I added it to the calendar and set a reminder — Grüße ✓',
  replyDim: false,
  indicator: boardInfo(board).ringLeds ? null : { dots: [rgb565(0, 80, 255)] },
});

const dark = THEMES['dark']!;
const fonts = new Fonts(buildAssets());

const SCREENS: Record<string, (l: Layout, board: DeviceType) => Frame> = {
  status: (l, b) => statusScreen(l, dark, status(b)),
  update: (l) => updateScreen(l, dark, { title: 'Updating', version: 'to v0.2.0', pct: 42, detail: 'Do not unplug' }),
  signin: (l) =>
    qrScreen(
      l,
      dark,
      {
        title: 'Sign in',
        qr: encodeQr(SIGNIN_URL),
        label: 'http://192.168.1.50/?c=[hidden]',
        secret: true,
        lines: [{ text: 'Scan with your phone, or open' }, { text: SIGNIN_URL, tone: 'busy', secret: true }, { text: 'Code K7M3PQ9X', secret: true }, { text: 'New code in 99 s', tone: 'dim' }, { text: 'Tap to close', tone: 'dim' }],
        short: { text: 'K7M3PQ9X', secret: true },
      },
      'signin',
    ),
  wifi: (l) =>
    qrScreen(
      l,
      dark,
      {
        title: 'Join Wi-Fi',
        qr: encodeQr(wifiJoinString('Device-setup', PASS)),
        label: 'WIFI:T:WPA;S:Device-setup;P:[hidden];;',
        secret: true,
        lines: [{ text: 'Network: Device-setup' }, { text: `Password: ${PASS}`, secret: true }, { text: 'Then open http://192.168.4.1', tone: 'dim' }, { text: 'Tap to close', tone: 'dim' }],
        short: { text: PASS, secret: true },
      },
      'wifi',
    ),
  menu: (l) =>
    menuScreen(l, dark, {
      title: 'Settings',
      rows: [
        { id: 'close', label: 'Close', value: null },
        { id: 'bright', label: 'Brightness', short: 'Light', value: '75%' },
        { id: 'theme', label: 'Theme', value: 'dark' },
        { id: 'saver', label: 'Screen saver', short: 'Saver', value: '5 min' },
        { id: 'more', label: 'More...', short: 'More', value: '1/2' },
      ],
      pressed: 'theme',
      footer: '',
    }),
  saver: (l) => saverScreen(l, dark, { time: '09:41', date: 'Sun 22 Nov', driftX: 0.3, driftY: 0.6 }),
  notice: (l) => noticeScreen(l, dark, { title: 'Reminder', body: 'Stand up and stretch for a minute.', footer: 'Routines - tap to close' }),
  probe: (l) => probeScreen(l, { info: ['controller WxH', 'canvas normal', 'touch 100,50'], touch: { x: 100, y: 50 } }),
};

function draw(board: DeviceType, make: (l: Layout, b: DeviceType) => Frame, rotation: Rotation = 0): CheckedDisplay {
  const info = boardInfo(board);
  const display = new CheckedDisplay(info.display.width, info.display.height, 4096);
  const r = new Renderer(display, new VirtualClock());
  r.setRotation(rotation);
  const c = r.canvas();
  r.show(make(layoutFor(c.width, c.height, info.display.round, fonts), board).list);
  expect(r.flush()).toBe(true);
  expect(display.violations).toEqual([]);
  return display;
}

function check(name: string, d: CheckedDisplay): void {
  const path = join(ROOT, `${name}.png`);
  if (UPDATE) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, framePng(d.width, d.height, d.pixels));
    console.log(`golden written: ${path}`);
    return;
  }
  const actual = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'ui-golden-'));
    const out = join(dir, `${name.replace(/\//g, '-')}.png`);
    writeFileSync(out, framePng(d.width, d.height, d.pixels));
    return out;
  };
  if (!existsSync(path)) throw new Error(`no golden ${path}; the frame is at ${actual()} (UPDATE_UI_GOLDENS=1 writes goldens)`);
  const diff = compareFrame(d.width, d.height, d.pixels, readFileSync(path));
  if (!diff.sizeMatches || diff.differing > diff.total * TOLERANCE) {
    throw new Error(`${name}: ${diff.differing} of ${diff.total} pixels differ from ${path}; the frame is at ${actual()}`);
  }
}

describe('golden images of every screen on every board', () => {
  for (const board of DEVICE_TYPES) {
    for (const [screen, make] of Object.entries(SCREENS)) {
      it(`${board} ${screen}`, () => check(`${board}/${screen}`, draw(board, make)));
    }
  }

  it('status in the other mount orientations and themes (panel-35)', () => {
    check('panel-35/status-flipped', draw('panel-35', SCREENS['status']!, 180));
    check('panel-35/status-right', draw('panel-35', SCREENS['status']!, 90));
    for (const theme of ['light', 'contrast']) {
      check(`panel-35/status-${theme}`, draw('panel-35', (l, b) => statusScreen(l, THEMES[theme]!, status(b))));
    }
  });

  it('the QR codes on every board read back as the sign-in link and the Wi-Fi join string', () => {
    for (const board of DEVICE_TYPES) {
      const s = draw(board, SCREENS['signin']!);
      expect(readQr(s.width, s.height, s.pixels), board).toBe(SIGNIN_URL);
      const w = draw(board, SCREENS['wifi']!);
      expect(readQr(w.width, w.height, w.pixels), board).toBe(wifiJoinString('Device-setup', PASS));
    }
  });

  it('a failing comparison names the difference (the tolerance is small)', () => {
    const d = draw('panel-35', SCREENS['status']!);
    const changed = draw('panel-35', (l, b) => statusScreen(l, dark, { ...status(b), time: '09:42' }));
    const diff = compareFrame(d.width, d.height, changed.pixels, framePng(d.width, d.height, d.pixels));
    expect(diff.differing).toBeGreaterThan(diff.total * TOLERANCE);
  });
});
