// Boots the whole device: 8 of its tests follow the screen across Wi-Fi setup, replies, reset, updates and the scheduler.
// The device screen on the booted firmware (in-memory HAL, virtual clock):
// which screen shows when, a touch walk through the menu (console TAP and
// panel events under a calibration), holds and releases, the saver and the
// touch that wakes it, the clock in the owner's time zone (daylight saving,
// the menu's zones), the sign-in QR and its refreshed code, the Wi-Fi join
// QR (the passphrase on the panel only), settings kept by a factory reset,
// the LED indicator, update progress, Notifier mode, and every Display and
// Touch console command ending OK or ERR. The tests that need nothing else
// of the device (the LED indicator, Notifier mode, the menu walk, the
// sign-in hold, the mount, the saver, the console commands) mount the
// screen alone on a test kernel (test/support/screen-rig.ts).

import { describe, expect, it, vi } from 'vitest';
import { boot, type Device } from '../../../src/main.ts';
import type { RoundResult } from '../../../src/contracts/index.ts';
import { SCAN_LIFETIME_MS } from '../../../src/auth/signin.ts';
import { wifiJoinString } from '../../../src/ui/qr.ts';
import { SIGNIN_REFRESH_MS } from '../../../src/ui/signin-screen.ts';
import { HOLD_MS } from '../../../src/ui/touch.ts';
import { THEMES } from '../../../src/ui/theme.ts';
import type { DeviceType } from '../../../src/hal/index.ts';
import type { HttpResponse } from '../../../src/net/http/types.ts';
import { flushJobs } from '../../support/clock.ts';
import { createMemHal, RebootSignal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { HOME_NETWORK, screenRig, type ScreenRig } from '../../support/screen-rig.ts';
import { readPng, readQr } from '../../support/ui.ts';
import { TestWire, turnResult } from '../../support/test-wire.ts';

class ReplyWire extends TestWire {
  reply = 'It is sunny.';
  protected override answer(): RoundResult {
    return turnResult({ reply: this.reply });
  }
}

interface Rig {
  mem: MemHal;
  device: Device;
  wire: ReplyWire;
  cmd(line: string): Promise<string>;
}

function start(options: { board?: DeviceType; provisioned?: boolean; mode?: 0 | 1; mem?: MemHal } = {}): Rig {
  const mem = options.mem ?? createMemHal({ board: options.board ?? 'panel-35' });
  mem.wifi.networks.set('Home', 'home-pass-1');
  if (options.provisioned !== false && !options.mem) mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  if (options.mode !== undefined) mem.nvs.set('sys', 'mode', options.mode);
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  const wire = new ReplyWire();
  const device = boot(mem.hal, { wire });
  return { mem, device, wire, cmd: typer(mem) };
}

/** Types a console line and answers what the console wrote back. */
function typer(mem: MemHal): (line: string) => Promise<string> {
  return async (line) => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 6; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
}

/** The screen alone on a test kernel (test/support/screen-rig.ts): for the tests that need nothing else of the device. */
function mountScreen(options: { board?: DeviceType; mode?: 0 | 1 } = {}): { mem: MemHal; device: ScreenRig; cmd(line: string): Promise<string> } {
  const mem = createMemHal({ board: options.board ?? 'panel-35' });
  const device = screenRig({ mem, mode: options.mode ?? 1, network: options.mode === 0 ? undefined : HOME_NETWORK });
  return { mem, device, cmd: typer(mem) };
}

/** Rows of MENU? as {id: {value, tap: [x, y]}}. */
function menuRows(text: string): Map<string, { value: string | null; tap: [number, number] }> {
  const rows = new Map<string, { value: string | null; tap: [number, number] }>();
  for (const line of text.split('\n')) {
    const m = /^(\w+) "[^"]*"(?: value="([^"]*)")? at=\S+ tap=(\d+),(\d+)$/.exec(line);
    if (m) rows.set(m[1]!, { value: m[2] ?? null, tap: [Number(m[3]), Number(m[4])] });
  }
  return rows;
}

async function get(device: Device, path: string, token = device.ctx.token.reveal()): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const [p, q = ''] = path.split('?') as [string, string?];
  const res: HttpResponse = await device.ctx.router.handle({ method: 'GET', path: p, query: q, headers: new Map([['x-device-token', token]]), body: new Uint8Array(0), remote: 'test' });
  const chunks: Buffer[] = [];
  if (res.stream) {
    await new Promise<void>((done, fail) =>
      res.stream!.start({ write: (c) => (chunks.push(Buffer.from(c as Uint8Array)), true), onDrain: null, end: done, abort: (r) => fail(new Error(r)) }),
    );
  } else if (res.body !== undefined) chunks.push(Buffer.from(res.body as string));
  return { status: res.status, headers: res.headers ?? {}, body: Buffer.concat(chunks) };
}

