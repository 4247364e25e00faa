// Boots the whole device: the update guard runs first in boot(), across restarts.
// The boot guard across restarts (spec: Install and rollback), through a
// bootloader with ESP-IDF's rollback rules (test/support/ota.ts): a new image
// is confirmed after a healthy run (120 s, or 600 s without Wi-Fi); three
// failed boots return to the previous slot; an image that dies before its
// guard runs is returned by the bootloader; power cuts during the download,
// after arming and after the flip each come back bootable with the right
// lastOta. Also auto-install.
import { describe, expect, it } from 'vitest';
import { boot, type Device } from '../../../src/main.ts';
import { flushJobs } from '../../support/clock.ts';
import { createMemHal, RebootSignal, type MemHal } from '../../support/memhal.ts';
import { makeKey, restart, simImage, UpdateFeed } from '../../support/ota.ts';

const key = makeKey();

function start(mem: MemHal, feed: UpdateFeed): Device {
  feed.attach(mem.net);
  const device = boot(mem.hal);
  device.ctx.ota.keys = [key.trusted];
  return device;
}

function fresh(version = 'v1.0.0') {
  const mem = createMemHal({ version });
  mem.flash.slots[0] = simImage(version);
  const feed = new UpdateFeed();
  return { mem, feed, device: start(mem, feed) };
}

/** Installs the published release and returns the restarted device's HAL (not booted yet). */
async function install(mem: MemHal, device: Device): Promise<MemHal> {
  const t = device.ctx.ota.apply({ source: 'web' });
  if (!t.ok) throw new Error(t.reason);
  expect(await t.done).toMatchObject({ kind: 'restarting' });
  await expect(mem.clock.advance(1000)).rejects.toBeInstanceOf(RebootSignal);
  device.stop();
  return restart(mem, 'software');
}

function lastOta(mem: MemHal): unknown {
  return mem.nvs.get('ota', 'lastOta');
}

describe('confirming a new image', () => {
  it('boots the new image pending-verify, marks it valid at once in otadata, and confirms it after 120 s with Wi-Fi up', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key, notes: 'Quieter fan.' });
    mem = await install(mem, device);
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v2.0.0');
    expect(mem.flash.running).toBe(1);
    expect(mem.flash.states[1]).toBe('valid'); // the guard decides rollback from here on, not the bootloader
    expect(mem.nvs.get('ota', 'otaBoots')).toBe(1);
    expect(device.ctx.ota.state()).toMatchObject({ ota: 'confirming', lastOta: 'installing v2.0.0', otaSlot: 'ota_1' });
    expect(device.ctx.ota.apply({ source: 'web', force: true })).toMatchObject({ ok: false, reason: 'confirming' });
    mem.wifi.networks.set('home', 'pw');
    mem.wifi.stationConnect('home', 'pw');
    await mem.clock.advance(115_000);
    expect(device.ctx.ota.state().lastOta).toBe('installing v2.0.0');
    await mem.clock.advance(10_000);
    expect(device.ctx.ota.state()).toMatchObject({ ota: 'idle', lastOta: 'ok v2.0.0' });
    expect(mem.nvs.get('ota', 'otaPend')).toBeUndefined();
    expect(device.ctx.timeline.recent().map((r) => r.text)).toContain('firmware v2.0.0 confirmed after a healthy run');
  });

  it('waits 600 s when Wi-Fi never came up', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key });
    mem = await install(mem, device);
    device = start(mem, feed);
    await mem.clock.advance(590_000);
    expect(device.ctx.ota.state().ota).toBe('confirming');
    await mem.clock.advance(15_000);
    expect(device.ctx.ota.state()).toMatchObject({ ota: 'idle', lastOta: 'ok v2.0.0' });
  });

  it('counts a restart inside the window as a boot attempt and still confirms the image later', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key });
    mem = await install(mem, device);
    device = start(mem, feed);
    device.stop();
    mem = restart(mem, 'power-on');
    device = start(mem, feed);
    expect(mem.nvs.get('ota', 'otaBoots')).toBe(2);
    await mem.clock.advance(605_000);
    expect(device.ctx.ota.state().lastOta).toBe('ok v2.0.0');
  });
});

describe('rolling back', () => {
  it('returns to the previous slot after three failed boots, with lastOta rollback vX', async () => {
    const { feed, ...booted } = fresh('v2.0.0');
    let { mem, device } = booted;
    feed.publish({ version: 'v3.0.0', key });
    mem = await install(mem, device);
    // v3 crashes soon after each boot: three attempts ...
    for (let attempt = 1; attempt <= 3; attempt++) {
      device = start(mem, feed);
      expect(mem.hal.build.version).toBe('v3.0.0');
      expect(mem.nvs.get('ota', 'otaBoots')).toBe(attempt);
      device.stop();
      mem = restart(mem, 'panic');
    }
    // ... and the fourth start returns to the previous slot before anything else runs.
    expect(() => boot(mem.hal)).toThrow(RebootSignal);
    expect(mem.system.reboots).toEqual(['ota-rollback']);
    expect(mem.flash.boot).toBe(0);
    mem = restart(mem, 'software');
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v2.0.0');
    expect(mem.flash.states[0]).toBe('valid');
    expect(device.ctx.ota.state()).toMatchObject({ ota: 'idle', lastOta: 'rollback v3.0.0', otaSlot: 'ota_0' });
    expect(mem.nvs.get('ota', 'otaPend')).toBeUndefined();
    expect(device.ctx.timeline.recent().map((r) => r.text)).toContain('firmware v3.0.0 failed to start: rolled back to v2.0.0');
    expect(device.ctx.status.line()).toMatch(/ lastOta=rollback_v3\.0\.0$/);
  });

  it('lets the bootloader return an image that dies before its guard runs; the old image reports the rollback', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key });
    mem = await install(mem, device);
    expect(mem.flash.states[1]).toBe('pending-verify'); // the restart booted it, and it died at once
    mem = restart(mem, 'panic');
    expect(mem.flash.states[1]).toBe('aborted');
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v1.0.0');
    expect(device.ctx.ota.state().lastOta).toBe('rollback v2.0.0');
  });
});

