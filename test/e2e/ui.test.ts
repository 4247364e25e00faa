// The device screen on the simulator (the real firmware on XS, panel-35):
// the first-run Wi-Fi join QR on the simulated panel (readable, with the
// passphrase) while RENDER? never prints it; RENDER? saving the panel as a
// PNG that matches the firmware's own frame; the status screen after Wi-Fi
// is saved; TAP walking the menu; a touch from the board's control socket
// (raw coordinates, the panel path); GET /api/ui/frame as the same PNG.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';
import { readPng, readQr } from '../support/ui.ts';

let device: Device;
let token = '';

function rgb565Of(png: { width: number; height: number; data: Uint8Array }): Uint16Array {
  const px = new Uint16Array(png.width * png.height);
  for (let i = 0; i < px.length; i++) px[i] = ((png.data[i * 4]! >> 3) << 11) | ((png.data[i * 4 + 1]! >> 2) << 5) | (png.data[i * 4 + 2]! >> 3);
  return px;
}

/** MENU? rows: id -> [x, y] to TAP. */
function taps(text: string): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const m of text.matchAll(/^(\w+) "[^"]*"(?: value="[^"]*")? at=\S+ tap=(\d+),(\d+)$/gm)) out.set(m[1]!, [Number(m[2]), Number(m[3])]);
  return out;
}

beforeAll(async () => {
  device = await startDevice({ board: 'panel-35' });
  token = /^([0-9a-f]{24})$/m.exec(await device.command('WEBTOK?'))![1]!;
});

afterAll(async () => {
  await cleanup();
});

describe('the screen on the simulator', () => {
  it('first run: the panel shows the Wi-Fi join QR with the passphrase; RENDER? saves it but never prints the passphrase', async () => {
    const pass = /pass=(\w+)/.exec(await device.command('APINFO?'))![1]!;
    const out = await device.command('RENDER?');
    expect(out).toMatch(/^screen=wifi size=480x320/);
    expect(out).not.toContain(pass);
    const png = /^png=(\S+) panel=([0-9a-f]{64}) match=n\/a \(redacted\)$/m.exec(out);
    expect(png).not.toBeNull();
    const frame = readPng(readFileSync(png![1]!));
    expect(readQr(frame.width, frame.height, rgb565Of(frame))).toBe(`WIFI:T:WPA;S:Device-setup;P:${pass};;`);
    // The debug route's PNG has the symbol and the passphrase greyed out.
    const res = await device.fetch('/api/ui/frame', { token });
    const routed = readPng(Buffer.from(await res.arrayBuffer()));
    expect(readQr(routed.width, routed.height, rgb565Of(routed))).toBeNull();
  });

  it('after Wi-Fi is saved: RENDER? gives a PNG of the status screen equal to the firmware\'s frame and to GET /api/ui/frame', async () => {
    const saved = await device.fetch('/savewifi', { method: 'POST', body: 'ssid=SimNet&pass=simnet-pass', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(saved.status).toBe(202);
    await expect.poll(async () => /^screen=(\w+)/.exec(await device.command('RENDER?'))?.[1], { timeout: 10_000 }).toBe('status');
    await expect.poll(async () => device.command('RENDER?'), { timeout: 10_000 }).toContain('"192.168.1.50');
    const out = await device.command('RENDER?');
    const m = /^frame=([0-9a-f]{64})\npng=(\S+) panel=([0-9a-f]{64}) match=yes$/m.exec(out);
    expect(m, out).not.toBeNull();
    expect(m![3]).toBe(m![1]);
    const frame = readPng(readFileSync(m![2]!));
    expect([frame.width, frame.height]).toEqual([480, 320]);
    // The route sends the same frame (nothing secret on the status screen). The clock may
    // turn a minute between the two: then ask again.
    let same = false;
    for (let i = 0; i < 3 && !same; i++) {
      const res = await device.fetch('/api/ui/frame', { token });
      expect(res.headers.get('content-type')).toBe('image/png');
      const routed = readPng(Buffer.from(await res.arrayBuffer()));
      const panel = readPng(readFileSync(/^png=(\S+)/m.exec(await device.command('RENDER?'))![1]!));
      same = Buffer.from(routed.data).equals(Buffer.from(panel.data));
    }
    expect(same).toBe(true);
    const desc = (await (await device.fetch('/api/ui/frame?describe=1', { token })).json()) as { screen: string; items: string[] };
    expect(desc.screen).toBe('status');
    expect(desc.items.some((i) => i.includes('"Ready"') || i.includes('"Offline"'))).toBe(true);
    expect((await device.fetch('/api/ui/frame')).status).toBe(401);
  });

  it('TAP walks the menu: open it, change the theme, turn a page, close it', async () => {
    expect(await device.command('TAP 240 160')).toMatch(/^tap at 240,160 screen=menu\nOK$/);
    let rows = taps(await device.command('MENU?'));
    const [tx, ty] = rows.get('theme')!;
    await device.command(`TAP ${tx} ${ty}`);
    expect(await device.command('SCREEN?')).toMatch(/theme=light/);
    const [mx, my] = rows.get('more')!;
    await device.command(`TAP ${mx} ${my}`);
    const page2 = await device.command('MENU?');
    expect(page2).toMatch(/page=2\/2/);
    rows = taps(page2);
    const [cx, cy] = rows.get('close')!;
    // The last step through the board's control socket: a touch with raw panel coordinates.
    await device.board.request('touch', { kind: 'down', x: cx, y: cy });
    await device.board.request('touch', { kind: 'up', x: cx, y: cy });
    await expect.poll(async () => /^screen=(\w+)/.exec(await device.command('MENU?'))?.[1], { timeout: 5000 }).toBe('status');
    const iso = await device.command('TOUCHISO?');
    expect(iso).toMatch(/panel=2 injected=6/);
    expect(iso).toMatch(/last=up raw=\d+,\d+ cal=\d+,\d+ source=panel/);
    expect(await device.command('RENDER?')).toMatch(/match=yes/);
  });

  it('TFTFILL? and TFTHEALTH? on the simulated panel', async () => {
    expect(await device.command('TFTFILL?')).toMatch(/^red: 153600 px in \d+ tiles, [\d.]+ ms/);
    expect(await device.command('TFTHEALTH?')).toMatch(/^ok=1 .* errors=0 /);
    expect(await device.command('RENDER?')).toMatch(/match=yes/);
  });
});