const pixelsOf = (mem: MemHal): Uint16Array => mem.display.pixels;

describe('which screen shows', () => {
  it('an unprovisioned device opens on the Wi-Fi join QR; the passphrase is on the panel only', async () => {
    const { mem, device, cmd } = start({ provisioned: false });
    await mem.clock.advance(1500);
    device.ui.flush();
    expect(device.ui.screen()).toBe('wifi');
    const pass = /pass=(\w+)/.exec(await cmd('APINFO?'))![1]!;
    expect(readQr(mem.display.width, mem.display.height, pixelsOf(mem))).toBe(wifiJoinString('Device-setup', pass));
    // Off the device: RENDER?, RAWFRAME?, the route's description and PNG never carry it.
    const render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=wifi /);
    expect(render).toContain('[hidden]');
    expect(render).toMatch(/redacted=1/);
    expect(render).not.toContain(pass);
    expect(await cmd('RAWFRAME?')).not.toContain(pass);
    const desc = await get(device, '/api/ui/frame?describe=1');
    expect(desc.status).toBe(200);
    expect(desc.body.toString()).not.toContain(pass);
    const png = await get(device, '/api/ui/frame');
    expect(png.headers['Content-Type']).toBe('image/png');
    const frame = readPng(png.body);
    const px = new Uint16Array(frame.width * frame.height);
    for (let i = 0; i < px.length; i++) px[i] = ((frame.data[i * 4]! >> 3) << 11) | ((frame.data[i * 4 + 1]! >> 2) << 5) | (frame.data[i * 4 + 2]! >> 3);
    expect(readQr(frame.width, frame.height, px)).toBeNull();
    expect(mem.system.logs.join('\n')).not.toContain(pass);
    // A tap puts it away; the status screen says what to do.
    await cmd('TAP 240 160');
    expect(device.ui.screen()).toBe('status');
    expect(await cmd('RENDER?')).toContain('"Set up Wi-Fi"');
  });

  it('the status screen: time, state while a turn runs, the owner\'s last reply, network and battery', async () => {
    const { mem, device, wire, cmd } = start();
    await mem.clock.advance(1500);
    let render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=status size=480x320 canvas=480x320 posture=normal theme=dark/);
    expect(render).toContain('"09:00"');
    expect(render).toContain('"192.168.1.50');
    expect(render).toContain('80%');
    expect(render).toContain('"Ready"');
    let busy = false;
    wire.round = async () => {
      busy = device.assistant.engine.busy;
      device.ui.tick();
      render = device.ui.frame()!.list.items.map((i) => (i.kind === 'text' ? i.text : '')).join('|');
      const json = JSON.stringify({ reply: 'Tea is at 4. Grüße!', memory: '', ask: '' });
      return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
    };
    await device.assistant.ownerTurn('console', 'when is tea?', 'console');
    expect(busy).toBe(true);
    expect(render).toContain('Thinking...');
    await mem.clock.advance(200);
    render = await cmd('RENDER?');
    expect(render).toContain('"Tea is at 4. Grüße!"');
    expect(render).toContain('"Ready"');
    // A member's (non-admin) turn does not reach the owner's screen.
    wire.reply = 'secret for a guest';
    await device.assistant.engine.run({ chat: 'guest-chat', text: 'hi', person: null, admin: false, origin: 'chat' });
    await mem.clock.advance(200);
    expect(await cmd('RENDER?')).not.toContain('secret for a guest');
    // The minute changes: only the clock's box is drawn again.
    const before = mem.display.largestTile;
    const sent = device.ui.renderer.stats().pixels;
    await mem.clock.advance(60_000);
    device.ui.flush();
    const redrawn = device.ui.renderer.stats().pixels - sent;
    expect(redrawn).toBeGreaterThan(0);
    expect(redrawn).toBeLessThan(480 * 320 * 0.4);
    expect(before).toBeLessThanOrEqual(4096);
    expect(await cmd('RENDER?')).toContain('"09:01"');
  });

  it('update progress takes over while an update installs; touches are swallowed meanwhile', async () => {
    const { mem, device, cmd } = start();
    await mem.clock.advance(1500);
    const state = device.ctx.ota.state();
    vi.spyOn(device.ctx.ota, 'installing').mockReturnValue(true);
    vi.spyOn(device.ctx.ota, 'state').mockReturnValue({ ...state, ota: 'downloading', otaPct: 42, otaLatest: 'v0.2.0' });
    await mem.clock.advance(200);
    const render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=update/);
    expect(render).toContain('"42%"');
    expect(render).toContain('"to v0.2.0"');
    await cmd('TAP 240 160');
    expect(device.ui.screen()).toBe('update');
    expect(await cmd('TOUCHISO?')).toContain('busy=1');
  });

  it('boards without a ring show the LED state on screen, animated; the ring board does not', async () => {
    const { mem, device } = mountScreen();
    device.actions.apply({ kind: 'led', mode: 'pulse', color: { r: 255, g: 0, b: 0 }, brightness: 255 });
    const discColor = (): number[] => device.ui.frame()!.list.items.filter((i) => i.kind === 'disc').map((i) => i.color);
    // Picked up within a second (the idle check), then animated at the redraw rate.
    await mem.clock.advance(1100);
    const a = discColor();
    await mem.clock.advance(500);
    const b = discColor();
    expect(a).not.toEqual(b);
    device.actions.apply({ kind: 'lights', value: 'off' });
    await mem.clock.advance(200);
    // Only the state dot remains.
    expect(discColor()).toHaveLength(1);
    const ring = mountScreen({ board: 'ring-tft' });
    ring.device.actions.apply({ kind: 'led', mode: 'solid', color: { r: 255, g: 0, b: 0 }, brightness: 255 });
    await ring.mem.clock.advance(200);
    expect(ring.device.ui.frame()!.list.items.filter((i) => i.kind === 'disc')).toHaveLength(0);
  });

  it('Notifier mode drives the screen too: its status, and notices from the API until they time out', async () => {
    const { mem, device, cmd } = mountScreen({ mode: 0 });
    await mem.clock.advance(500);
    expect(await cmd('RENDER?')).toContain('"Notifier mode"');
    device.ui.showNotice({ title: 'Call from Anna', body: 'Ringing on your phone', source: 'Phone', holdMs: 5000 });
    await mem.clock.advance(200);
    const render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=notice/);
    expect(render).toContain('"Call from Anna"');
    expect(device.ui.showSignIn()).toBe(false);
    expect(device.ui.showWifiJoin()).toBe(false);
    // Gone within a second of its hold (the idle screen checks once a second).
    await mem.clock.advance(4000);
    expect(device.ui.screen()).toBe('notice');
    await mem.clock.advance(2000);
    expect(device.ui.screen()).toBe('status');
  });
});