describe('power cuts during an install', () => {
  it('during the download: the old firmware boots, lastOta failed vX (otaErr interrupted)', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    const { image } = feed.publish({ version: 'v2.0.0', key, image: simImage('v2.0.0', 100_000) });
    feed.files.set('/releases/v2.0.0/desk-v2.0.0.img', { body: image, stallAt: 40_000 });
    device.ctx.ota.apply({ source: 'web' });
    await mem.clock.advance(100);
    expect(device.ctx.ota.state().ota).toBe('downloading');
    mem = restart(mem, 'power-on');
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v1.0.0');
    expect(device.ctx.ota.state()).toMatchObject({ lastOta: 'failed v2.0.0', otaErr: 'interrupted', ota: 'idle' });
  });

  it('after arming, before the flip: the old firmware boots, lastOta aborted-preflip', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key });
    expect(await device.ctx.console.execute('OTASIM hold armed')).toBe('hold armed\r\nOK\r\n');
    device.ctx.ota.apply({ source: 'web' });
    await mem.clock.advance(100);
    expect(mem.nvs.get('ota', 'otaPend')).toBe('v2.0.0');
    expect(mem.flash.boot).toBe(0);
    mem = restart(mem, 'power-on');
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v1.0.0');
    expect(device.ctx.ota.state()).toMatchObject({ lastOta: 'aborted-preflip', ota: 'idle' });
    expect(mem.nvs.get('ota', 'otaPend')).toBeUndefined();
  });

  it('OTASIM crash answers, then panics on the next loop turn (a failed boot for the guard)', async () => {
    const { mem, device } = fresh();
    expect(await device.ctx.console.execute('OTASIM crash')).toBe('crashing\r\nOK\r\n');
    await expect(mem.clock.advance(10)).rejects.toThrow('OTASIM crash');
    expect(await device.ctx.console.execute('OTASIM arm 2.0')).toMatch(/^ERR usage/);
  });

  it('OTASIM arm <ver> leaves the same state', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    expect(await device.ctx.console.execute('OTASIM arm v9.9.9')).toBe('armed v9.9.9\r\nOK\r\n');
    mem = restart(mem, 'power-on');
    device = start(mem, feed);
    expect(device.ctx.ota.state().lastOta).toBe('aborted-preflip');
  });

  it('after the flip, before the restart: the new image boots and is confirmed', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key });
    await device.ctx.console.execute('OTASIM hold flipped');
    device.ctx.ota.apply({ source: 'web' });
    await mem.clock.advance(100);
    expect(mem.flash.boot).toBe(1);
    mem = restart(mem, 'power-on');
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v2.0.0');
    expect(device.ctx.ota.state().lastOta).toBe('installing v2.0.0');
    await mem.clock.advance(600_000);
    expect(device.ctx.ota.state().lastOta).toBe('ok v2.0.0');
  });

  it('confirms a pending-verify image that has no guard, so the next update can be written', () => {
    const mem = createMemHal();
    mem.flash.states[0] = 'pending-verify';
    boot(mem.hal);
    expect(mem.flash.states[0]).toBe('valid');
  });
});

describe('auto-install', () => {
  it('is off by default; when on it installs a newer release at the hourly evaluation, when idle and powered', async () => {
    const { feed, ...booted } = fresh();
    let { mem, device } = booted;
    feed.publish({ version: 'v2.0.0', key });
    await mem.clock.advance(2 * 3600_000);
    expect(device.ctx.ota.state()).toMatchObject({ otaResult: 'new-version', autoUpd: false, lastOta: null });
    device.ctx.ota.setAuto(true);
    let busy = true;
    device.ctx.ota.addBusyProbe(() => busy);
    mem.battery.reading = { ...mem.battery.reading, levelPct: 49, healthPct: 90, external: false };
    await mem.clock.advance(3600_000);
    expect(device.ctx.ota.state().lastOta).toBeNull();
    mem.battery.reading = { ...mem.battery.reading, levelPct: 50 };
    await mem.clock.advance(3600_000);
    expect(device.ctx.ota.state().lastOta).toBeNull(); // busy
    busy = false;
    let rebooted = false;
    try {
      await mem.clock.advance(3600_000);
      await flushJobs();
      await mem.clock.advance(1000);
    } catch (e) {
      rebooted = e instanceof RebootSignal;
    }
    expect(rebooted).toBe(true);
    expect(lastOta(mem)).toBe('installing v2.0.0');
    mem = restart(mem, 'software');
    device = start(mem, feed);
    expect(mem.hal.build.version).toBe('v2.0.0');
    expect(device.ctx.ota.state().autoUpd).toBe(true);
  });

  it('moves only forward and needs health 60 % on battery', async () => {
    const { mem, feed, device } = fresh('v2.0.0');
    device.ctx.ota.setAuto(true);
    feed.publish({ version: 'v1.9.0', key });
    await mem.clock.advance(3 * 3600_000);
    expect(device.ctx.ota.state()).toMatchObject({ otaResult: 'up-to-date', lastOta: null });
    feed.publish({ version: 'v2.1.0', key });
    await device.ctx.console.execute('OTACHECK');
    mem.battery.reading = { ...mem.battery.reading, levelPct: 90, healthPct: 59, external: false };
    await mem.clock.advance(3600_000);
    expect(device.ctx.ota.state().lastOta).toBeNull();
  });
});