describe('touch and the menu', () => {
  it('walks the menu with taps from the console: open, change theme, next page, hold to step back, close', async () => {
    const { mem, device, cmd } = mountScreen();
    await mem.clock.advance(1500);
    expect(await cmd('TAP 240 160')).toMatch(/^tap at 240,160 screen=menu\nOK/);
    let menu = await cmd('MENU?');
    expect(menu).toMatch(/^screen=menu open=1 page=1\/2 pressed=-/);
    let rows = menuRows(menu);
    expect(rows.get('theme')!.value).toBe('dark');
    const [tx, ty] = rows.get('theme')!.tap;
    await cmd(`TAP ${tx} ${ty}`);
    expect(device.actions.config('theme')).toBe('light');
    expect(device.ui.frame()!.list.bg).toBe(THEMES['light']!.bg);
    // Hold on brightness steps it down; the hold fires after HOLD_MS, the release does nothing more.
    const bright = rows.get('bright')!;
    expect(bright.value).toBe('78%');
    expect(await cmd(`TAP ${bright.tap[0]} ${bright.tap[1]} HOLD`)).toMatch(/^down at/);
    expect(device.ui.menuState().pressed).toBe('bright');
    await mem.clock.advance(HOLD_MS + 10);
    expect(await cmd('TAPUP')).toMatch(/^up at/);
    expect(menuRows(await cmd('MENU?')).get('bright')!.value).toBe('75%');
    expect(mem.display.brightness).toBe(191);
    // A press that slides off its row is cancelled, nothing happens.
    const saver = rows.get('saver')!;
    device.ui.handleTouch({ kind: 'down', x: saver.tap[0], y: saver.tap[1], rawX: 0, rawY: 0 }, 'inject');
    device.ui.handleTouch({ kind: 'move', x: saver.tap[0], y: saver.tap[1] + 60, rawX: 0, rawY: 0 }, 'inject');
    device.ui.handleTouch({ kind: 'up', x: saver.tap[0], y: saver.tap[1] + 60, rawX: 0, rawY: 0 }, 'inject');
    expect(device.ui.settings.saverMin()).toBe(5);
    // Page two, then close from the title bar.
    const more = rows.get('more')!;
    await cmd(`TAP ${more.tap[0]} ${more.tap[1]}`);
    menu = await cmd('MENU?');
    expect(menu).toMatch(/page=2\/2/);
    rows = menuRows(menu);
    expect([...rows.keys()]).toEqual(expect.arrayContaining(['close', 'update', 'about']));
    await cmd(`TAP ${rows.get('close')!.tap[0]} ${rows.get('close')!.tap[1]}`);
    expect(device.ui.screen()).toBe('status');
    // The menu closes itself when left alone.
    await cmd('TAP 240 160');
    expect(device.ui.screen()).toBe('menu');
    await mem.clock.advance(31_000);
    expect(device.ui.screen()).toBe('status');
  });

  it('a hold on the status screen opens the sign-in QR; a stuck contact is reported and ignored until it lifts', async () => {
    const { mem, device, cmd } = mountScreen();
    await mem.clock.advance(1500);
    await cmd('TAP 240 160 HOLD');
    await mem.clock.advance(HOLD_MS + 10);
    expect(device.ui.screen()).toBe('signin');
    await cmd('TAPUP');
    expect(device.ui.screen()).toBe('signin');
    await cmd('TAP 240 160');
    expect(device.ui.screen()).toBe('status');
    // A panel contact that never lifts nor moves for 30 s.
    mem.touch.onTouch!({ kind: 'down', x: 240, y: 160, rawX: 0, rawY: 0 });
    await mem.clock.advance(31_000);
    let iso = await cmd('TOUCHISO?');
    expect(iso).toMatch(/stuck=1 stuckNow=1/);
    expect(iso).toMatch(/verdict=stuck\nOK/);
    mem.touch.onTouch!({ kind: 'move', x: 241, y: 160, rawX: 0, rawY: 0 });
    expect(await cmd('TOUCHISO?')).toMatch(/isolated: wake=0 busy=0 stuck=1/);
    mem.touch.onTouch!({ kind: 'up', x: 241, y: 160, rawX: 0, rawY: 0 });
    iso = await cmd('TOUCHISO?');
    expect(iso).toMatch(/stuckNow=0/);
    // Its hold fired long before it could be known stuck; the next real tap works again.
    expect(device.ui.screen()).toBe('signin');
    await cmd('TAP 240 160');
    expect(device.ui.screen()).toBe('status');
  });

  it('panel touches go through the stored calibration (kept by a factory reset, as the mount is)', async () => {
    const rig = start();
    const { mem, device, cmd } = rig;
    await mem.clock.advance(1500);
    // A controller whose X runs right to left over raw 4000..100 and Y over 50..3000.
    expect(await cmd('TCAL 4000,100,50,3000')).toBe('tcal=4000,100,50,3000,0 (stored)\nOK\n');
    expect(await cmd('TCAL 1,2,3')).toMatch(/^ERR usage/);
    expect(await cmd('TCAL 1,5,0,3000')).toMatch(/^ERR each axis needs a span/);
    const rawFor = (x: number, y: number): [number, number] => [Math.round(4000 - (x / 479) * 3900), Math.round(50 + (y / 319) * 2950)];
    const [rx, ry] = rawFor(240, 160);
    mem.touch.onTouch!({ kind: 'down', x: 0, y: 0, rawX: rx, rawY: ry });
    mem.touch.onTouch!({ kind: 'up', x: 0, y: 0, rawX: rx, rawY: ry });
    expect(device.ui.screen()).toBe('menu');
    const rows = menuRows(await cmd('MENU?'));
    const [sx, sy] = rows.get('saver')!.tap;
    const [srx, sry] = rawFor(sx, sy);
    mem.touch.onTouch!({ kind: 'down', x: 0, y: 0, rawX: srx, rawY: sry });
    mem.touch.onTouch!({ kind: 'up', x: 0, y: 0, rawX: srx, rawY: sry });
    expect(device.ui.settings.saverMin()).toBe(15);
    expect(await cmd('TOUCH?')).toMatch(/cal=4000,100,50,3000,0 down=0\nlast=up \d+,\d+ raw=\d+,\d+ source=panel/);
    // A reading far outside the calibrated range counts as a ghost; an up without a down as an orphan.
    mem.touch.onTouch!({ kind: 'up', x: 0, y: 0, rawX: 9000, rawY: 9000 });
    const iso = await cmd('TOUCHISO?');
    expect(iso).toMatch(/panel=5 injected=0 orphans=1 ghosts=1/);
    expect(iso).toMatch(/verdict=noisy\nOK/);
    await cmd('TFTFLIP 1');
    expect(await cmd('FACTRESET')).toMatch(/OK\n$/);
    await expect(mem.clock.advance(500)).rejects.toBeInstanceOf(RebootSignal);
    const next = start({ mem: rebootMemHal(mem) });
    expect(await next.cmd('TCAL')).toBe('tcal=4000,100,50,3000,0 (stored)\nOK\n');
    expect(await next.cmd('SCREEN?')).toMatch(/posture=flipped/);
    expect(next.device.ui.settings.saverMin()).toBe(5);
    expect(await next.cmd('TCAL default')).toBe("tcal=default (the touch driver's own mapping)\nOK\n");
  });

  it('a flipped mount turns the frame and the touch map; a posture set by a device action is the mount', async () => {
    const { mem, device, cmd } = mountScreen();
    await mem.clock.advance(1500);
    const upright = menuRows((await cmd('TAP 240 160'), await cmd('MENU?'))).get('theme')!.tap;
    await cmd('TFTFLIP 1');
    const flipped = menuRows(await cmd('MENU?')).get('theme')!.tap;
    expect(flipped[0]).toBeCloseTo(479 - upright[0], -1);
    expect(flipped[1]).toBeCloseTo(319 - upright[1], -1);
    await cmd(`TAP ${flipped[0]} ${flipped[1]}`);
    expect(device.actions.config('theme')).toBe('light');
    device.actions.apply({ kind: 'config', values: { posture: 'right' } });
    await mem.clock.advance(200);
    expect(await cmd('SCREEN?')).toMatch(/canvas=320x480 round=0\nposture=right/);
    expect(mem.nvs.get('keep', 'posture')).toBe('right');
  });

  it('the screen saver starts after the idle delay, dims, and the waking touch does nothing else; sleepOvr and brightOvr override', async () => {
    const { mem, device, cmd } = mountScreen();
    await mem.clock.advance(1500);
    expect(mem.display.brightness).toBe(200);
    await mem.clock.advance(5 * 60_000);
    expect(device.ui.screen()).toBe('saver');
    expect(mem.display.brightness).toBeLessThan(50);
    expect(await cmd('TFTPWR?')).toMatch(/^power=saver backlight=\d+ source=setting/);
    await cmd('TAP 240 160');
    expect(device.ui.screen()).toBe('status');
    expect(await cmd('TOUCHISO?')).toContain('wake=1');
    device.actions.apply({ kind: 'config', values: { sleepOvr: 0, brightOvr: 90 } });
    await mem.clock.advance(20 * 60_000);
    expect(device.ui.screen()).toBe('status');
    expect(mem.display.brightness).toBe(90);
    expect(await cmd('SAVER')).toMatch(/^saver=never \(sleepOvr\)/);
    device.actions.apply({ kind: 'config', values: { sleepOvr: -1, brightOvr: -1 } });
    expect(await cmd('SAVER 1')).toMatch(/^saver=1 min \(setting\)/);
    await mem.clock.advance(61_000);
    expect(device.ui.screen()).toBe('saver');
    expect(await cmd('SAVER now')).toMatch(/screen=saver/);
  });
});

describe('the clock in the owner\'s time zone', () => {
  const BERLIN = 'CET-1CEST,M3.5.0,M10.5.0/3';
  const clockRow = async (cmd: Rig['cmd']): Promise<{ value: string | null; tap: [number, number] }> => menuRows(await cmd('MENU?')).get('clock')!;

  function startAt(wallMs: number, tz?: string): Rig {
    const mem = createMemHal({ board: 'panel-35', wallMs });
    mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
    if (tz) mem.nvs.set('sys', 'tz', tz);
    return start({ mem });
  }

  it('the status clock and the saver show local time across daylight-saving changes, labelled with the zone\'s abbreviation', async () => {
    // Berlin springs forward at 01:00 UTC on 29 March 2026 and falls back at 01:00 UTC on 25 October.
    const { mem, device, cmd } = startAt(Date.UTC(2026, 2, 29, 0, 59, 30), BERLIN);
    await mem.clock.advance(1500);
    let render = await cmd('RENDER?');
    expect(render).toContain('"01:59"');
    expect(render).toContain('"Sun 29 Mar"');
    expect(render).toContain('"CET"');
    await mem.clock.advance(30_000);
    render = await cmd('RENDER?');
    expect(render).toContain('"03:00"');
    expect(render).toContain('"CEST"');
    expect(await cmd('SAVER now')).toMatch(/screen=saver/);
    render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=saver/);
    expect(render).toContain('"03:00"');
    await cmd('TAP 240 160');
    mem.clock.setWall(Date.UTC(2026, 9, 25, 0, 59, 30));
    await mem.clock.advance(1100);
    render = await cmd('RENDER?');
    expect(render).toContain('"02:59"');
    expect(render).toContain('"CEST"');
    await mem.clock.advance(30_000);
    render = await cmd('RENDER?');
    expect(render).toContain('"02:00"');
    expect(render).toContain('"CET"');
    // A zone named only by its offset shows the offset; a change from the web shows within a second.
    expect(device.ctx.time.set('<+0530>-5:30').ok).toBe(true);
    await mem.clock.advance(1100);
    render = await cmd('RENDER?');
    expect(render).toContain('"06:30"');
    expect(render).toContain('"UTC+5:30"');
  });

  it('the menu steps through the common zones (a tap east, a hold west) and the custom one set on the web; the scheduler follows at once', async () => {
    // Sunday 22 November 2026, 09:00 UTC.
    const { mem, device, cmd } = startAt(Date.UTC(2026, 10, 22, 9));
    const routine = device.scheduler.createRoutine({ name: 'Morning', prompt: 'Say good morning.', chat: null, schedule: { kind: 'daily', at: 8 * 60, days: [] }, by: null, createdBy: 'owner' });
    if (!routine.ok) throw new Error(routine.message);
    expect(device.scheduler.approveRoutine(routine.value.id).ok).toBe(true);
    expect(device.scheduler.routine(routine.value.id)!.next).toBe(Date.UTC(2026, 10, 23, 8));
    await mem.clock.advance(1500);
    await cmd('TAP 240 160');
    const row = await clockRow(cmd);
    expect(row.value).toBe('UTC');
    const tap = `TAP ${row.tap[0]} ${row.tap[1]}`;
    const hold = async (): Promise<void> => {
      await cmd(`${tap} HOLD`);
      await mem.clock.advance(HOLD_MS + 10);
      await cmd('TAPUP');
    };
    await cmd(tap);
    expect((await clockRow(cmd)).value).toBe('London');
    await cmd(tap);
    expect((await clockRow(cmd)).value).toBe('Berlin');
    expect(mem.nvs.get('sys', 'tz')).toBe(BERLIN);
    // The scheduler saw it at once: the daily 08:00 is Berlin's now.
    expect(device.scheduler.routine(routine.value.id)!.next).toBe(Date.UTC(2026, 10, 23, 7));
    await hold();
    expect((await clockRow(cmd)).value).toBe('London');
    // A custom zone set on the web (Nepal, UTC+5:45) sits between India and Bangkok, by its name.
    expect(device.ctx.time.set('<+0545>-5:45').ok).toBe(true);
    expect((await clockRow(cmd)).value).toBe('UTC+5:45');
    await cmd(tap);
    expect((await clockRow(cmd)).value).toBe('Bangkok');
    await hold();
    expect((await clockRow(cmd)).value).toBe('UTC+5:45');
    await hold();
    expect((await clockRow(cmd)).value).toBe('India');
    expect(device.scheduler.routine(routine.value.id)!.next).toBe(Date.UTC(2026, 10, 23, 2, 30));
    // The status screen follows; the screen keeps no zone of its own.
    await cmd(`TAP ${menuRows(await cmd('MENU?')).get('close')!.tap.join(' ')}`);
    const render = await cmd('RENDER?');
    expect(render).toContain('"14:30"');
    expect(render).toContain('"IST"');
    expect(mem.nvs.get('ui', 'tz')).toBeUndefined();
  });
});

describe('the QR screens', () => {
  it('the sign-in QR carries a live ?c= code and is replaced before the code expires', async () => {
    const { mem, device, cmd } = start();
    await mem.clock.advance(1500);
    expect(device.ui.showSignIn()).toBe(true);
    device.ui.flush();
    const first = readQr(480, 320, pixelsOf(mem))!;
    expect(first).toMatch(/^http:\/\/192\.168\.1\.50\/\?c=\w+$/);
    const code = first.split('c=')[1]!;
    expect(device.ctx.signin.remainingMs(code)).toBeGreaterThan(SCAN_LIFETIME_MS - 2000);
    await mem.clock.advance(SCAN_LIFETIME_MS - SIGNIN_REFRESH_MS + 1000);
    device.ui.flush();
    const second = readQr(480, 320, pixelsOf(mem))!;
    const code2 = second.split('c=')[1]!;
    expect(code2).not.toBe(code);
    // The old code is still good for the seconds it has left; the new one for two minutes.
    expect(device.ctx.signin.remainingMs(code)).toBeGreaterThan(0);
    expect(device.ctx.signin.remainingMs(code2)).toBeGreaterThan(SCAN_LIFETIME_MS - 2000);
    // Like the passphrase, the code stays on the panel: exported frames grey it out.
    const render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=signin[\s\S]*redacted=1/);
    expect(render).not.toContain(code2);
    expect((await get(device, '/api/ui/frame?describe=1')).body.toString()).not.toContain(code2);
    expect(device.ctx.signin.redeem(code2)).toEqual({ ok: true });
  });

  it('the Wi-Fi QR from the menu while the setup network is up; refused when it is not', async () => {
    const { mem, device } = start();
    await mem.clock.advance(1500);
    expect(device.ui.showWifiJoin()).toBe(false);
    mem.wifi.linkDown();
    await mem.clock.advance(1500);
    expect(device.ui.showWifiJoin()).toBe(true);
    device.ui.flush();
    expect(readQr(480, 320, pixelsOf(mem))).toMatch(/^WIFI:T:WPA;S:Device-setup;P:\w{10};;$/);
  });
});

describe('the Display and Touch commands', () => {
  it('answer OK with what they did, or ERR with why (and change nothing)', async () => {
    const { mem, device, cmd } = mountScreen();
    await mem.clock.advance(1500);
    expect(await cmd('SCREEN eink')).toBe('ERR eink: a frozen legacy value that binds no supported display; nothing changed\n');
    expect(await cmd('SCREEN oled')).toMatch(/^ERR unknown panel model oled \(this board: tft = st7796s\)/);
    expect(await cmd('SCREEN tft')).toBe('screen=tft controller=st7796s\nOK\n');
    expect(await cmd('SCREEN st7796s')).toBe('screen=tft controller=st7796s\nOK\n');
    expect(await cmd('SCREEN?')).toMatch(/^screen=tft controller=st7796s size=480x320 canvas=480x320 round=0\nposture=normal theme=dark brightness=200 \(setting\) showing=status\nOK\n$/);
    expect(await cmd('TFTID?')).toBe('controller=st7796s model=tft size=480x320 rotation=90 round=0 touch=ft6206 board=panel-35\nOK\n');
    expect(await cmd('TFTHZ 0')).toBe('ERR out of range: 1-30\n');
    expect(await cmd('TFTHZ 20')).toMatch(/^hz=20 /);
    expect(await cmd('SAVER 99999')).toMatch(/^ERR out of range/);
    expect(await cmd('TFTFILL?')).toMatch(/^red: 153600 px in \d+ tiles.*\ngreen: .*\nblue: .*\nredrawn: status\nOK\n$/);
    expect(await cmd('TFTHEALTH?')).toMatch(/^ok=1 .*errors=0/);
    expect(await cmd('TFTFLIP 2')).toMatch(/^ERR usage/);
    expect(await cmd('PANELPROBE 1')).toBe('probe=on showing=probe\nOK\n');
    await cmd('TAP 100 50');
    expect(await cmd('RENDER?')).toContain('"touch 100,50"');
    expect(await cmd('PANELPROBE 0')).toBe('probe=off showing=status\nOK\n');
    expect(await cmd('TAP 480 10')).toMatch(/^ERR out of range/);
    expect(await cmd('TAP 1')).toMatch(/^ERR usage: TAP/);
    expect(await cmd('TAPUP')).toBe('ERR no touch is down\n');
    expect(await cmd('TAP 10 10 HOLD')).toMatch(/^down at 10,10/);
    expect(await cmd('TAP 20 20')).toMatch(/^ERR a touch is already down/);
    expect(await cmd('TAPUP')).toMatch(/^up at 10,10/);
    expect(await cmd('TOUCH?')).toMatch(/^present=1 controller=ft6206 cal=default down=0/);
    expect(await cmd('RAWFRAME?')).toMatch(/^format=rgb565 order=display-rows bytes=307200 sha256=[0-9a-f]{64}\ntile<=4096px largestTile=\d+px/);
    expect(device.ui.renderer.stats().largestTile).toBeLessThanOrEqual(4096);
  });

  it('TFTBREAK: failing tiles are reported by TFTHEALTH? and the screen recovers after the back-off', async () => {
    const { mem, device, cmd } = mountScreen();
    await mem.clock.advance(1500);
    const clean = Uint16Array.from(mem.display.pixels);
    expect(await cmd('TFTBREAK')).toMatch(/^the next 4 tiles fail/);
    mem.display.pixels.fill(0);
    device.ui.tick();
    expect(await cmd('TFTHEALTH?')).toMatch(/errors=1 lastError=panel did not answer \(TFTBREAK\).*\nERR display unhealthy/);
    await mem.clock.advance(3000);
    expect(await cmd('TFTHEALTH?')).toMatch(/^ok=1 .*errors=4/);
    expect(Buffer.from(mem.display.pixels.buffer).equals(Buffer.from(clean.buffer))).toBe(true);
  });

  it('the ring board (no touch panel) still takes TAP from the console; its menu is the round one', async () => {
    const { mem, device, cmd } = mountScreen({ board: 'ring-tft' });
    await mem.clock.advance(1500);
    expect(await cmd('TOUCH?')).toMatch(/^present=0 controller=none/);
    await cmd('TAP 120 120');
    expect(device.ui.screen()).toBe('menu');
    const rows = menuRows(await cmd('MENU?'));
    expect(rows.get('bright')).toBeDefined();
    expect(await cmd('RENDER?')).toContain('"Light 78%"');
  });
});
